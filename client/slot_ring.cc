// SlotRing: mmap(MAP_ANONYMOUS) touched once, or a ShmRegion.
#include "client/slot_ring.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "transport/shm.h"

namespace textfeed::client {

namespace {
constexpr size_t kPage = 4096;
constexpr uint32_t kMaxSlots = 1024;

Result<size_t> stride_for(uint32_t slots, size_t slot_bytes) {
  if (slots == 0 || slots > kMaxSlots)
    return Status::invalid_argument("a ring of " + std::to_string(slots) + " slots (1.." +
                                    std::to_string(kMaxSlots) + ")");
  if (slot_bytes == 0) return Status::invalid_argument("slots of 0 bytes");
  const size_t stride = (slot_bytes + kPage - 1) / kPage * kPage;
  if (stride > (size_t{1} << 40) / slots)
    return Status::invalid_argument("a ring larger than 1 TiB");
  return stride;
}
}  // namespace

Result<std::unique_ptr<SlotRing>> SlotRing::anonymous(uint32_t slots, size_t slot_bytes) {
  TF_ASSIGN_OR_RETURN(const size_t stride, stride_for(slots, slot_bytes));
  void* p =
      ::mmap(nullptr, stride * slots, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return Status::from_errno(
        "allocating " + std::to_string(stride * slots >> 20) + " MiB of batch slots", errno);
  // Transparent huge pages where the kernel offers them (advice only): batches are written and
  // read whole, and 2 MiB pages spare the TLB. Then every page is touched once, here.
  ::madvise(p, stride * slots, MADV_HUGEPAGE);
  std::memset(p, 0, stride * slots);
  std::unique_ptr<SlotRing> r(new SlotRing());
  r->base_ = static_cast<uint8_t*>(p);
  r->count_ = slots;
  r->stride_ = stride;
  return r;
}

Result<std::unique_ptr<SlotRing>> SlotRing::shared(uint32_t slots, size_t slot_bytes) {
  TF_ASSIGN_OR_RETURN(const size_t stride, stride_for(slots, slot_bytes));
  TF_ASSIGN_OR_RETURN(std::unique_ptr<transport::ShmRegion> shm,
                      transport::ShmRegion::create(stride * slots));
  std::unique_ptr<SlotRing> r(new SlotRing());
  r->base_ = shm->data();
  r->count_ = slots;
  r->stride_ = stride;
  r->shm_ = std::move(shm);
  return r;
}

SlotRing::~SlotRing() {
  if (!shm_ && base_) ::munmap(base_, total_bytes());
}

int SlotRing::memory_fd() const { return shm_ ? shm_->fd() : -1; }

}  // namespace textfeed::client
