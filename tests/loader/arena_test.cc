// WorkerArena (issue 5): thread counts are bounded once, here, for every entry point, and a count
// the process may not start is a Status, not a terminate.
#include "loader/arena.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>

namespace textfeed::loader {
namespace {

TEST(WorkerArenaTest, RefusesNegativeAndHugeThreadCountsNamingTheBound) {
  for (int threads : {-1, kMaxWorkerThreads + 1, 100000}) {
    auto arena = WorkerArena::create(threads);
    ASSERT_FALSE(arena.has_value()) << threads;
    EXPECT_EQ(arena.error().code(), Code::kInvalidArgument);
    EXPECT_EQ(arena.error().message(), "threads must be 0 (one per core) or 1..1024, got " + std::to_string(threads));
  }
}

TEST(WorkerArenaTest, ZeroMeansOnePerCoreAndOtherCountsAreKept) {
  auto one_per_core = WorkerArena::create(0);
  ASSERT_TRUE(one_per_core.has_value()) << one_per_core.error().to_string();
  EXPECT_EQ((*one_per_core)->threads(), std::clamp(tbb::this_task_arena::max_concurrency(), 1, kMaxWorkerThreads));
  auto three = WorkerArena::create(3);
  ASSERT_TRUE(three.has_value());
  EXPECT_EQ((*three)->threads(), 3);
  EXPECT_EQ((*three)->arena().max_concurrency(), 3);
}

TEST(WorkerArenaTest, MoreThreadsThanTheProcessMayStartIsAStatus) {
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NPROC, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 16;  // lowering the soft limit is always allowed, and so is restoring it
  ASSERT_EQ(::setrlimit(RLIMIT_NPROC, &low), 0);
  auto arena = WorkerArena::create(64);
  ASSERT_EQ(::setrlimit(RLIMIT_NPROC, &saved), 0);
  ASSERT_FALSE(arena.has_value());
  EXPECT_EQ(arena.error().code(), Code::kUnavailable);
  EXPECT_NE(arena.error().message().find("ulimit -u"), std::string::npos) << arena.error().message();
}

}  // namespace
}  // namespace textfeed::loader
