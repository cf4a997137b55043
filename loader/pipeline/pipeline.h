// BatchPipeline: batch k of an epoch, produced in parallel straight into a caller's slot.
// Results depend only on (seed, epoch, batch) — not on thread count, timing, or how many batches
// are being filled at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "augment/profile.h"
#include "base/batch_info.h"
#include "loader/pipeline/batch.h"
#include "loader/pipeline/producer.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/sources/sampler.h"
#include "loader/sources/source.h"
#include "loader/spec/spec.h"

namespace textfeed::loader {

// A request to stop fills early, shared by whoever starts them (a BatchStream, whose close or reset
// no longer wants them; the daemon, when its drain timeout runs out) and the fills themselves.
// cancel() may come from any thread at any time. A fill checks cancelled() before each sample it
// produces (a replacement of a bad sample included): once it sees the request it writes no further
// sample and ends with kCancelled, so a cancelled fill lasts at most as long as the sample each of
// its workers is on. A token stays cancelled; fills that must run again get a new token.
// Thread-safety: every method may be called concurrently.
class CancelToken {
 public:
  void cancel() noexcept { cancelled_.store(true, std::memory_order_release); }
  bool cancelled() const noexcept {
    if (checks_left_.load(std::memory_order_relaxed) >= 0 && checks_left_.fetch_sub(1) <= 0)
      cancelled_.store(true);
    return cancelled_.load(std::memory_order_acquire);
  }
  // The token cancels itself at its (n+1)-th cancelled() check: with one worker, a fill then
  // produces exactly n samples, which a test can count without racing a thread against the worker.
  void cancel_after_checks_for_testing(int n) { checks_left_.store(n); }

 private:
  mutable std::atomic<bool> cancelled_{false};
  mutable std::atomic<int64_t> checks_left_{-1};  // < 0: no self-cancelling
};

// Counters since creation; every field is a total over all fills.
struct PipelineCounters {
  StageTimes stages;         // wall seconds per stage, summed over worker threads
  uint64_t batches = 0;      // fills that succeeded
  uint64_t bad_samples = 0;  // samples that could not be produced (replaced or failing a batch)
  PolygonCounts polygons;    // the invalid_polygon policy's counts over the produced samples
};

// Thread-safety: fill() may be called concurrently from several threads for different slots (the
// daemon and the prefetching streams keep several batches in flight); the accessors are safe from
// any thread.
class BatchPipeline {
 public:
  // Errors: kInvalidArgument (options that fail augment::validate or the sampler, a batch size
  // above kMaxBatchSize, a cache whose pixels were resized for another image_size).
  static Result<std::unique_ptr<BatchPipeline>> create(std::shared_ptr<const SampleSource> source,
                                                       const PipelineSpec& options);

  const BatchLayout& layout() const { return layout_; }
  const Sampler& sampler() const { return sampler_; }
  const SampleSource& source() const { return *source_; }

  // Fills `slot` (layout().slot_bytes bytes) with batch `batch` of `epoch`, running the rows in
  // parallel on `pool` (WorkerPool::parallel_for: called from outside it, the caller joins it;
  // called from one of its tasks, it runs there). Rows past info.indices.size() (a short last
  // batch) are left as they were. Errors: kInvalidArgument (batch out of range); with
  // OnBadSample::kFail, the bad sample's error; with kSkip, an error only when no replacement could
  // be produced either; kCancelled when `cancel` (may be null; must outlive the call) was cancelled
  // before every row was produced: the rows are then unspecified and info.errors lists only what
  // was seen.
  Status fill(uint64_t epoch, size_t batch, uint8_t* slot, BatchInfo& info, WorkerPool& pool,
              const CancelToken* cancel = nullptr);

  // The compact payload (base/compact_row.h) of the same batch: each row's warped crop into `crops`
  // (compact_row_bytes(crop_size) per row), its colour draw and words into info.compact; a
  // CompactExpander turns them into fill()'s bytes. Only the words the targets see are kept
  // (keep_visible_words). A sample with a kept word reaching beyond kCompactReachSides crop sides
  // is a bad sample (on_bad_sample: replaced and reported, or the batch fails naming it), the
  // one way a compact batch can differ from fill()'s. Errors: as fill(); kInvalidArgument (eval
  // mode, profile db: compact_supported()).
  Status fill_compact(uint64_t epoch, size_t batch, uint8_t* crops, BatchInfo& info,
                      WorkerPool& pool, const CancelToken* cancel = nullptr);

  PipelineCounters counters() const;
  // Stage times summed over all workers since creation (counters().stages).
  StageTimes stage_times() const { return counters().stages; }

  ~BatchPipeline();
  BatchPipeline(const BatchPipeline&) = delete;
  BatchPipeline& operator=(const BatchPipeline&) = delete;

 private:
  struct Producers;  // one SampleProducer per worker thread (pipeline.cc)
  BatchPipeline(std::shared_ptr<const SampleSource> source, const PipelineSpec& options,
                Sampler sampler);
  // The epoch's order; computed once per epoch and kept for the two most recent epochs, so fills
  // that straddle an epoch boundary do not recompute it.
  std::shared_ptr<const std::vector<uint64_t>> order_for(uint64_t epoch);
  SampleProducer& producer();
  // What the rows of one fill share; `info`, `status` and `errors` are written at distinct rows.
  struct RowTask {
    uint64_t epoch, seed;
    uint8_t* slot;
    BatchInfo& info;
    const std::vector<uint64_t>& draws;  // the sampler's draw of each row (its copy number)
    std::vector<Status>& status;
    std::vector<SampleError>& errors;
    const CancelToken* cancel;
    bool compact = false;  // `slot` holds compact crops (fill_compact)
  };
  Status fill_rows(uint64_t epoch, size_t batch, uint8_t* slot, BatchInfo& info, WorkerPool& pool,
                   const CancelToken* cancel, bool compact);
  // Produces row `row` of a fill (a replacement for a bad sample included) unless cancelled first.
  // kReported: eval's OnBadSample::kReport, the row blank and listed in the batch's errors.
  enum class RowOutcome : unsigned char { kProduced, kReported, kFailed, kCancelled };
  RowOutcome fill_row(const RowTask& task, size_t row);

  std::shared_ptr<const SampleSource> source_;
  PipelineSpec options_;
  Sampler sampler_;
  BatchLayout layout_;
  std::unique_ptr<Producers> producers_;

  mutable std::mutex mu_;
  struct Order {
    uint64_t epoch = 0;
    std::shared_ptr<const std::vector<uint64_t>> indices;  // null: unused
  };
  Order orders_[2];            // guarded by mu_
  int next_order_ = 0;         // guarded by mu_: which of orders_ to replace next
  PipelineCounters counters_;  // guarded by mu_
};

}  // namespace textfeed::loader
