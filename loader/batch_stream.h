// BatchStream: one consumer's batches, produced ahead and handed out in order, each written
// straight into a slot the consumer lends (the ring of an embedded Loader, a daemon stream's
// shared-memory slots or frame buffers). Several batches fill at once on the arena; the order in
// which they finish never changes what comes out.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "loader/pipeline.h"

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

// Thread-safety: one owner thread calls every method; fills run on the arena's threads, which call
// `notify` after each fill. The arena must outlive the stream; the destructor waits for the fills
// it started, so lent slots may be released right after it returns.
class BatchStream {
 public:
  using Notify = std::function<void()>;
  // Writes batch `batch` of `epoch` into `slot` and describes it in `info`; runs on an arena
  // thread, concurrently with other fills of the same stream. Must not throw.
  using Fill = std::function<Status(uint64_t epoch, uint64_t batch, uint8_t* slot, BatchInfo& info)>;

  // The first batch started is `batch` of `epoch`; epochs have `batches_per_epoch` batches.
  // `notify` (may be empty) runs on a worker thread each time a fill finishes: it must be cheap
  // and thread-safe (set an event, signal a condition).
  BatchStream(Fill fill, uint64_t batches_per_epoch, tbb::task_arena& arena, uint64_t epoch, uint64_t batch,
              Notify notify);
  // A stream of `pipeline`'s batches (BatchPipeline::fill on `arena`).
  static std::unique_ptr<BatchStream> over(std::shared_ptr<BatchPipeline> pipeline, tbb::task_arena& arena,
                                           uint64_t epoch, uint64_t batch, Notify notify);
  ~BatchStream();
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;

  // Starts filling the next batch of the sequence into `slot`; after the last batch of an epoch
  // comes batch 0 of the next one. Returns without waiting.
  void start(Slot slot);
  // The oldest started batch if its fill has finished (batches come out in start order).
  std::optional<ReadyBatch> pop();
  // Blocks until the oldest started batch has finished, then pops it. Requires in_flight() > 0.
  ReadyBatch wait_pop();
  // As wait_pop(), but gives up after `timeout` (nullopt). Requires in_flight() > 0.
  std::optional<ReadyBatch> wait_pop_for(std::chrono::milliseconds timeout);
  // Started and not yet popped.
  size_t in_flight() const { return jobs_.size(); }
  // Fills still running (<= in_flight()).
  size_t running() const;
  // Waits for every running fill, then drops every started batch (done or not) and returns their
  // slots, whose contents are unspecified; the next start() continues at (epoch, batch).
  std::vector<Slot> reset(uint64_t epoch, uint64_t batch);

  // Position of the batch the next start() will fill.
  uint64_t next_epoch() const { return epoch_; }
  uint64_t next_batch() const { return batch_; }
  uint64_t batches_per_epoch() const { return batches_per_epoch_; }

 private:
  struct Job;
  struct Shared;
  void wait_idle();

  Fill fill_;
  uint64_t batches_per_epoch_;
  tbb::task_arena& arena_;
  Notify notify_;
  std::shared_ptr<Shared> shared_;
  std::deque<std::shared_ptr<Job>> jobs_;
  uint64_t epoch_, batch_;
};

}  // namespace textfeed::loader
