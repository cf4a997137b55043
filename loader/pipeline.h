// BatchPipeline: batch k of an epoch, produced in parallel straight into a caller's slot.
// Results depend only on (seed, epoch, batch) — not on thread count or timing.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/task_arena.h>

#include "augment/profile.h"
#include "loader/batch.h"
#include "loader/producer.h"
#include "loader/sampler.h"
#include "loader/source.h"

namespace textfeed::loader {

// What to do with a sample whose image cannot be read or decoded.
enum class OnBadSample : unsigned char {
  kSubstitute,  // write a deterministic replacement sample in its row and report both indices
  kFail,        // fail the batch with the sample's error
};

struct PipelineOptions {
  augment::AugmentOptions augment;
  SamplerOptions sampler;
  OnBadSample on_bad_sample = OnBadSample::kSubstitute;
  DecodeOptions decode;
};

// Thread-safety: fill() may be called from one thread at a time (it runs its own parallel work
// inside the arena it is given); the const accessors are safe from any thread.
class BatchPipeline {
 public:
  // Errors: kInvalidArgument (options that fail augment::validate or the sampler).
  static Result<std::unique_ptr<BatchPipeline>> create(std::shared_ptr<const SampleSource> source,
                                                       const PipelineOptions& options);

  const BatchLayout& layout() const { return layout_; }
  const Sampler& sampler() const { return sampler_; }
  const SampleSource& source() const { return *source_; }
  const PipelineOptions& options() const { return options_; }

  // Fills `slot` (layout().slot_bytes bytes) with batch `batch` of `epoch`. Rows past
  // info.indices.size() (a short last batch) are left as they were.
  // Errors: kInvalidArgument (batch out of range); with OnBadSample::kFail, the bad sample's error.
  Status fill(uint64_t epoch, size_t batch, uint8_t* slot, BatchInfo& info, tbb::task_arena& arena);

  // Stage times summed over all workers since creation.
  StageTimes stage_times() const;

 private:
  BatchPipeline(std::shared_ptr<const SampleSource> source, const PipelineOptions& options, Sampler sampler);
  const std::vector<uint32_t>& order_for(uint64_t epoch);

  std::shared_ptr<const SampleSource> source_;
  PipelineOptions options_;
  Sampler sampler_;
  BatchLayout layout_;
  tbb::enumerable_thread_specific<std::unique_ptr<SampleProducer>> producers_;
  uint64_t order_epoch_ = ~uint64_t{0};
  std::vector<uint32_t> order_;  // epoch_order(order_epoch_)
  std::vector<uint32_t> rows_;   // scratch for batch indices
};

}  // namespace textfeed::loader

namespace textfeed::loader {
// Switches off the thread pools of the libraries textfeed calls (OpenCV), so that the one
// oneTBB arena owns every core. Call once, from the composition root (a command's main, the
// Python module), before any pipeline runs.
void disable_library_threads();
}  // namespace textfeed::loader
