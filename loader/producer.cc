// SampleProducer: plan -> decode at the needed scale -> warp -> photometric -> targets.
#include "loader/producer.h"

#include <chrono>
#include <cmath>

#include "base/rng.h"

namespace textfeed::loader {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Largest output step per source pixel along either axis of a source->crop matrix.
double max_scale(const double m[6]) { return std::max(std::hypot(m[0], m[3]), std::hypot(m[1], m[4])); }

}  // namespace

void StageTimes::add(const StageTimes& o) {
  read += o.read;
  decode += o.decode;
  plan += o.plan;
  warp += o.warp;
  photometric += o.photometric;
  targets += o.targets;
  samples += o.samples;
}

std::array<double, kNumStages> StageTimes::ms_per_sample() const {
  const double n = samples > 0 ? static_cast<double>(samples) : 1.0;
  return {read * 1e3 / n, decode * 1e3 / n, plan * 1e3 / n, warp * 1e3 / n, photometric * 1e3 / n, targets * 1e3 / n};
}

SampleProducer::SampleProducer(std::shared_ptr<const SampleSource> source, const augment::AugmentOptions& options,
                               const DecodeOptions& decode)
    : source_(std::move(source)), options_(options), decoder_(decode) {
  crop_.reset(options_.crop_size, options_.crop_size, 3);
}

Status SampleProducer::produce(uint32_t index, uint64_t seed, uint64_t epoch, const SampleOutputs& out) {
  Rng rng(seed, epoch, index);
  auto t = Clock::now();
  std::span<const Quad> quads;
  std::span<const unsigned char> labels;
  int width = 0, height = 0;
  bool pre_resized = false;
  bool decoded_early = false;
  cache::SampleView view;
  std::string name;
  if (const cache::CacheReader* c = source_->cache()) {
    TF_ASSIGN_OR_RETURN(view, c->sample(index));
    quads = view.quads;
    labels = view.labels;
    width = view.width;
    height = view.height;
    pre_resized = c->meta().image_size > 0;
    name = std::string(view.name);
  } else {
    const Dataset& ds = *source_->dataset();
    const SampleRecord& rec = ds.samples[index];
    name = ds.image_path(index);
    TF_RETURN_IF_ERROR(read_file(name, file_));
    TF_ASSIGN_OR_RETURN(ImageInfo info, decoder_.read_info(file_, name));
    quads = rec.quads;
    labels = rec.labels;
    width = info.width;
    height = info.height;
    if (width == 0) {
      // A format whose header TurboJPEG/our PNG reader cannot size: decode it whole now.
      TF_RETURN_IF_ERROR(decoder_.decode(file_, name, 1, decoded_));
      width = decoded_.width();
      height = decoded_.height();
      decoded_early = true;
    }
  }
  times_.read += since(t);

  t = Clock::now();
  TF_RETURN_IF_ERROR(augment::plan_geometry(plan_, width, height, quads, labels, options_, rng, pre_resized)
                         .with_context(name));
  times_.plan += since(t);

  t = Clock::now();
  int eighths = 8;
  if (source_->cache() && view.codec == cache::PixelCodec::kRaw) {
    pixels_ = view.image();
  } else if (decoded_early) {
    pixels_ = decoded_.view();
  } else {
    const std::span<const uint8_t> bytes = source_->cache() ? view.pixels : std::span<const uint8_t>(file_);
    eighths = fast_dct_eighths(max_scale(plan_.matrix));
    TF_RETURN_IF_ERROR(decoder_.decode_eighths(bytes, name, eighths, decoded_));
    pixels_ = decoded_.view();
  }
  times_.decode += since(t);

  t = Clock::now();
  TF_RETURN_IF_ERROR(augment::warp_to_crop(crop_.mutable_view(), pixels_, plan_.matrix, eighths / 8.0, warp_scratch_));
  times_.warp += since(t);

  t = Clock::now();
  const augment::ColorParams color = augment::draw_color_params(options_, rng);
  TF_RETURN_IF_ERROR(augment::apply_photometric(out.image, crop_.view(), color, options_));
  times_.photometric += since(t);

  t = Clock::now();
  augment::TargetViews views{out.score, out.geo, out.mask};
  TF_RETURN_IF_ERROR(augment::make_targets(views, plan_.vertices, plan_.labels, options_.crop_size, options_,
                                           target_scratch_));
  times_.targets += since(t);
  ++times_.samples;
  return Status();
}

}  // namespace textfeed::loader
