// The oneTBB arena behind a WorkerPool, for loader's own parallel code that needs more than
// parallel_for/enqueue (the cache builder's parallel_pipeline), and a pool over an arena someone
// else owns: transport::Server still takes a tbb::task_arena& (transport/server.h), and its streams
// need a WorkerPool. That use from outside loader/ is listed as an exemption in
// scripts/check_includes.py, to be cleared when Server takes a WorkerPool.
#pragma once

#include <oneapi/tbb/task_arena.h>

#include <memory>

#include "loader/pipeline/worker_pool.h"

namespace textfeed::loader::internal {

struct WorkerPoolAccess {
  // The arena that runs `pool`'s work; valid while the pool lives.
  static tbb::task_arena& arena(WorkerPool& pool);
  // A pool that runs its work on `arena`, which it does not own: `arena` must outlive it.
  static std::unique_ptr<WorkerPool> borrow(tbb::task_arena& arena);
};

inline tbb::task_arena& arena_of(WorkerPool& pool) { return WorkerPoolAccess::arena(pool); }
inline std::unique_ptr<WorkerPool> borrow_arena(tbb::task_arena& arena) {
  return WorkerPoolAccess::borrow(arena);
}

}  // namespace textfeed::loader::internal
