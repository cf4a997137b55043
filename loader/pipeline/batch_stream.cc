// BatchStream: fills enqueued on the pool, completion flags under one mutex, in-order pops.
#include "loader/pipeline/batch_stream.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <tuple>

#include "base/log.h"

namespace textfeed::loader {

struct BatchStream::Job {
  Slot slot;
  uint64_t epoch = 0, batch = 0;
  BatchInfo info;
  Status status;
  bool done = false;  // guarded by Shared::mu
};

struct BatchStream::Shared {
  std::mutex mu;
  std::condition_variable cv;
  size_t running = 0;  // guarded by mu
  // The token of the fills started since the last reset; guarded by mu (cancel() reads it from
  // any thread while reset() replaces it).
  std::shared_ptr<CancelToken> cancel = std::make_shared<CancelToken>();
};

BatchStream::BatchStream(CancellableFill fill, EpochLengths lengths, WorkerPool& pool,
                         uint64_t epoch, uint64_t batch, Notify notify)
    : fill_(std::move(fill)),
      lengths_(lengths),
      pool_(pool),
      notify_(std::move(notify)),
      shared_(std::make_shared<Shared>()) {
  std::tie(epoch_, batch_) = lengths_.normalize(epoch, batch);
}

BatchStream::BatchStream(Fill fill, EpochLengths lengths, WorkerPool& pool, uint64_t epoch,
                         uint64_t batch, Notify notify)
    : BatchStream([fill = std::move(fill)](uint64_t e, uint64_t b, uint8_t* slot, BatchInfo& info,
                                           const CancelToken&) { return fill(e, b, slot, info); },
                  lengths, pool, epoch, batch, std::move(notify)) {}

std::unique_ptr<BatchStream> BatchStream::over(std::shared_ptr<BatchPipeline> pipeline,
                                               WorkerPool& pool, uint64_t epoch, uint64_t batch,
                                               Notify notify) {
  const EpochLengths lengths = pipeline->sampler().epoch_lengths();
  WorkerPool* p = &pool;
  CancellableFill fill = [pipeline = std::move(pipeline), p](uint64_t e, uint64_t b, uint8_t* slot,
                                                             BatchInfo& info,
                                                             const CancelToken& cancel) {
    return pipeline->fill(e, b, slot, info, *p, &cancel);
  };
  return std::make_unique<BatchStream>(std::move(fill), lengths, pool, epoch, batch,
                                       std::move(notify));
}

BatchStream::~BatchStream() {
  cancel();
  wait_idle();
}

void BatchStream::cancel() {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->cancel->cancel();
}

void BatchStream::start(Slot slot) {
  const uint64_t epoch = epoch_, batch = batch_;
  std::tie(epoch_, batch_) = lengths_.after(epoch_, batch_);
  start_at(slot, epoch, batch);
}

void BatchStream::start_at(Slot slot, uint64_t epoch, uint64_t batch) {
  auto job = std::make_shared<Job>();
  job->slot = slot;
  job->epoch = epoch;
  job->batch = batch;
  jobs_.push_back(job);
  std::shared_ptr<const CancelToken> cancel;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    ++shared_->running;
    cancel = shared_->cancel;
  }
  // The task holds what it uses: the stream may be reset (not destroyed) while it runs.
  pool_.enqueue([job, shared = shared_, fill = fill_, notify = notify_,
                 cancel = std::move(cancel)] {
    Status s;
    try {
      // A fill that was cancelled before it began does not begin (not even a Fill that ignores
      // the token).
      s = cancel->cancelled()
              ? Status::cancelled("epoch " + std::to_string(job->epoch) + " batch " +
                                  std::to_string(job->batch) + ": cancelled before it began")
              : fill(job->epoch, job->batch, job->slot.data, job->info, *cancel);
    } catch (const std::exception& e) {  // a parallel body must not throw: end it here as a value
      s = Status::internal(std::string("batch fill threw: ") + e.what());
    }
    {
      std::lock_guard<std::mutex> lock(shared->mu);
      job->status = std::move(s);
      job->done = true;
      --shared->running;
    }
    shared->cv.notify_all();
    if (notify) notify();
  });
}

std::optional<ReadyBatch> BatchStream::pop() {
  if (jobs_.empty()) return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (!jobs_.front()->done) return std::nullopt;
  }
  std::shared_ptr<Job> job = std::move(jobs_.front());
  jobs_.pop_front();
  return ReadyBatch{job->slot, std::move(job->info), std::move(job->status)};
}

std::optional<ReadyBatch> BatchStream::wait_pop_for(std::chrono::milliseconds timeout) {
  TF_CHECK(!jobs_.empty()) << "wait_pop_for() on a stream with nothing in flight";
  {
    std::unique_lock<std::mutex> lock(shared_->mu);
    Job& front = *jobs_.front();
    if (!shared_->cv.wait_for(lock, timeout, [&] { return front.done; })) return std::nullopt;
  }
  return pop();
}

size_t BatchStream::running() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->running;
}

void BatchStream::wait_idle() {
  std::unique_lock<std::mutex> lock(shared_->mu);
  shared_->cv.wait(lock, [&] { return shared_->running == 0; });
}

std::vector<Slot> BatchStream::reset(uint64_t epoch, uint64_t batch) {
  cancel();
  wait_idle();
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->cancel = std::make_shared<CancelToken>();
  }
  std::vector<Slot> slots;
  for (const auto& job : jobs_) slots.push_back(job->slot);
  jobs_.clear();
  std::tie(epoch_, batch_) = lengths_.normalize(epoch, batch);
  return slots;
}

}  // namespace textfeed::loader
