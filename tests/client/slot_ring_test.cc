// SlotRing: the slots' addresses and stride, anonymous and shared memory, bad sizes.
#include "client/slot_ring.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cstring>

namespace textfeed::client {
namespace {

TEST(SlotRingTest, AnonymousSlotsArePageStridedAndZeroed) {
  auto r = SlotRing::anonymous(3, 5000);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  const SlotRing& ring = **r;
  EXPECT_EQ(ring.count(), 3u);
  EXPECT_EQ(ring.stride(), 8192u);  // 5000 rounded up to pages
  EXPECT_EQ(ring.total_bytes(), 3u * 8192u);
  EXPECT_EQ(ring.memory_fd(), -1);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(ring.slot(i), ring.base() + i * ring.stride());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ring.base()) % 4096, 0u);
  for (size_t i = 0; i < ring.total_bytes(); i += 997) ASSERT_EQ(ring.base()[i], 0) << i;
  std::memset(ring.slot(2), 0xab, ring.stride());  // the last slot is writable to its end
  EXPECT_EQ(ring.slot(2)[ring.stride() - 1], 0xab);
  EXPECT_EQ(ring.slot(1)[ring.stride() - 1], 0);
}

TEST(SlotRingTest, AWholePageStaysOnePage) {
  auto r = SlotRing::anonymous(1, 4096);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)->stride(), 4096u);
}

TEST(SlotRingTest, SharedRingIsAMemoryFileOthersCanMap) {
  auto r = SlotRing::shared(2, 100);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  const SlotRing& ring = **r;
  ASSERT_GE(ring.memory_fd(), 0);
  EXPECT_EQ(ring.stride(), 4096u);
  EXPECT_EQ(ring.slot(1), ring.base() + 4096);
  struct stat st {};
  ASSERT_EQ(::fstat(ring.memory_fd(), &st), 0);
  EXPECT_GE(static_cast<size_t>(st.st_size), ring.total_bytes());
  // What a daemon does with the descriptor: map it and write into a slot.
  void* p =
      ::mmap(nullptr, ring.total_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED, ring.memory_fd(), 0);
  ASSERT_NE(p, MAP_FAILED);
  static_cast<uint8_t*>(p)[4096 + 7] = 42;
  EXPECT_EQ(ring.slot(1)[7], 42);
  ::munmap(p, ring.total_bytes());
}

TEST(SlotRingTest, RefusesEmptyOrHugeRings) {
  EXPECT_EQ(SlotRing::anonymous(0, 4096).error().code(), Code::kInvalidArgument);
  EXPECT_EQ(SlotRing::anonymous(1025, 4096).error().code(), Code::kInvalidArgument);
  EXPECT_EQ(SlotRing::anonymous(2, 0).error().code(), Code::kInvalidArgument);
  EXPECT_EQ(SlotRing::shared(2, size_t{1} << 40).error().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::client
