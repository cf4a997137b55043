// BatchStream cancellation (issue 9): cancel(), reset() and the destructor end the fills in flight
// after the sample they are on, never after whole batches. The fills here are "slow samples" that
// each wait for a permit the test gives, so every bound is counted in samples, never timed.
#include "loader/pipeline/batch_stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "loader/pipeline/worker_pool.h"

namespace textfeed::loader {
namespace {

using namespace std::chrono_literals;
constexpr int kSamplesPerBatch = 1000;  // a fill nobody cancels would need 1000 permits
constexpr auto kDeadline = 60s;         // only reached when cancellation is broken

// A fill of kSamplesPerBatch samples; sample k begins when the test has given k + 1 permits, and a
// sample waiting for its permit ends at once when the fill is cancelled (as a worker's sample ends
// on its own). Between samples the fill checks the token, as BatchPipeline::fill does.
class SlowSamples {
 public:
  BatchStream::CancellableFill fill() {
    return [this](uint64_t, uint64_t, uint8_t*, BatchInfo&, const CancelToken& cancel) -> Status {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++fills_begun_;
      }
      cv_.notify_all();
      for (int k = 0; k < kSamplesPerBatch; ++k) {
        if (cancel.cancelled())
          return Status::cancelled("cancelled at sample " + std::to_string(k));
        std::unique_lock<std::mutex> lock(mu_);
        in_sample_ = true;
        cv_.notify_all();
        // Polls the token while it waits: the token has no way to wake a sleeper.
        while (permits_ == 0 && !cancel.cancelled()) cv_.wait_for(lock, 1ms);
        in_sample_ = false;
        if (permits_ > 0) {
          --permits_;
          ++samples_done_;
        }
      }
      return Status();
    };
  }
  void permit(int n) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      permits_ += n;
    }
    cv_.notify_all();
  }
  // Waits until a fill is inside a sample (or the deadline passed: false).
  bool wait_in_sample() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kDeadline, [&] { return in_sample_; });
  }
  int fills_begun() {
    std::lock_guard<std::mutex> lock(mu_);
    return fills_begun_;
  }
  int samples_done() {
    std::lock_guard<std::mutex> lock(mu_);
    return samples_done_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int permits_ = 0, fills_begun_ = 0, samples_done_ = 0;
  bool in_sample_ = false;
};

std::vector<uint8_t> g_slot(16);

TEST(BatchStreamTest, CancelEndsARunningFillAfterTheSampleItIsOn) {
  WorkerPool pool(1);
  SlowSamples slow;
  BatchStream stream(slow.fill(), EpochLengths{10}, pool, 0, 0, nullptr);
  stream.start({0, g_slot.data()});
  slow.permit(2);  // two samples done, the third running
  ASSERT_TRUE(slow.wait_in_sample());
  stream.cancel();
  std::optional<ReadyBatch> r = stream.wait_pop_for(kDeadline);
  ASSERT_TRUE(r.has_value()) << "the cancelled fill did not end";
  EXPECT_EQ(r->status.code(), Code::kCancelled) << r->status.to_string();
  EXPECT_LE(slow.samples_done(), 2);
}

TEST(BatchStreamTest, CancelFromAnotherThreadWakesTheOwnerWaitingForTheBatch) {
  WorkerPool pool(1);
  SlowSamples slow;
  BatchStream stream(slow.fill(), EpochLengths{10}, pool, 0, 0, nullptr);
  stream.start({0, g_slot.data()});
  ASSERT_TRUE(slow.wait_in_sample());
  std::thread closer([&] { stream.cancel(); });
  std::optional<ReadyBatch> r = stream.wait_pop_for(kDeadline);
  closer.join();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status.code(), Code::kCancelled);
  EXPECT_EQ(slow.samples_done(), 0);
}

TEST(BatchStreamTest, TheDestructorCancelsAndWaitsOnlyForTheSampleInProgress) {
  WorkerPool pool(1);
  SlowSamples slow;
  auto stream = std::make_unique<BatchStream>(slow.fill(), EpochLengths{10}, pool, 0, 0, nullptr);
  stream->start({0, g_slot.data()});
  stream->start({1, g_slot.data()});  // queued behind the first on the one worker
  ASSERT_TRUE(slow.wait_in_sample());
  std::future<void> destroyed = std::async(std::launch::async, [&] { stream.reset(); });
  // It returns without a single permit: no batch has to run to its end.
  const bool prompt = destroyed.wait_for(kDeadline) == std::future_status::ready;
  if (!prompt)
    slow.permit(2 * kSamplesPerBatch);  // let it finish, so that the test fails, not hangs
  destroyed.wait();
  EXPECT_TRUE(prompt) << "the destructor waited for whole batches";
  EXPECT_EQ(slow.samples_done(), 0);
  EXPECT_EQ(slow.fills_begun(), 1) << "a fill started after the cancellation began";
}

TEST(BatchStreamTest, ResetCancelsWhatItDropsAndTheNextFillsRunWhole) {
  WorkerPool pool(1);
  SlowSamples slow;
  BatchStream stream(slow.fill(), EpochLengths{10}, pool, 0, 0, nullptr);
  stream.start({0, g_slot.data()});
  ASSERT_TRUE(slow.wait_in_sample());
  std::vector<Slot> dropped = stream.reset(0, 5);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(stream.running(), 0u);
  EXPECT_EQ(slow.samples_done(), 0);
  stream.start(dropped[0]);  // after the reset: a new token, not cancelled
  slow.permit(kSamplesPerBatch);
  std::optional<ReadyBatch> r = stream.wait_pop_for(kDeadline);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->status.ok()) << r->status.to_string();
  EXPECT_EQ(slow.samples_done(), kSamplesPerBatch);
}

TEST(BatchStreamTest, AFillThatIgnoresTheTokenDoesNotBeginOnceCancelled) {
  WorkerPool pool(1);
  int began = 0;
  BatchStream::Fill plain = [&](uint64_t, uint64_t, uint8_t*, BatchInfo&) {
    ++began;
    return Status();
  };
  BatchStream stream(plain, EpochLengths{10}, pool, 0, 0, nullptr);
  stream.cancel();
  stream.start({0, g_slot.data()});
  std::optional<ReadyBatch> r = stream.wait_pop_for(kDeadline);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status.code(), Code::kCancelled);
  EXPECT_EQ(began, 0);
  stream.reset(0, 1);
  stream.start({0, g_slot.data()});
  r = stream.wait_pop_for(kDeadline);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->status.ok()) << r->status.to_string();
  EXPECT_EQ(began, 1);
}

}  // namespace
}  // namespace textfeed::loader
