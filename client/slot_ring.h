// SlotRing: a client's batch slots, allocated (and their pages touched) once: anonymous memory for
// an embedded feed or a remote one over frames, or a sealed memory file (memfd) whose descriptor
// is handed to a daemon on the same host, which writes into it (transport/shm.h). One contiguous
// range, so it can be page-locked for CUDA in one call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/status.h"

namespace textfeed::transport {
class ShmRegion;
}

namespace textfeed::client {

// A resource type; the memory is plain (concurrent writes to different slots are fine).
class SlotRing {
 public:
  // `slots` slots of `slot_bytes` each (rounded up to 4096 bytes). Errors: kInvalidArgument, kIo.
  static Result<std::unique_ptr<SlotRing>> anonymous(uint32_t slots, size_t slot_bytes);
  // The same, in a new sealed memory file (freed when the last mapping of it goes).
  static Result<std::unique_ptr<SlotRing>> shared(uint32_t slots, size_t slot_bytes);
  ~SlotRing();
  SlotRing(const SlotRing&) = delete;
  SlotRing& operator=(const SlotRing&) = delete;

  uint32_t count() const { return count_; }
  size_t stride() const { return stride_; }  // bytes from one slot to the next (multiple of 4096)
  uint8_t* slot(uint32_t i) const { return base_ + stride_ * i; }
  uint8_t* base() const { return base_; }
  size_t total_bytes() const { return stride_ * count_; }
  // The memory file's descriptor (what a daemon is handed); -1 for anonymous memory.
  int memory_fd() const;

 private:
  SlotRing() = default;
  uint8_t* base_ = nullptr;
  uint32_t count_ = 0;
  size_t stride_ = 0;
  std::unique_ptr<transport::ShmRegion> shm_;  // set for a shared ring
};

}  // namespace textfeed::client
