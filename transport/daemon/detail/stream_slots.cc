// StreamSlots for shared memory (the client's slots and who holds each) and for frames (a pool of
// daemon-side buffers and a count of credits).
#include "transport/daemon/detail/stream_slots.h"

#include <deque>
#include <string>

#include "transport/daemon/detail/frame_pool.h"

namespace textfeed::transport::internal {

namespace {

// The daemon's own bound on a slot stride, far above any batch (max_batch_bytes), so that
// slots x stride cannot overflow.
constexpr uint64_t kMaxSlotStrideBytes = uint64_t{1} << 40;

class SharedMemorySlots final : public StreamSlots {
 public:
  SharedMemorySlots(uint64_t stream_id, uint64_t slot_bytes)
      : stream_id_(stream_id), slot_bytes_(slot_bytes), token_(new_memory_token()) {}

  Transport transport() const override { return Transport::kSharedMemory; }
  Result<uint32_t> credit(const Credit& c, size_t in_flight) override;
  Result<std::optional<loader::Slot>> acquire() override {
    using Out = std::optional<loader::Slot>;
    if (credited_.empty()) return Out();
    const uint32_t id = credited_.front();
    credited_.pop_front();
    owner_[id] = SlotOwner::kDaemon;
    return Out(loader::Slot{id, shm_->data() + id * slot_stride_});
  }
  void release(uint32_t slot) override { owner_[slot] = SlotOwner::kClient; }
  std::vector<zmq::message_t> deliver(uint32_t slot, BatchHeader& header) override {
    header.slot = slot;
    owner_[slot] = SlotOwner::kClient;
    return {};
  }
  uint32_t credits_outstanding() const override { return static_cast<uint32_t>(credited_.size()); }
  size_t memory_bytes() const override { return 0; }  // the client's memory

  const MemoryToken* awaiting_memory() const override {
    return token_ && !deposited_.valid() && !shm_ ? &*token_ : nullptr;
  }
  bool memory_refused() const override { return !token_ && !shm_; }
  void deposit(FileDescriptor fd) override { deposited_ = std::move(fd); }
  Status attach(const AttachMemory& m) override;

 private:
  enum class SlotOwner : unsigned char { kClient, kCredited, kDaemon };
  Status check_credit(const Credit& c) const;

  uint64_t stream_id_, slot_bytes_;
  std::optional<MemoryToken> token_;  // until a descriptor comes
  FileDescriptor deposited_;          // until attach() maps it
  std::unique_ptr<ShmRegion> shm_;
  uint64_t slot_stride_ = 0;
  std::vector<SlotOwner> owner_;
  std::deque<uint32_t> credited_;
};

Status SharedMemorySlots::attach(const AttachMemory& m) {
  const std::string stream = "stream " + std::to_string(stream_id_);
  if (shm_) return Status::invalid_argument(stream + " already has its memory");
  if (m.slots == 0 || m.slots > kMaxSharedMemorySlots)
    return Status::invalid_argument("AttachMemory: " + std::to_string(m.slots) +
                                    " slots is not in 1.." + std::to_string(kMaxSharedMemorySlots));
  if (m.slot_stride < slot_bytes_ || m.slot_stride % kSlotStrideAlignBytes != 0 ||
      m.slot_stride > kMaxSlotStrideBytes)
    return Status::invalid_argument("AttachMemory: slot stride " + std::to_string(m.slot_stride) +
                                    " must be a multiple of " +
                                    std::to_string(kSlotStrideAlignBytes) +
                                    " and at least the slot size " + std::to_string(slot_bytes_));
  if (!deposited_.valid())
    return Status::invalid_argument(
        "AttachMemory: no memory descriptor came for " + stream +
        " (send it to HelloReply.memorySocket with the stream's token first)");
  // One try per token: a descriptor that is refused is gone, and the stream ends with the error.
  token_.reset();
  TF_ASSIGN_OR_RETURN(shm_, ShmRegion::map_received(std::move(deposited_),
                                                    static_cast<size_t>(m.slots * m.slot_stride)));
  slot_stride_ = m.slot_stride;
  owner_.assign(m.slots, SlotOwner::kClient);
  return Status();
}

// All or nothing: every slot is checked (a slot named twice in this Credit included) before any is
// taken, so that two fills can never be given the same slot.
Status SharedMemorySlots::check_credit(const Credit& c) const {
  if (!shm_)
    return Status::invalid_argument("Credit before AttachMemory on a shared-memory stream");
  if (c.count != 0)
    return Status::invalid_argument("a shared-memory stream is credited with slots, not a count");
  std::vector<bool> named(owner_.size(), false);
  for (uint32_t id : c.slots) {
    if (id >= owner_.size() || owner_[id] != SlotOwner::kClient)
      return Status::invalid_argument(
          "slot " + std::to_string(id) + " is not the client's to credit (of " +
          std::to_string(owner_.size()) + "; credited twice, or being filled)");
    if (named[id])
      return Status::invalid_argument("slot " + std::to_string(id) +
                                      " is named twice in one Credit");
    named[id] = true;
  }
  return Status();
}

Result<uint32_t> SharedMemorySlots::credit(const Credit& c, size_t) {
  TF_RETURN_IF_ERROR(check_credit(c));
  for (uint32_t id : c.slots) {
    owner_[id] = SlotOwner::kCredited;
    credited_.push_back(id);
  }
  return static_cast<uint32_t>(c.slots.size());
}

class FrameSlots final : public StreamSlots {
 public:
  FrameSlots(uint64_t stream_id, uint64_t slot_bytes, int buffers, uint32_t max_credits,
             std::shared_ptr<Wakeup> wakeup)
      : stream_id_(stream_id),
        max_credits_(max_credits),
        memory_bytes_(slot_bytes * static_cast<size_t>(buffers)),
        pool_(std::make_shared<FramePool>(slot_bytes, buffers, std::move(wakeup))) {}

  Transport transport() const override { return Transport::kFrames; }
  Result<uint32_t> credit(const Credit& c, size_t in_flight) override {
    if (!c.slots.empty())
      return Status::invalid_argument("a frames stream is credited with a count, not slots");
    if (uint64_t{credits_} + in_flight + c.count > max_credits_)
      return Status::overloaded("more than " + std::to_string(max_credits_) +
                                " batches in flight requested");
    credits_ += c.count;
    return c.count;
  }
  Result<std::optional<loader::Slot>> acquire() override {
    using Out = std::optional<loader::Slot>;
    if (credits_ == 0) return Out();
    TF_ASSIGN_OR_RETURN(std::optional<loader::Slot> slot, pool_->acquire());
    if (slot) --credits_;
    return slot;
  }
  void release(uint32_t slot) override { pool_->release(slot); }
  std::vector<zmq::message_t> deliver(uint32_t slot, BatchHeader& header) override {
    header.slot = 0;
    return pool_->messages(slot, header.tensors);
  }
  uint32_t credits_outstanding() const override { return credits_; }
  size_t memory_bytes() const override { return memory_bytes_; }
  Status attach(const AttachMemory&) override {
    return Status::invalid_argument("stream " + std::to_string(stream_id_) +
                                    " was opened for frames, not shared memory");
  }

 private:
  uint64_t stream_id_;
  uint32_t max_credits_;
  size_t memory_bytes_;
  std::shared_ptr<FramePool> pool_;  // shared with the frames ZeroMQ still sends
  uint32_t credits_ = 0;
};

}  // namespace

std::unique_ptr<StreamSlots> make_shared_memory_slots(uint64_t stream_id, uint64_t slot_bytes) {
  return std::make_unique<SharedMemorySlots>(stream_id, slot_bytes);
}

std::unique_ptr<StreamSlots> make_frame_slots(uint64_t stream_id, uint64_t slot_bytes, int buffers,
                                              uint32_t max_credits,
                                              std::shared_ptr<Wakeup> wakeup) {
  return std::make_unique<FrameSlots>(stream_id, slot_bytes, buffers, max_credits,
                                      std::move(wakeup));
}

}  // namespace textfeed::transport::internal
