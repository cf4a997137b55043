// FramePool: a frames stream's daemon-side batch buffers. A batch is filled into one, then sent as
// zero-copy ZeroMQ payload frames that point into it; ZeroMQ's free callbacks (on its I/O thread)
// hand the buffer back once every frame has gone, and wake the server loop.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>
#include <zmq.hpp>

#include "base/wakeup.h"
#include "loader/pipeline/batch_stream.h"
#include "transport/wire.h"

namespace textfeed::transport::internal {

// Thread-safety: acquire/messages/release from the server thread; the free callbacks from any
// thread. Buffers are allocated on first use (up to `capacity`) and reused, never freed before the
// pool. They are mappings of their own, not heap blocks: when the pool goes (its stream ended and
// ZeroMQ released the last frame), their memory goes back to the system at once, whatever the
// heap's trim policy.
class FramePool : public std::enable_shared_from_this<FramePool> {
 public:
  FramePool(size_t slot_bytes, int capacity, std::shared_ptr<Wakeup> wakeup);
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;

  // A free buffer, or nullopt when all `capacity` are being filled or sent. Errors: kOverloaded
  // (the system has no memory for a new buffer).
  Result<std::optional<loader::Slot>> acquire();
  // Puts back a buffer whose batch will not be sent.
  void release(uint32_t id);
  // The payload frames of `tensors` (offsets into buffer `id`), each tensor cut into pieces of at
  // most kMaxPayloadFrameBytes; they reference the buffer, which returns to the pool when ZeroMQ
  // has released all of them.
  std::vector<zmq::message_t> messages(uint32_t id, const std::vector<TensorDesc>& tensors);
  size_t slot_bytes() const { return slot_bytes_; }

 private:
  // One anonymous mapping, unmapped when destroyed.
  struct Buffer {
    Buffer(uint8_t* b, size_t n) : bytes(b), size(n) {}
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    uint8_t* const bytes;
    const size_t size;
  };
  // One per sent batch: the frames' shared free-callback hint. It keeps the pool alive until
  // ZeroMQ has released every frame.
  struct Send {
    std::shared_ptr<FramePool> pool;
    uint32_t id = 0;
    std::atomic<int> pending{0};
  };
  static void free_frame(void* data, void* hint);
  void give_back(uint32_t id);

  size_t slot_bytes_;
  size_t capacity_;
  std::shared_ptr<Wakeup> wakeup_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Buffer>> buffers_;  // grows on the server thread only
  std::vector<uint32_t> free_;                    // guarded by mu_
};

}  // namespace textfeed::transport::internal
