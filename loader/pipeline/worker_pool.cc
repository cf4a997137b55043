// WorkerPool: a tbb::task_arena behind a pimpl; ProcessThreadSettings: the globals a root sets.
#include "loader/pipeline/worker_pool.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <sys/resource.h>

#include <exception>
#include <new>
#include <opencv2/core/utility.hpp>
#include <utility>

#include "base/log.h"
#include "loader/pipeline/detail/worker_pool_tbb.h"

namespace textfeed::loader {

struct WorkerPool::Impl {
  int threads = 1;
  std::unique_ptr<tbb::task_arena> owned;  // null for a borrowed arena
  tbb::task_arena* arena = nullptr;        // owned.get() or the borrowed one
};

int resolve_worker_threads(int threads) {
  if (threads > 0) return threads;
  const int cores = tbb::this_task_arena::max_concurrency();
  return cores < 1 ? 1 : (cores > kMaxWorkerThreads ? kMaxWorkerThreads : cores);
}

Result<std::unique_ptr<WorkerPool>> WorkerPool::create(int threads) {
  TF_RETURN_IF_ERROR(check_worker_threads(threads));
  const int n = resolve_worker_threads(threads);
  rlimit limit{};
  if (::getrlimit(RLIMIT_NPROC, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<rlim_t>(n) >= limit.rlim_cur)
    return Status::unavailable(
        "cannot start " + std::to_string(n) + " worker threads: this process may run at most " +
        std::to_string(limit.rlim_cur) + " (ulimit -u); ask for fewer threads");
  try {
    auto pool = std::make_unique<WorkerPool>(n);
    pool->impl_->arena->initialize();  // oneTBB's own set-up, here where a failure can be reported
    return pool;
  } catch (const std::exception& e) {  // std::bad_alloc, std::runtime_error from oneTBB
    return Status::unavailable("cannot set up an arena of " + std::to_string(n) +
                               " worker threads: " + e.what());
  }
}

WorkerPool::WorkerPool(int threads) : impl_(std::make_unique<Impl>()) {
  TF_CHECK(check_worker_threads(threads).ok()) << check_worker_threads(threads).message();
  impl_->threads = resolve_worker_threads(threads);
  impl_->owned = std::make_unique<tbb::task_arena>(impl_->threads, 0);
  impl_->arena = impl_->owned.get();
}

WorkerPool::WorkerPool(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

WorkerPool::~WorkerPool() = default;

int WorkerPool::threads() const { return impl_->threads; }

void WorkerPool::parallel_for(size_t n, const std::function<void(size_t)>& body) {
  impl_->arena->execute([&] { tbb::parallel_for(size_t{0}, n, [&](size_t i) { body(i); }); });
}

void WorkerPool::enqueue(std::function<void()> task) { impl_->arena->enqueue(std::move(task)); }

tbb::task_arena& internal::WorkerPoolAccess::arena(WorkerPool& pool) { return *pool.impl_->arena; }

std::unique_ptr<WorkerPool> internal::WorkerPoolAccess::borrow(tbb::task_arena& arena) {
  auto impl = std::make_unique<WorkerPool::Impl>();
  impl->threads = arena.max_concurrency();
  impl->arena = &arena;
  return std::unique_ptr<WorkerPool>(new WorkerPool(std::move(impl)));
}

void disable_library_threads() { cv::setNumThreads(0); }

struct ProcessThreadSettings::Impl {
  std::unique_ptr<tbb::global_control> parallelism;  // null: the limit was already high enough
};

ProcessThreadSettings::ProcessThreadSettings() : impl_(std::make_unique<Impl>()) {
  disable_library_threads();
  // oneTBB starts at most (max_allowed_parallelism - 1) workers; several controls keep the
  // smallest value, so one is made only where it raises the limit.
  constexpr size_t wanted = static_cast<size_t>(kMaxWorkerThreads) + 1;
  if (tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) < wanted)
    impl_->parallelism =
        std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, wanted);
}

ProcessThreadSettings::~ProcessThreadSettings() = default;

}  // namespace textfeed::loader
