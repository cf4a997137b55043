// Connection: a client's side of the protocol (docs/protocol.md): one DEALER socket owned by one
// thread. Opens streams, attaches shared memory, grants credits, receives batches (copying frame
// payloads into the caller's buffer), and keeps itself alive with heartbeats while it waits.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "base/status.h"
#include "base/wakeup.h"
#include "transport/curve.h"
#include "transport/shm.h"
#include "transport/wire.h"

namespace textfeed::transport {

struct ConnectOptions {
  std::chrono::milliseconds timeout{10000};            // for the Hello reply
  std::chrono::milliseconds heartbeat_interval{1000};  // sent while waiting, after this much quiet
  CurveClientOptions curve;                            // required by a tcp daemon with CURVE keys
  uint64_t session = 0;  // Hello.session: the same for every connection of one client (0 = none)
};

// A resource type; not thread-safe (ZeroMQ sockets belong to one thread).
class Connection {
 public:
  // Where the payload of a frames Batch goes: at least the largest tensor offset + size bytes.
  using PayloadFor = std::function<std::span<uint8_t>(const BatchHeader&)>;

  // Connects and says Hello. Errors: kUnavailable (no answer within options.timeout),
  // kUnimplemented (protocol version mismatch), others from the daemon's Error reply.
  static Result<std::unique_ptr<Connection>> connect(const std::string& endpoint,
                                                     const std::string& client_name,
                                                     const ConnectOptions& options = {});
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  const HelloReply& hello() const;
  const std::string& endpoint() const;
  // Opens a stream. Errors: the daemon's Error (kNotFound for an unknown dataset, ...).
  Result<StreamOpened> open(const OpenStream& request,
                            std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // Lends a shared-memory stream its slots: hands the sealed memory file `memory_fd` (slot i at
  // i * slot_stride; see ShmRegion::create) to the daemon's memory socket with the stream's token
  // (StreamOpened.memory_token), then sends AttachMemory and waits for MemoryAttached. The
  // descriptor stays the caller's. Errors: kInvalidArgument (the daemon offers no shared memory,
  // a token of the wrong size), the daemon's Error, kUnavailable.
  Status attach(const StreamOpened& stream, int memory_fd, uint32_t slots, uint64_t slot_stride,
                std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Frames streams: accepts `count` more batches.
  Status credit(uint64_t stream_id, uint32_t count);
  // Shared-memory streams: the daemon may write these slots next.
  Status credit_slots(uint64_t stream_id, std::span<const uint32_t> slots);
  // Any Credit as it is: an assigned stream's names its batches (slots or a count, one each).
  Status credit(const Credit& credit);
  // The next message of any kind except Heartbeat (answered by staying alive), or nullopt when
  // `timeout` passes or `wake` (if not null) is signalled first: the wait of a thread that also
  // serves a queue signalled through a Wakeup (which the caller drains). A frames Batch has its
  // payload copied into payload_for(header) at the tensors' offsets (an empty span drops it). An
  // Error from the daemon comes back as an ErrorReply message, not as a Status. Errors: kCorrupt (a
  // malformed message, payload frames that do not match the header or the buffer), kUnavailable
  // (socket failure).
  Result<std::optional<Message>> poll(std::chrono::milliseconds timeout,
                                      const PayloadFor& payload_for, const Wakeup* wake);
  // The next Batch, skipping EndOfEpoch, Closed and MemoryAttached; an Error becomes its Status.
  // Frames payloads are copied into `slot`.
  Result<BatchHeader> receive(std::span<uint8_t> slot, std::chrono::milliseconds timeout);
  // Ends a stream and waits for the daemon's Closed (batches of the stream that arrive meanwhile
  // are dropped), after which its slots are the client's again. Errors: kUnavailable.
  Status close(uint64_t stream_id, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Asks for the daemon's counters. Errors: kUnavailable, the daemon's Error.
  Result<Stats> stats(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // When the last message of any kind (heartbeats too) arrived from the daemon.
  std::chrono::steady_clock::time_point last_heard() const;
  // Sends a raw frame (for tests of the daemon's handling of garbage) and returns its reply.
  Result<Message> send_raw_for_testing(std::span<const uint8_t> frame,
                                       std::chrono::milliseconds timeout);
  // Sends a raw frame and reads nothing. Errors: kUnavailable (this side's queue is full).
  Status send_only_for_testing(std::span<const uint8_t> frame);

 private:
  struct Impl;
  explicit Connection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace textfeed::transport
