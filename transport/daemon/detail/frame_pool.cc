// FramePool: lazily allocated buffers, a free list, reference-counted zero-copy frames.
#include "transport/daemon/detail/frame_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace textfeed::transport::internal {

FramePool::FramePool(size_t slot_bytes, int capacity, std::shared_ptr<Wakeup> wakeup)
    : slot_bytes_(slot_bytes),
      capacity_(static_cast<size_t>(std::max(1, capacity))),
      wakeup_(std::move(wakeup)) {
  buffers_.reserve(capacity_);
}

FramePool::Buffer::~Buffer() { ::munmap(bytes, size); }

Result<std::optional<loader::Slot>> FramePool::acquire() {
  using Out = std::optional<loader::Slot>;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      const uint32_t id = free_.back();
      free_.pop_back();
      return Out(loader::Slot{id, buffers_[id]->bytes});
    }
  }
  if (buffers_.size() == capacity_) return Out();
  void* p =
      ::mmap(nullptr, slot_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return Status::overloaded("no memory for a frame buffer of " +
                              std::to_string(slot_bytes_ >> 20) + " MiB: " + std::strerror(errno));
  buffers_.push_back(std::make_unique<Buffer>(static_cast<uint8_t*>(p), slot_bytes_));
  return Out(loader::Slot{static_cast<uint32_t>(buffers_.size() - 1), buffers_.back()->bytes});
}

void FramePool::release(uint32_t id) { give_back(id); }

void FramePool::give_back(uint32_t id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(id);
  }
  wakeup_->signal();
}

void FramePool::free_frame(void*, void* hint) {
  Send* send = static_cast<Send*>(hint);
  if (send->pending.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // The last frame of the batch: the buffer is free again.
  std::unique_ptr<Send> done(send);
  done->pool->give_back(done->id);
}

std::vector<zmq::message_t> FramePool::messages(uint32_t id,
                                                const std::vector<TensorDesc>& tensors) {
  uint8_t* bytes = buffers_[id]->bytes;
  std::vector<zmq::message_t> out;
  size_t frames = 0;
  for (const TensorDesc& t : tensors)
    frames += (t.size_bytes + kMaxPayloadFrameBytes - 1) / kMaxPayloadFrameBytes;
  if (frames == 0) {
    release(id);
    return out;
  }
  // All frames are counted before the first can be released.
  auto send = std::make_unique<Send>();
  send->pool = shared_from_this();
  send->id = id;
  send->pending.store(static_cast<int>(frames), std::memory_order_relaxed);
  Send* hint = send.release();  // freed by the last free_frame
  out.reserve(frames);
  for (const TensorDesc& t : tensors) {
    for (uint64_t at = 0; at < t.size_bytes; at += kMaxPayloadFrameBytes) {
      const size_t n =
          static_cast<size_t>(std::min<uint64_t>(kMaxPayloadFrameBytes, t.size_bytes - at));
      out.emplace_back(bytes + t.offset_bytes + at, n, &FramePool::free_frame, hint);
    }
  }
  return out;
}

}  // namespace textfeed::transport::internal
