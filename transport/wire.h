// The wire messages as plain C++ values, and their encoding (transport/protocol.capnp is the
// source of truth for every field's meaning). Decoding is bounded: a hostile or garbled frame
// gives a kCorrupt Status, never an exception or an unbounded allocation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "base/batch_info.h"
#include "base/compact_row.h"
#include "base/status.h"
#include "base/tensor.h"
#include "loader/spec/spec.h"

namespace textfeed::transport {

inline constexpr uint32_t kProtocolVersion = 5;
// Largest Envelope frame accepted (payload frames are separate); also the traversal limit.
inline constexpr size_t kMaxEnvelopeBytes = 1 << 20;
// Payload frames are at most this large (protocol.capnp maxPayloadFrameBytes); receivers set
// ZMQ_MAXMSGSIZE to twice that.
inline constexpr size_t kMaxPayloadFrameBytes = size_t{1} << 20;
inline constexpr size_t kMaxReceiveFrameBytes = size_t{2} << 20;
// Texts a client sends that the daemon repeats in its log, its Error replies and Stats: longer ones
// are refused (protocol.capnp), so that every reply about them fits in one envelope.
inline constexpr size_t kMaxClientNameBytes = 256;  // Hello.clientName
// Words one compact batch may carry (protocol.capnp Batch.compactQuads): 512 KiB of coordinates.
inline constexpr size_t kMaxCompactWords = size_t{1} << 13;

// What a stream's batches carry (protocol.capnp enum Payload).
enum class Payload : unsigned char { kFull = 0, kCompact = 1 };
// "full" | "compact". Errors (parse): kInvalidArgument naming the accepted names.
std::string_view payload_name(Payload p);
Result<Payload> parse_payload(std::string_view name);

// How a stream's batches travel (protocol.capnp enum Transport, value for value). kAuto is a
// client's choice (shared memory when the daemon offers it, frames otherwise), never on the wire.
enum class Transport : unsigned char { kFrames = 0, kSharedMemory = 1, kAuto = 2 };
// "frames" | "shm" | "auto": the names of the CLI, Python, stats and logs.
std::string_view transport_name(Transport t);
// Errors: kInvalidArgument naming the accepted names.
Result<Transport> parse_transport(std::string_view name);

struct Hello {
  uint32_t protocol_version = kProtocolVersion;
  std::string client_name;
  uint64_t session = 0;
};
struct HelloReply {
  uint32_t protocol_version = kProtocolVersion;
  std::string server_name;
  std::vector<std::string> datasets;
  std::string memory_socket;  // empty: no shared memory offered
  uint32_t heartbeat_millis = 0;
  uint32_t server_heartbeat_millis = 0;
};
struct OpenStream {
  loader::PipelineSpec spec;  // spec.sources[0].path names one of HelloReply.datasets
  Position start;             // the first batch to deliver
  Transport transport = Transport::kFrames;
  bool assigned = false;  // the client names each batch in its Credits (protocol.capnp)
  Payload payload = Payload::kFull;
};
struct AttachMemory {
  uint64_t stream_id = 0;
  uint32_t slots = 0;
  uint64_t slot_stride = 0;
};
struct MemoryAttached {
  uint64_t stream_id = 0;
};
struct StreamOpened {
  uint64_t stream_id = 0, batches_per_epoch = 0, dataset_size = 0, slot_bytes = 0;
  std::vector<TensorDesc> tensors;
  uint32_t max_credits = 0;
  std::vector<uint8_t> memory_token;  // sharedMemory streams: kMemoryTokenBytes (transport/shm.h)
  uint64_t dataset_fingerprint = 0;
  uint64_t resumed_batches = 0;        // of spec.sampler.resume.epoch, when the resume has stages
  std::vector<uint64_t> source_sizes;  // kMaxSources at most
  bool assigned = false;               // the daemon fills the batches each Credit names
  uint64_t compact_bytes = 0;          // payload compact: a full compact batch's payload; 0: full
};
struct Credit {
  uint64_t stream_id = 0;
  std::vector<uint32_t> slots;
  uint32_t count = 0;
  std::vector<Position> batches;  // assigned streams: one per slot or per count, in fill order
};
// A Batch message: the batch's metadata (base/batch_info.h; its samples are protocol.capnp's
// Batch.imageIds ..., its compact rows Batch.compact* of a compact payload), and where its payload
// is: the stream, the slot and the tensors' descriptors.
struct BatchHeader : BatchInfo {
  uint64_t stream_id = 0;
  uint32_t slot = 0;
  std::vector<TensorDesc> tensors;
};
struct EndOfEpoch {
  uint64_t stream_id = 0, epoch = 0;
};
struct ErrorReply {
  Code code = Code::kInternal;
  std::string message;
  uint64_t stream_id = 0;
};
struct Close {
  uint64_t stream_id = 0;
};
struct Closed {
  uint64_t stream_id = 0, batches_delivered = 0;
};
struct Heartbeat {
  int64_t unix_millis = 0;
};
struct StatsRequest {};
struct StreamStats {
  uint64_t stream_id = 0;
  std::string dataset;
  uint32_t rank = 0, world_size = 1;
  uint64_t batches = 0, samples = 0, skipped_samples = 0;
  double samples_per_second = 0;
  uint32_t credits_outstanding = 0, in_flight = 0;
  uint64_t epoch = 0, next_batch = 0;
  Transport transport = Transport::kFrames;
  std::string client;
  std::vector<double> stage_ms;
};
struct Stats {
  std::vector<StreamStats> streams;
  double samples_per_second = 0;
  std::vector<std::string> stage_names;
  std::vector<double> stage_ms;
  uint32_t queue_depth = 0;
  uint64_t samples = 0, skipped_samples = 0;
  double uptime_seconds = 0;
  uint32_t threads = 0, clients = 0;
};

using Message = std::variant<Hello, HelloReply, OpenStream, StreamOpened, Credit, BatchHeader,
                             EndOfEpoch, ErrorReply, Close, Heartbeat, AttachMemory, MemoryAttached,
                             Closed, StatsRequest, Stats>;

// The protocol.capnp field name of a C++ option named in snake_case: camelCase ("crop_size" ->
// "cropSize", "albumentations_1_3_1" -> "albumentations131"). A recipe row travels in the Recipe
// field of this name (a range: the name + "Lo" / "Hi").
std::string wire_field_name(std::string_view snake);

// One Envelope frame (flat-array Cap'n Proto). Errors: kInvalidArgument (a field out of range).
Result<std::vector<uint8_t>> encode(const Message& message);
// Parses an Envelope frame. Errors: kCorrupt (not a valid Envelope, larger than
// kMaxEnvelopeBytes, not word-aligned in size), kInvalidArgument (an enumerant this build does not
// know, naming the field; an OpenStream spec list longer than loader/spec/spec.h allows, naming the
// field and the limit), kUnimplemented (a union member this build does not handle, e.g. from a
// newer peer).
Result<Message> decode(std::span<const uint8_t> frame);

}  // namespace textfeed::transport
