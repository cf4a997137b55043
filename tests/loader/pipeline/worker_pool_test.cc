// WorkerPool (issue 5): thread counts are bounded once, here, for every entry point, and a count
// the process may not start is a Status, not a terminate. A pool changes no process-wide setting.
#include "loader/pipeline/worker_pool.h"

#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "loader/pipeline/detail/worker_pool_tbb.h"

namespace textfeed::loader {
namespace {

TEST(WorkerPoolTest, RefusesNegativeAndHugeThreadCountsNamingTheBound) {
  for (int threads : {-1, kMaxWorkerThreads + 1, 100000}) {
    auto pool = WorkerPool::create(threads);
    ASSERT_FALSE(pool.has_value()) << threads;
    EXPECT_EQ(pool.error().code(), Code::kInvalidArgument);
    EXPECT_EQ(pool.error().message(),
              "threads must be 0 (one per core) or 1..1024, got " + std::to_string(threads));
  }
}

TEST(WorkerPoolTest, ZeroMeansOnePerCoreAndOtherCountsAreKept) {
  auto one_per_core = WorkerPool::create(0);
  ASSERT_TRUE(one_per_core.has_value()) << one_per_core.error().to_string();
  EXPECT_EQ((*one_per_core)->threads(),
            std::clamp(tbb::this_task_arena::max_concurrency(), 1, kMaxWorkerThreads));
  auto three = WorkerPool::create(3);
  ASSERT_TRUE(three.has_value());
  EXPECT_EQ((*three)->threads(), 3);
  EXPECT_EQ(internal::arena_of(**three).max_concurrency(), 3);
}

TEST(WorkerPoolTest, MoreThreadsThanTheProcessMayStartIsAStatus) {
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NPROC, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 16;  // lowering the soft limit is always allowed, and so is restoring it
  ASSERT_EQ(::setrlimit(RLIMIT_NPROC, &low), 0);
  auto pool = WorkerPool::create(64);
  ASSERT_EQ(::setrlimit(RLIMIT_NPROC, &saved), 0);
  ASSERT_FALSE(pool.has_value());
  EXPECT_EQ(pool.error().code(), Code::kUnavailable);
  EXPECT_NE(pool.error().message().find("ulimit -u"), std::string::npos) << pool.error().message();
}

TEST(WorkerPoolTest, ParallelForRunsEveryIndexOnce) {
  WorkerPool pool(2);
  std::vector<std::atomic<int>> seen(100);
  pool.parallel_for(seen.size(), [&](size_t i) { seen[i].fetch_add(1); });
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i].load(), 1) << i;
}

TEST(WorkerPoolTest, MakingAPoolChangesNoProcessWideSetting) {
  const size_t before =
      tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
  auto pool = WorkerPool::create(kMaxWorkerThreads / 4);
  ASSERT_TRUE(pool.has_value()) << pool.error().to_string();
  EXPECT_EQ(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism),
            before);
  EXPECT_EQ((*pool)->threads(), kMaxWorkerThreads / 4);
}

TEST(WorkerPoolTest, ProcessThreadSettingsRaiseTheWorkerLimitWhileTheyLive) {
  const size_t before =
      tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
  {
    const ProcessThreadSettings settings;
    EXPECT_GE(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism),
              static_cast<size_t>(kMaxWorkerThreads) + 1);
  }
  EXPECT_EQ(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism),
            before);
}

TEST(WorkerPoolTest, ABorrowedArenaRunsThePoolsWork) {
  tbb::task_arena arena(2, 0);
  std::unique_ptr<WorkerPool> pool = internal::borrow_arena(arena);
  EXPECT_EQ(pool->threads(), 2);
  EXPECT_EQ(&internal::arena_of(*pool), &arena);
  std::atomic<int> sum{0};
  pool->parallel_for(10, [&](size_t i) { sum += static_cast<int>(i); });
  EXPECT_EQ(sum.load(), 45);
}

}  // namespace
}  // namespace textfeed::loader
