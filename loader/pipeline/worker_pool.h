// WorkerPool: the one pool of worker threads of a composition root (the `serve` command, an
// embedded Python Loader, a test), behind which oneTBB stays private to loader/. Batches and cache
// builds run on it; nobody outside loader/ sees an arena, a task or a thread-local.
//
// Thread counts are bounded here, once, for every path that takes one (the CLI's --threads, the
// Python Loader's threads=, the daemon): see kMaxWorkerThreads.
//
// Process-wide settings (OpenCV's own thread pool, oneTBB's limit on worker threads) are not a
// pool's business: a pool changes no global. A composition root makes one ProcessThreadSettings
// before its first pool (docs/design.md "Modules"; STYLE.md §2.3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace textfeed::loader {

namespace internal {
struct WorkerPoolAccess;  // loader/pipeline/detail/worker_pool_tbb.h
}  // namespace internal

// The most worker threads one pool may have. A fixed number rather than a multiple of the core
// count, so that a command line or a training script valid on one machine is valid on every
// machine: 1024 is above the hardware threads of the largest hosts we feed from (2 x 192 cores
// x 2), and far below the thread limits of a default Linux (threads-max, ulimit -u), whereas a
// count like 100000 makes oneTBB's lazy thread creation fail on a worker thread, where the
// failure cannot be caught and terminates the process. The fills are CPU-bound, so more threads
// than cores only add context switches; the bound exists to turn a mistake into an error.
inline constexpr int kMaxWorkerThreads = 1024;

// The error every entry point shows for a thread count `got` (as the caller wrote it) out of range.
inline Status worker_threads_error(std::string_view got) {
  return Status::invalid_argument("threads must be 0 (one per core) or 1.." +
                                  std::to_string(kMaxWorkerThreads) + ", got " + std::string(got));
}

// OK when `threads` is 0 (one per core, at most kMaxWorkerThreads) or in 1..kMaxWorkerThreads;
// else worker_threads_error().
inline Status check_worker_threads(int64_t threads) {
  if (threads >= 0 && threads <= kMaxWorkerThreads) return Status();
  return worker_threads_error(std::to_string(threads));
}

// The thread count a pool made for `threads` (0: one per core) runs; requires
// check_worker_threads(threads) to be OK.
int resolve_worker_threads(int threads);

// A resource type: its threads start on demand and belong to oneTBB; destroy it after everything
// that put work into it has finished (BatchStream's destructor waits for its fills). All slots are
// for worker threads: work is enqueued, and a caller of parallel_for() helps only with its own
// loop. Thread-safety: every method may be called from any thread, including the pool's own.
class WorkerPool {
 public:
  // A pool of `threads` workers (0: one per core). Errors: kInvalidArgument (threads outside
  // check_worker_threads), kUnavailable (the process may not start that many threads: ulimit -u,
  // or oneTBB could not set up its arena).
  static Result<std::unique_ptr<WorkerPool>> create(int threads);
  // For callers whose count is a constant (tests): `threads` must pass check_worker_threads.
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // How many threads run the pool's work at once (the arena's max_concurrency).
  int threads() const;

  // Runs body(i) for every i in [0, n) on the pool and returns when all have run. Called from
  // outside the pool, the caller joins it for this loop; called from one of the pool's tasks, the
  // loop runs there. `body` must not throw (per-item failures are values, STYLE.md §2.2), and may
  // run concurrently for different i.
  void parallel_for(size_t n, const std::function<void(size_t)>& body);

  // Runs `task` later on one of the pool's threads and returns at once; nobody joins the pool to
  // help. `task` must not throw.
  void enqueue(std::function<void()> task);

 private:
  friend struct internal::WorkerPoolAccess;
  struct Impl;
  explicit WorkerPool(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Switches off the thread pools of the libraries textfeed calls (OpenCV), so that the one pool
// owns every core. Idempotent. Called by a composition root (ProcessThreadSettings does), never by
// a library factory.
void disable_library_threads();

// The process-wide thread settings a composition root (a command's main(), the Python module when
// its first Loader opens a feed) makes once, before its first pool, and keeps while pools run:
// OpenCV's own threads off (disable_library_threads) and oneTBB allowed kMaxWorkerThreads worker
// threads, so that a pool of any valid size gets all its threads (oneTBB's default is one fewer
// than the cores). Neither starts a thread: oneTBB starts workers only as pools ask for them. A
// resource type (it holds oneTBB's tbb::global_control); not thread-safe.
class ProcessThreadSettings {
 public:
  ProcessThreadSettings();
  ~ProcessThreadSettings();
  ProcessThreadSettings(const ProcessThreadSettings&) = delete;
  ProcessThreadSettings& operator=(const ProcessThreadSettings&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace textfeed::loader
