// StreamSlots: where a stream's batches are written and how they leave, one implementation per
// transport. Shared memory: the client's slots, credited one by one; a finished batch is only
// announced. Frames: daemon-side buffers (a FramePool), credited by count; a finished batch goes
// out as zero-copy payload frames.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>
#include <zmq.hpp>

#include "base/file.h"
#include "base/wakeup.h"
#include "loader/pipeline/batch_stream.h"
#include "transport/shm.h"
#include "transport/wire.h"

namespace textfeed::transport::internal {

// An interface. Not thread-safe: the server's socket thread calls everything; fills write into
// the slots acquire() hands out, on worker threads, until their batch is delivered or released.
class StreamSlots {
 public:
  virtual ~StreamSlots() = default;

  virtual Transport transport() const = 0;
  // Takes a Credit of the stream, `in_flight` fills of which are running or waiting to be sent;
  // returns how many more fills it allows. Errors: kInvalidArgument (a credit of the other
  // transport's kind, a slot not the client's to give or named twice, memory not attached),
  // kOverloaded (more than the stream's max credits in flight).
  virtual Result<uint32_t> credit(const Credit& c, size_t in_flight) = 0;
  // Where the next fill writes, using one credit; nullopt when no buffer is free now (a freed one
  // wakes the loop). Errors: kOverloaded (no memory for a new frame buffer).
  virtual Result<std::optional<loader::Slot>> acquire() = 0;
  // The batch in `slot` will not be sent: the slot goes back (to the client, or to the pool).
  virtual void release(uint32_t slot) = 0;
  // The batch in `slot` is sent with `header`: sets header.slot; returns its payload frames (none
  // for shared memory), which reference the slot until ZeroMQ has sent them.
  virtual std::vector<zmq::message_t> deliver(uint32_t slot, BatchHeader& header) = 0;
  // Fills the client allowed that have not started (Stats.streams[].creditsOutstanding).
  virtual uint32_t credits_outstanding() const = 0;
  // Bytes of daemon memory the slots may hold at once (what the daemon-wide budget counts).
  virtual size_t memory_bytes() const = 0;

  // The shared-memory hand-over (docs/protocol.md); a frames stream has none.
  // While waiting for the client's memory: the token its descriptor must come with.
  virtual const MemoryToken* awaiting_memory() const { return nullptr; }
  // Whether the one hand-over was refused (by attach()): the stream can never get memory.
  virtual bool memory_refused() const { return false; }
  // Keeps the descriptor that came with the token, for attach().
  virtual void deposit(FileDescriptor) {}
  // Maps the deposited descriptor as the client's slots. Errors: kInvalidArgument (a frames
  // stream, memory already attached, no descriptor came, bad slot count or stride, not a sealed
  // memory file or too small), kIo.
  virtual Status attach(const AttachMemory& m) = 0;
};

// The client's shared memory, for stream `stream_id` whose batches take `slot_bytes`.
std::unique_ptr<StreamSlots> make_shared_memory_slots(uint64_t stream_id, uint64_t slot_bytes);
// `buffers` daemon-side buffers of `slot_bytes`; at most `max_credits` batches in flight.
std::unique_ptr<StreamSlots> make_frame_slots(uint64_t stream_id, uint64_t slot_bytes, int buffers,
                                              uint32_t max_credits, std::shared_ptr<Wakeup> wakeup);

}  // namespace textfeed::transport::internal
