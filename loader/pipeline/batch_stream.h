// BatchStream: one consumer's batches, produced ahead and handed out in order, each written
// straight into a slot the consumer lends (the ring of an embedded Loader, a daemon stream's
// shared-memory slots or frame buffers). Several batches fill at once on the pool; the order in
// which they finish never changes what comes out.
//
// Cancellation: cancel() (from any thread) makes every fill the stream has started end early with
// kCancelled, after the sample each worker is on (see CancelToken); reset() and the destructor
// cancel first, so dropping a stream, seeking, or closing a Loader never waits for whole batches
// nobody will read. The daemon honours its drain timeout the same way: cancel(), then reset() or
// destroy the stream.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "base/batch_info.h"
#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"

namespace textfeed::loader {

// A batch buffer lent to a stream: `data` has layout().slot_bytes writable bytes that nobody else
// touches until the batch written into it has been popped.
struct Slot {
  uint32_t id = 0;
  uint8_t* data = nullptr;
};

struct ReadyBatch {
  Slot slot;
  BatchInfo info;
  Status status;  // not OK: the fill failed (OnBadSample::kFail, or no replacement could be read)
};

// Thread-safety: one owner thread calls every method but cancel(), which any thread may call at any
// time; fills run on the pool's threads, which call `notify` after each fill. The pool must
// outlive the stream; the destructor cancels the fills it started and waits for them, so lent
// slots may be released right after it returns.
class BatchStream {
 public:
  using Notify = std::function<void()>;
  // Writes batch `batch` of `epoch` into `slot` and describes it in `info`; runs on a pool
  // thread, concurrently with other fills of the same stream. Must not throw.
  using Fill =
      std::function<Status(uint64_t epoch, uint64_t batch, uint8_t* slot, BatchInfo& info)>;
  // A Fill that also checks `cancel` between its samples and returns kCancelled once it is set
  // (BatchPipeline::fill does). `cancel` is valid for the duration of the call.
  using CancellableFill = std::function<Status(uint64_t epoch, uint64_t batch, uint8_t* slot,
                                               BatchInfo& info, const CancelToken& cancel)>;

  // The first batch started is `batch` of `epoch` (normalized: past an epoch's last batch, the next
  // epoch's first); epochs have the batches `lengths` says.
  // `notify` (may be empty) runs on a worker thread each time a fill finishes: it must be cheap
  // and thread-safe (set an event, signal a condition).
  BatchStream(CancellableFill fill, EpochLengths lengths, WorkerPool& pool, uint64_t epoch,
              uint64_t batch, Notify notify);
  // A stream over a fill that does not look at cancellation: cancel() then only skips the fills
  // that have not begun.
  BatchStream(Fill fill, EpochLengths lengths, WorkerPool& pool, uint64_t epoch, uint64_t batch,
              Notify notify);
  // A stream of `pipeline`'s batches (BatchPipeline::fill on `pool`, cancellable between samples).
  static std::unique_ptr<BatchStream> over(std::shared_ptr<BatchPipeline> pipeline,
                                           WorkerPool& pool, uint64_t epoch, uint64_t batch,
                                           Notify notify);
  ~BatchStream();
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;

  // Starts filling the next batch of the sequence into `slot`; after the last batch of an epoch
  // comes batch 0 of the next one. Returns without waiting.
  void start(Slot slot);
  // Starts filling batch `batch` of `epoch` (which must exist: EpochLengths::check) into `slot`,
  // whatever start()'s sequence says, which it does not move: a consumer that names each batch
  // (several producers share an epoch). Pops still come in start order.
  void start_at(Slot slot, uint64_t epoch, uint64_t batch);
  // The oldest started batch if its fill has finished (batches come out in start order).
  std::optional<ReadyBatch> pop();
  // Blocks until the oldest started batch has finished, then pops it; nullopt when it has not
  // finished within `timeout`. Requires in_flight() > 0.
  std::optional<ReadyBatch> wait_pop_for(std::chrono::milliseconds timeout);
  // Started and not yet popped.
  size_t in_flight() const { return jobs_.size(); }
  // Fills still running (<= in_flight()).
  size_t running() const;
  // Cancels every running fill and waits for it (only the sample each worker is on), then drops
  // every started batch (done or not) and returns their slots, whose contents are unspecified; the
  // next start() continues at (epoch, batch), and its fills are not cancelled.
  std::vector<Slot> reset(uint64_t epoch, uint64_t batch);
  // Asks every fill started so far, and every fill started before the next reset(), to end early
  // with kCancelled; returns at once (pop, wait_pop_for, reset or the destructor then collect
  // them).
  // Thread-safe: any thread may call it, e.g. to close a stream whose owner waits in
  // wait_pop_for(), which then returns the cancelled batch.
  void cancel();

  // Position of the batch the next start() will fill.
  uint64_t next_epoch() const { return epoch_; }
  uint64_t next_batch() const { return batch_; }
  const EpochLengths& epoch_lengths() const { return lengths_; }

 private:
  struct Job;
  struct Shared;
  void wait_idle();

  CancellableFill fill_;
  EpochLengths lengths_;
  WorkerPool& pool_;
  Notify notify_;
  std::shared_ptr<Shared> shared_;
  std::deque<std::shared_ptr<Job>> jobs_;
  uint64_t epoch_, batch_;
};

}  // namespace textfeed::loader
