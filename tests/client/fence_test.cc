// Deferred release: FencedSlots, and Feed::next/release/release_after over a feed of counted slots
// (fences that are done or not, their order, a full ring waiting for the oldest fence).
#include "client/fence.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "client/feed.h"

namespace textfeed::client {
namespace {

using namespace std::chrono_literals;

// A fence the test completes; wait() completes it (as a CUDA synchronize would once the copy ran).
struct FakeFence final : Fence {
  struct State {
    std::atomic<bool> done{false};
    std::atomic<int> asked{0}, waited{0};
  };
  explicit FakeFence(std::shared_ptr<State> s) : state(std::move(s)) {}
  bool done() override {
    ++state->asked;
    return state->done.load();
  }
  void wait() override {
    ++state->waited;
    state->done.store(true);
  }
  std::shared_ptr<State> state;
};

std::unique_ptr<Fence> fence(const std::shared_ptr<FakeFence::State>& s) {
  return std::make_unique<FakeFence>(s);
}

TEST(FencedSlotsTest, GivesBackOnlyWhatIsDoneOldestFirst) {
  FencedSlots fenced;
  auto a = std::make_shared<FakeFence::State>(), b = std::make_shared<FakeFence::State>(),
       c = std::make_shared<FakeFence::State>();
  fenced.add(4, fence(a));
  fenced.add(1, fence(b));
  fenced.add(7, fence(c));
  EXPECT_TRUE(fenced.take_done().empty());
  b->done = true;
  c->done = true;
  EXPECT_EQ(fenced.take_done(), (std::vector<uint32_t>{1, 7}));  // done ones, in order; 4 waits
  EXPECT_EQ(fenced.size(), 1u);
  EXPECT_TRUE(fenced.take_done().empty());
  a->done = true;
  EXPECT_EQ(fenced.take_done(), (std::vector<uint32_t>{4}));
  EXPECT_EQ(fenced.size(), 0u);
}

// A fence that throws lost its slot for good (the ring one short, a full ring waiting on nothing).
struct ThrowingFence final : Fence {
  bool done() override { throw std::runtime_error("the event is gone"); }
  void wait() override { throw std::runtime_error("the event is gone"); }
};

TEST(FencedSlotsTest, AFenceThatThrowsGivesItsSlotBack) {
  FencedSlots fenced;
  auto pending = std::make_shared<FakeFence::State>();
  fenced.add(3, std::make_unique<ThrowingFence>());
  fenced.add(5, fence(pending));
  EXPECT_EQ(fenced.take_done(), (std::vector<uint32_t>{3}));
  EXPECT_EQ(fenced.size(), 1u);
  fenced.add(6, std::make_unique<ThrowingFence>());
  EXPECT_EQ(fenced.wait_oldest(), std::optional<uint32_t>(5));
  EXPECT_EQ(fenced.wait_oldest(), std::optional<uint32_t>(6));
  EXPECT_EQ(fenced.size(), 0u);
}

TEST(FencedSlotsTest, WaitOldestWaitsForTheFirstAdded) {
  FencedSlots fenced;
  EXPECT_FALSE(fenced.wait_oldest());
  auto a = std::make_shared<FakeFence::State>(), b = std::make_shared<FakeFence::State>();
  fenced.add(2, fence(a));
  fenced.add(0, fence(b));
  EXPECT_EQ(fenced.wait_oldest(), 2u);
  EXPECT_EQ(a->waited, 1);
  EXPECT_EQ(b->waited, 0);
  EXPECT_EQ(fenced.size(), 1u);
}

// A fence that adds another slot while it is asked (as a Python lease dying during a query could).
struct ReentrantFence final : Fence {
  FencedSlots* owner;
  explicit ReentrantFence(FencedSlots* o) : owner(o) {}
  bool done() override {
    owner->add(9, std::make_unique<ReentrantFence>(nullptr));
    return true;
  }
  void wait() override {}
};

TEST(FencedSlotsTest, AddingWhileFencesAreAskedDoesNotWaitAndKeepsOrder) {
  FencedSlots fenced;
  fenced.add(3, std::make_unique<ReentrantFence>(&fenced));
  EXPECT_EQ(fenced.take_done(), (std::vector<uint32_t>{3}));
  EXPECT_EQ(fenced.size(), 1u);  // slot 9, added from inside done()
}

// A feed of `slots` slots that delivers a batch whenever one is free.
class CountingFeed final : public Feed {
 public:
  explicit CountingFeed(uint32_t slots) : free_(slots, true) { layout_.epochs.per_epoch = 1000; }
  std::vector<uint32_t> released;  // in the order release_slot() saw them (guarded by mu_)

 private:
  Result<std::optional<FeedBatch>> take_batch(std::chrono::milliseconds) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint32_t i = 0; i < free_.size(); ++i) {
      if (!free_[i]) continue;
      free_[i] = false;
      FeedBatch b;
      b.slot = i;
      b.epoch = epoch_;
      b.batch = batch_;
      advance_past(epoch_, batch_);
      return std::optional<FeedBatch>(std::move(b));
    }
    return Status::overloaded("all slots are held");
  }
  void release_slot(uint32_t slot) override {  // from any thread, as a feed's
    std::lock_guard<std::mutex> lock(mu_);
    free_[slot] = true;
    released.push_back(slot);
  }
  Status seek(uint64_t, uint64_t) override { return Status(); }
  FeedStats stats() const override { return {}; }

  std::mutex mu_;
  std::vector<bool> free_;
};

TEST(FeedFenceTest, AFencedSlotComesBackOnlyOnceItsFenceIsDone) {
  CountingFeed feed(3);
  auto f0 = std::make_shared<FakeFence::State>();
  auto b0 = feed.next(0ms);
  ASSERT_TRUE(b0.has_value() && *b0);
  feed.release_after((*b0)->slot, fence(f0));
  EXPECT_TRUE(feed.released.empty());
  EXPECT_EQ(feed.fenced_slots(), 1u);
  auto b1 = feed.next(0ms);
  ASSERT_TRUE(b1.has_value() && *b1);
  EXPECT_NE((*b1)->slot, (*b0)->slot);
  f0->done = true;
  feed.release((*b1)->slot);  // a release looks at the fences too
  EXPECT_EQ(feed.released, (std::vector<uint32_t>{(*b1)->slot, (*b0)->slot}));
  EXPECT_EQ(feed.fenced_slots(), 0u);
}

TEST(FeedFenceTest, NextGivesBackDoneSlotsFirst) {
  CountingFeed feed(2);
  auto f = std::make_shared<FakeFence::State>();
  auto b0 = feed.next(0ms);
  feed.release_after((*b0)->slot, fence(f));
  f->done = true;
  auto b1 = feed.next(0ms);
  ASSERT_TRUE(b1.has_value());
  EXPECT_EQ(feed.released, (std::vector<uint32_t>{(*b0)->slot}));
  EXPECT_EQ((*b1)->slot, (*b0)->slot);  // the first free slot again
}

TEST(FeedFenceTest, AFullRingWaitsForTheOldestFenceInsteadOfFailing) {
  CountingFeed feed(3);
  std::vector<std::shared_ptr<FakeFence::State>> states;
  for (int i = 0; i < 3; ++i) {
    auto b = feed.next(0ms);
    ASSERT_TRUE(b.has_value() && *b);
    states.push_back(std::make_shared<FakeFence::State>());
    feed.release_after((*b)->slot, fence(states.back()));
  }
  auto b = feed.next(0ms);
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  ASSERT_TRUE(*b);
  EXPECT_EQ((*b)->slot, 0u);
  EXPECT_EQ(states[0]->waited, 1);
  EXPECT_EQ(states[1]->waited, 0);
  EXPECT_EQ(states[2]->waited, 0);
  EXPECT_EQ(feed.fenced_slots(), 2u);
}

TEST(FeedFenceTest, AFullRingWithoutFencesIsOverloaded) {
  CountingFeed feed(2);
  ASSERT_TRUE(feed.next(0ms).has_value());
  ASSERT_TRUE(feed.next(0ms).has_value());
  auto b = feed.next(0ms);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().code(), Code::kOverloaded);
}

TEST(FeedFenceTest, ReleasesFromManyThreadsAllArrive) {
  CountingFeed feed(64);
  std::vector<uint32_t> slots;
  for (int i = 0; i < 64; ++i) slots.push_back((*feed.next(0ms))->slot);
  auto done = std::make_shared<FakeFence::State>();
  done->done = true;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = t; i < 64; i += 4) feed.release_after(slots[i], fence(done));
    });
  for (std::thread& t : threads) t.join();
  (void)feed.next(0ms);  // collects whatever a busy asker skipped
  EXPECT_EQ(feed.released.size(), 64u);
}

}  // namespace
}  // namespace textfeed::client
