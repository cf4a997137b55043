// WorkerArena: the one oneTBB arena of a composition root (the `serve` command, an embedded
// Python Loader, a test), with all `threads` slots for worker threads: batches are enqueued into
// it and nobody joins it to help. oneTBB starts at most (max_allowed_parallelism - 1) workers,
// the core count minus one by default, so the arena also raises that limit when `threads` needs
// it (a tbb::global_control, which belongs in main() alone: this class is only made where main()
// would make it, and it only ever raises the limit).
#pragma once

#include <memory>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

namespace textfeed::loader {

// A resource type: threads start on demand and are oneTBB's; destroy it after everything that
// enqueued work into it has finished (BatchStream's destructor waits for its fills).
class WorkerArena {
 public:
  // `threads` <= 0: one per core.
  explicit WorkerArena(int threads) {
    const int cores = tbb::this_task_arena::max_concurrency();
    threads_ = threads > 0 ? threads : cores;
    if (threads_ + 1 > static_cast<int>(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)))
      control_ = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                       static_cast<size_t>(threads_) + 1);
    arena_ = std::make_unique<tbb::task_arena>(threads_, 0);
  }
  WorkerArena(const WorkerArena&) = delete;
  WorkerArena& operator=(const WorkerArena&) = delete;

  tbb::task_arena& arena() { return *arena_; }
  int threads() const { return threads_; }

 private:
  int threads_ = 1;
  std::unique_ptr<tbb::global_control> control_;
  std::unique_ptr<tbb::task_arena> arena_;
};

}  // namespace textfeed::loader
