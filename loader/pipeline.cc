// BatchPipeline: parallel rows, deterministic substitution of bad samples.
#include "loader/pipeline.h"

#include <oneapi/tbb/parallel_for.h>

namespace textfeed::loader {

namespace {
// Replacement candidates for a bad sample: a fixed sequence, so a re-run substitutes the same.
constexpr int kMaxReplacements = 8;
uint32_t replacement(uint32_t index, int attempt, size_t n) {
  return static_cast<uint32_t>((index + static_cast<uint64_t>(attempt) * 7919u) % n);
}
}  // namespace

BatchPipeline::BatchPipeline(std::shared_ptr<const SampleSource> source, const PipelineOptions& options,
                             Sampler sampler)
    : source_(std::move(source)),
      options_(options),
      sampler_(std::move(sampler)),
      layout_(BatchLayout::make(options.sampler.batch_size, options.augment)) {}

Result<std::unique_ptr<BatchPipeline>> BatchPipeline::create(std::shared_ptr<const SampleSource> source,
                                                             const PipelineOptions& options) {
  TF_RETURN_IF_ERROR(augment::validate(options.augment));
  if (source->is_cache()) {
    const int stored = source->stored_image_size();
    if (stored != 0 && stored != options.augment.image_size)
      return Status::invalid_argument("the cache's pixels were resized to " + std::to_string(stored) +
                                      " but the options ask for image_size " +
                                      std::to_string(options.augment.image_size) + "; rebuild the cache");
  }
  TF_ASSIGN_OR_RETURN(Sampler sampler, Sampler::create(source->size(), options.sampler));
  return std::unique_ptr<BatchPipeline>(new BatchPipeline(std::move(source), options, std::move(sampler)));
}

const std::vector<uint32_t>& BatchPipeline::order_for(uint64_t epoch) {
  if (epoch != order_epoch_) {
    order_ = sampler_.epoch_order(epoch);
    order_epoch_ = epoch;
  }
  return order_;
}

Status BatchPipeline::fill(uint64_t epoch, size_t batch, uint8_t* slot, BatchInfo& info, tbb::task_arena& arena) {
  TF_RETURN_IF_ERROR(sampler_.batch_indices(order_for(epoch), batch, rows_));
  const size_t count = rows_.size();
  info.epoch = epoch;
  info.batch = batch;
  info.indices = rows_;
  info.errors.clear();
  std::vector<Status> status(count);
  std::vector<SampleError> errors(count);
  const uint64_t seed = options_.sampler.seed;
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, count, [&](size_t row) {
      std::unique_ptr<SampleProducer>& p = producers_.local();
      if (!p) p = std::make_unique<SampleProducer>(source_, options_.augment, options_.decode);
      const int r = static_cast<int>(row);
      const SampleOutputs out{layout_.view(slot, TensorId::kImage, r), layout_.view(slot, TensorId::kScore, r),
                              layout_.view(slot, TensorId::kGeo, r), layout_.view(slot, TensorId::kMask, r)};
      const uint32_t index = rows_[row];
      Status s = p->produce(index, seed, epoch, out);
      if (s.ok()) return;
      errors[row] = {index, index, s.code(), s.message()};
      if (options_.on_bad_sample == OnBadSample::kFail) {
        status[row] = s;
        return;
      }
      for (int attempt = 1; attempt <= kMaxReplacements; ++attempt) {
        const uint32_t other = replacement(index, attempt, source_->size());
        if (other == index) continue;
        if (p->produce(other, seed, epoch, out).ok()) {
          errors[row].replaced_by = other;
          info.indices[row] = other;
          return;
        }
      }
      status[row] = s.with_context("no readable replacement either");
    });
  });
  for (size_t row = 0; row < count; ++row) {
    if (errors[row].code != Code::kOk) info.errors.push_back(std::move(errors[row]));
    if (!status[row].ok()) return status[row];
  }
  return Status();
}

StageTimes BatchPipeline::stage_times() const {
  StageTimes t;
  for (const auto& p : producers_)
    if (p) t.add(p->times());
  return t;
}

}  // namespace textfeed::loader

#include <opencv2/core/utility.hpp>

namespace textfeed::loader {
void disable_library_threads() { cv::setNumThreads(0); }
}  // namespace textfeed::loader
