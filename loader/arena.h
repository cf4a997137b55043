// WorkerArena: the one oneTBB arena of a composition root (the `serve` command, an embedded
// Python Loader, a test), with all `threads` slots for worker threads: batches are enqueued into
// it and nobody joins it to help. oneTBB starts at most (max_allowed_parallelism - 1) workers,
// the core count minus one by default, so the arena also raises that limit when `threads` needs
// it (a tbb::global_control, which belongs in main() alone: this class is only made where main()
// would make it, and it only ever raises the limit).
//
// Thread counts are bounded here, once, for every path that takes one (the CLI's --threads, the
// Python Loader's threads=, the daemon): see kMaxWorkerThreads.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include "base/log.h"
#include "base/status.h"

namespace textfeed::loader {

// The most worker threads one arena may have. A fixed number rather than a multiple of the core
// count, so that a command line or a training script valid on one machine is valid on every
// machine: 1024 is above the hardware threads of the largest hosts we feed from (2 x 192 cores
// x 2), and far below the thread limits of a default Linux (threads-max, ulimit -u), whereas a
// count like 100000 makes oneTBB's lazy thread creation fail on a worker thread, where the
// failure cannot be caught and terminates the process. The fills are CPU-bound, so more threads
// than cores only add context switches; the bound exists to turn a mistake into an error.
inline constexpr int kMaxWorkerThreads = 1024;

// The error every entry point shows for a thread count `got` (as the caller wrote it) out of range.
inline Status worker_threads_error(std::string_view got) {
  return Status::invalid_argument("threads must be 0 (one per core) or 1.." + std::to_string(kMaxWorkerThreads) +
                                  ", got " + std::string(got));
}

// OK when `threads` is 0 (one per core, at most kMaxWorkerThreads) or in 1..kMaxWorkerThreads;
// else worker_threads_error().
inline Status check_worker_threads(int64_t threads) {
  if (threads >= 0 && threads <= kMaxWorkerThreads) return Status();
  return worker_threads_error(std::to_string(threads));
}

// The thread count an arena made for `threads` (0: one per core) runs; requires
// check_worker_threads(threads) to be OK.
inline int resolve_worker_threads(int threads) {
  if (threads > 0) return threads;
  const int cores = tbb::this_task_arena::max_concurrency();
  return cores < 1 ? 1 : (cores > kMaxWorkerThreads ? kMaxWorkerThreads : cores);
}

// A resource type: threads start on demand and are oneTBB's; destroy it after everything that
// enqueued work into it has finished (BatchStream's destructor waits for its fills).
// Thread-safety: arena() may be used from any thread (oneTBB's arena is thread-safe).
class WorkerArena {
 public:
  // An arena of `threads` workers (0: one per core). Errors: kInvalidArgument (threads outside
  // check_worker_threads), kUnavailable (the process may not start that many threads: ulimit -u,
  // or oneTBB could not set up its arena).
  static Result<std::unique_ptr<WorkerArena>> create(int threads) {
    TF_RETURN_IF_ERROR(check_worker_threads(threads));
    const int n = resolve_worker_threads(threads);
    rlimit limit{};
    if (::getrlimit(RLIMIT_NPROC, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        static_cast<rlim_t>(n) >= limit.rlim_cur)
      return Status::unavailable("cannot start " + std::to_string(n) +
                                 " worker threads: this process may run at most " + std::to_string(limit.rlim_cur) +
                                 " (ulimit -u); ask for fewer threads");
    try {
      auto arena = std::make_unique<WorkerArena>(n);
      arena->arena_->initialize();  // oneTBB's own set-up, here where a failure can be reported
      return arena;
    } catch (const std::exception& e) {  // std::bad_alloc, std::runtime_error from oneTBB
      return Status::unavailable("cannot set up an arena of " + std::to_string(n) + " worker threads: " + e.what());
    }
  }

  // For callers whose count is a constant (tests): `threads` must pass check_worker_threads.
  explicit WorkerArena(int threads) {
    TF_CHECK(check_worker_threads(threads).ok()) << check_worker_threads(threads).message();
    threads_ = resolve_worker_threads(threads);
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
