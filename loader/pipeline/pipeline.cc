// BatchPipeline: parallel rows, deterministic replacement of bad samples, reentrant fills.
#include "loader/pipeline/pipeline.h"

#include <oneapi/tbb/enumerable_thread_specific.h>

#include <array>
#include <cstring>
#include <optional>
#include <string>

#include "loader/pipeline/compact_expander.h"
#include "loader/pipeline/eval_scan.h"

namespace textfeed::loader {

struct BatchPipeline::Producers {
  tbb::enumerable_thread_specific<std::unique_ptr<SampleProducer>> per_thread;
};

namespace {
// Replacement candidates for a bad sample: a fixed sequence, so a re-run substitutes the same.
constexpr int kMaxReplacements = 8;
uint32_t replacement(uint32_t index, int attempt, size_t n) {
  return static_cast<uint32_t>((index + static_cast<uint64_t>(attempt) * 7919u) % n);
}

// Eval batches: the image only, on the inference canvas; training: the image and the targets.
BatchLayout layout_for(const PipelineSpec& spec) {
  if (spec.mode == Mode::kEval)
    return BatchLayout::make_image_only(spec.sampler.batch_size, spec.augment.image_size,
                                        spec.augment.dtype);
  return BatchLayout::make(spec.sampler.batch_size, spec.augment,
                           *augment::make_target_builder(spec.augment));
}

// Zeros every pixel of a row's image (a row reported missing holds no stale batch's pixels).
void clear_row(const MutableImageView& image) {
  const size_t bytes = static_cast<size_t>(image.width) * image.channels * dtype_size(image.dtype);
  for (int y = 0; y < image.height; ++y) std::memset(image.row(y), 0, bytes);
}

// The spec's fields a pipeline relies on, and that they suit the source's pixels.
Status check_spec_for(const SampleSource& source, const PipelineSpec& options) {
  TF_RETURN_IF_ERROR(augment::validate(options.augment));
  TF_RETURN_IF_ERROR(validate(options.sampler));
  TF_RETURN_IF_ERROR(validate_on_bad_sample(options.mode, options.on_bad_sample));
  const int stored = source.stored_image_size();  // -1: decoded at their own size
  if (options.mode == Mode::kEval) {
    TF_RETURN_IF_ERROR(validate_eval_recipe(options.augment));
    if (stored > 0)
      return Status::invalid_argument(
          "mode=eval needs the original pixels, but the cache's were resized to " +
          std::to_string(stored) +
          "; evaluate from the dataset or a cache built with image_size=0");
    return Status();
  }
  // Pixels stored at another size would plan every crop wrong.
  if (stored > 0 && stored != options.augment.image_size)
    return Status::invalid_argument("the cache's pixels were resized to " + std::to_string(stored) +
                                    " but the options ask for image_size " +
                                    std::to_string(options.augment.image_size) +
                                    "; rebuild the cache");
  return Status();
}

StageTimes minus(const StageTimes& a, const StageTimes& b) {
  return {a.read - b.read,      a.decode - b.decode,           a.plan - b.plan,
          a.warp - b.warp,      a.photometric - b.photometric, a.targets - b.targets,
          a.samples - b.samples};
}
}  // namespace

BatchPipeline::BatchPipeline(std::shared_ptr<const SampleSource> source,
                             const PipelineSpec& options, Sampler sampler)
    : source_(std::move(source)),
      options_(options),
      sampler_(std::move(sampler)),
      layout_(layout_for(options)),
      producers_(std::make_unique<Producers>()) {}

BatchPipeline::~BatchPipeline() = default;

Result<std::unique_ptr<BatchPipeline>> BatchPipeline::create(
    std::shared_ptr<const SampleSource> source, const PipelineSpec& requested) {
  const PipelineSpec options = effective_spec(requested);  // eval: dataset order, no padding
  TF_RETURN_IF_ERROR(check_spec_for(*source, options));
  TF_RETURN_IF_ERROR(check_eval_images(*source, options));  // eval: images found unusable now
  std::vector<size_t> sizes;
  std::vector<double> weights;
  for (const SourcePart& part : source->parts()) {
    sizes.push_back(part.size);
    if (part.weight > 0) weights.push_back(part.weight);
  }
  TF_ASSIGN_OR_RETURN(Sampler sampler,
                      Sampler::create(std::move(sizes), std::move(weights), options.sampler));
  return std::unique_ptr<BatchPipeline>(
      new BatchPipeline(std::move(source), options, std::move(sampler)));
}

std::shared_ptr<const std::vector<uint64_t>> BatchPipeline::order_for(uint64_t epoch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Order& o : orders_)
      if (o.indices && o.epoch == epoch) return o.indices;
  }
  // O(n) outside the lock; two threads may both compute it, with the same result.
  auto order = std::make_shared<const std::vector<uint64_t>>(sampler_.epoch_order(epoch));
  std::lock_guard<std::mutex> lock(mu_);
  for (const Order& o : orders_)
    if (o.indices && o.epoch == epoch) return o.indices;
  orders_[next_order_] = {epoch, order};
  next_order_ ^= 1;
  return order;
}

SampleProducer& BatchPipeline::producer() {
  // One producer per thread. produce() runs no nested parallel work, so a thread never re-enters
  // its producer while using it.
  std::unique_ptr<SampleProducer>& p = producers_->per_thread.local();
  if (!p) p = std::make_unique<SampleProducer>(source_, options_.augment, options_.decode);
  return *p;
}

namespace {

// The views that row `row` of a slot is written through: its image and targets, or (compact) its
// crop and its words. `targets` holds the target views that the result's `targets` spans.
SampleOutputs row_outputs(const BatchLayout& layout, uint8_t* slot, bool compact, BatchInfo& info,
                          size_t row,
                          std::array<MutableImageView, augment::kMaxTargetTensors>& targets) {
  SampleOutputs out;
  if (compact) {
    const int c = layout.crop_size;
    out.compact = &info.compact[row];
    out.crop = {slot + compact_row_bytes(c) * row, c,         c, 3,
                static_cast<ptrdiff_t>(c) * 3,     DType::kU8};
    return out;
  }
  const int r = static_cast<int>(row);
  const size_t num_targets = layout.tensors.size() - 1;
  for (size_t k = 0; k < num_targets; ++k) targets[k] = layout.view(slot, k + 1, r);
  out.image = layout.view(slot, BatchLayout::kImageTensor, r);
  out.targets = std::span<const MutableImageView>(targets.data(), num_targets);
  return out;
}

// A word the targets see that reaches past what a receiver takes (base/compact_row.h) cannot be
// sent as it is, and sent otherwise it would give other targets: a bad sample, which the policy
// replaces or reports like any other. OK for a row that is not compact.
Status check_compact_reach(const SampleOutputs& out, int crop_size, const SampleSource& source,
                           uint32_t index) {
  if (out.compact == nullptr) return Status();
  const std::string far = beyond_compact_reach(*out.compact, crop_size);
  if (far.empty()) return Status();
  return Status::invalid_argument(source.name(index) + ": " + far +
                                  ", more than a compact batch carries "
                                  "(payload 'full' carries it)");
}

// What the replacements for a bad sample came to.
struct Replacement {
  bool cancelled = false;         // `cancel` was cancelled before one was produced
  std::optional<uint32_t> index;  // the one produced
  std::string tried;              // "; <why>" for every one that failed too
};

// Produces the replacement candidates of `index` in turn (produce(i) -> Status) until one is
// produced or `cancel` (may be null) is cancelled.
template <class Produce>
Replacement find_replacement(uint32_t index, size_t n, const CancelToken* cancel,
                             const Produce& produce) {
  Replacement r;
  for (int attempt = 1; attempt <= kMaxReplacements; ++attempt) {
    const uint32_t other = replacement(index, attempt, n);
    if (other == index) continue;
    if (cancel && cancel->cancelled()) {
      r.cancelled = true;
      return r;
    }
    if (const Status again = produce(other); !again.ok()) {
      r.tried += "; " + again.message();
      continue;
    }
    r.index = other;
    return r;
  }
  return r;
}

}  // namespace

BatchPipeline::RowOutcome BatchPipeline::fill_row(const RowTask& t, size_t row) {
  SampleProducer& p = producer();
  const StageTimes before = p.times();
  std::array<MutableImageView, augment::kMaxTargetTensors> targets;
  const SampleOutputs out = row_outputs(layout_, t.slot, t.compact, t.info, row, targets);
  const uint32_t index = t.info.indices[row];
  const uint32_t copy = draw_copy(t.draws[row]);
  const bool cancelled = t.cancel && t.cancel->cancelled();
  RowOutcome outcome = cancelled ? RowOutcome::kCancelled : RowOutcome::kProduced;
  SampleMeta* meta = t.info.samples.empty() ? nullptr : &t.info.samples[row];
  const auto produce = [&](uint32_t i) {
    if (options_.mode == Mode::kEval) return p.produce_eval(i, out.image, *meta);
    const Status s = p.produce(i, t.seed, t.epoch, out, meta, i == index ? copy : 0);
    return s.ok() ? check_compact_reach(out, layout_.crop_size, *source_, i) : s;
  };
  const Status s = cancelled ? Status() : produce(index);
  if (!s.ok()) t.errors[row] = {index, index, s.code(), s.message()};
  if (!s.ok() && options_.on_bad_sample == OnBadSample::kReport) {
    // Eval: never a replacement. The row stays blank and is reported; its meta names the image.
    clear_row(out.image);
    outcome = RowOutcome::kReported;
  } else if (!s.ok()) {
    t.status[row] = s;
    outcome = RowOutcome::kFailed;
    if (options_.on_bad_sample == OnBadSample::kSkip) {
      const Replacement r = find_replacement(index, source_->size(), t.cancel, produce);
      if (r.cancelled) {
        outcome = RowOutcome::kCancelled;
      } else if (r.index) {
        t.errors[row].replaced_by = *r.index;
        t.info.indices[row] = *r.index;
        t.status[row] = Status();
        outcome = RowOutcome::kProduced;
      } else {
        t.status[row] =
            Status(s.code(), s.message() + "; no readable replacement either" + r.tried);
      }
    }
  }
  const StageTimes spent = minus(p.times(), before);
  std::lock_guard<std::mutex> lock(mu_);
  counters_.stages.add(spent);
  if (outcome == RowOutcome::kProduced) {
    t.info.polygons.add(p.last_polygons());  // under mu_: rows run in parallel
    counters_.polygons.add(p.last_polygons());
  }
  return outcome;
}

Status BatchPipeline::fill(uint64_t epoch, size_t batch, uint8_t* slot, BatchInfo& info,
                           WorkerPool& pool, const CancelToken* cancel) {
  return fill_rows(epoch, batch, slot, info, pool, cancel, false);
}

Status BatchPipeline::fill_compact(uint64_t epoch, size_t batch, uint8_t* crops, BatchInfo& info,
                                   WorkerPool& pool, const CancelToken* cancel) {
  TF_RETURN_IF_ERROR(compact_supported(options_));
  return fill_rows(epoch, batch, crops, info, pool, cancel, true);
}

Status BatchPipeline::fill_rows(uint64_t epoch, size_t batch, uint8_t* slot, BatchInfo& info,
                                WorkerPool& pool, const CancelToken* cancel, bool compact) {
  const std::shared_ptr<const std::vector<uint64_t>> order = order_for(epoch);
  std::vector<uint64_t> draws;
  TF_RETURN_IF_ERROR(sampler_.batch_indices(*order, batch, info.indices, &draws));
  const size_t count = info.indices.size();
  info.epoch = epoch;
  info.batch = batch;
  info.errors.clear();
  info.samples.clear();
  info.polygons = {};
  info.compact.clear();
  if (compact) info.compact.resize(count);
  if (options_.mode == Mode::kEval || options_.return_polygons) info.samples.resize(count);
  std::vector<Status> status(count);
  std::vector<SampleError> errors(count);
  std::atomic<size_t> cancelled{0};
  const RowTask task{epoch,  options_.sampler.seed, slot, info, draws, status, errors, cancel,
                     compact};
  pool.parallel_for(count, [&](size_t row) {
    if (fill_row(task, row) == RowOutcome::kCancelled)
      cancelled.fetch_add(1, std::memory_order_relaxed);
  });
  Status result;
  uint64_t bad = 0;
  for (size_t row = 0; row < count; ++row) {
    if (errors[row].code != Code::kOk) {
      ++bad;
      info.errors.push_back(std::move(errors[row]));
    }
    if (result.ok() && !status[row].ok()) result = status[row];
  }
  if (result.ok() && !info.samples.empty()) result = check_sample_meta(info.samples);
  if (const size_t n = cancelled.load(); n > 0)
    result = Status::cancelled("epoch " + std::to_string(epoch) + " batch " +
                               std::to_string(batch) + ": cancelled with " + std::to_string(n) +
                               " of " + std::to_string(count) + " samples not produced");
  std::lock_guard<std::mutex> lock(mu_);
  counters_.bad_samples += bad;
  if (result.ok()) ++counters_.batches;
  return result;
}

PipelineCounters BatchPipeline::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

}  // namespace textfeed::loader
