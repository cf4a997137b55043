// SampleProducer: plan -> decode at the needed scale -> warp -> photometric -> targets.
#include "loader/pipeline/producer.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "base/rng.h"

namespace textfeed::loader {
namespace {

using augment::seconds_since;
using augment::StageClock;

// The part of the image, scaled by s = eighths / 8, that the warp to a crop of side `crop` reads:
// the inverse image of the crop square through `m` (full-size source -> crop), plus a margin
// for what the warp reads around it (augment::read_margin), with the origin on a 16-pixel grid (a
// whole MCU at any DCT scale). Empty (x1 <= x0) when that is
// most of the image anyway, or when the crop reads nothing of it.
struct Window {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
Window window_for(const double m[6], int out_w, int out_h, int scaled_w, int scaled_h, double s) {
  const std::optional<augment::SourceBounds> b = augment::crop_source_bounds(m, out_w, out_h);
  if (!b) return {};
  // Full-size source bounds, then the scaled image's pixels (centre convention).
  const double x0 = (b->x0 + 0.5) * s - 0.5, y0 = (b->y0 + 0.5) * s - 0.5;
  const double x1 = (b->x1 + 0.5) * s - 0.5, y1 = (b->y1 + 0.5) * s - 0.5;
  const double ms[6] = {m[0] / s, m[1] / s, 0,
                        m[3] / s, m[4] / s, 0};  // the matrix from the scaled image
  const double margin = 24.0 + augment::read_margin(ms);
  Window w;
  w.x0 = static_cast<int>(
      std::clamp(std::floor((x0 - margin) / 16) * 16, 0.0, static_cast<double>(scaled_w)));
  w.y0 = static_cast<int>(
      std::clamp(std::floor((y0 - margin) / 16) * 16, 0.0, static_cast<double>(scaled_h)));
  w.x1 = static_cast<int>(std::clamp(std::ceil(x1 + margin), 0.0, static_cast<double>(scaled_w)));
  w.y1 = static_cast<int>(std::clamp(std::ceil(y1 + margin), 0.0, static_cast<double>(scaled_h)));
  const double area = static_cast<double>(w.x1 - w.x0) * (w.y1 - w.y0);
  if (w.x1 <= w.x0 || w.y1 <= w.y0 || area > 0.8 * static_cast<double>(scaled_w) * scaled_h)
    return {};
  return w;
}

// Decodes `sample`'s encoded pixels at eighths / 8 of full size into `out`: only the window that
// the warp to an output of out_w x out_h reads, when the decoder's options allow windows. `matrix`
// (source -> output) comes in for the full image and goes out for the pixels decoded; `frame` says
// where they lie in the whole decode (all zero when they are all of it).
Status decode_for_crop(Decoder& decoder, const SampleRead& sample, int eighths, int out_w,
                       int out_h, double matrix[6], Image& out, augment::SourceFrame& frame) {
  frame = {};
  const std::span<const uint8_t> bytes = sample.encoded;
  const double s = eighths / 8.0;
  const int scaled_w = (sample.width * eighths + 7) / 8,
            scaled_h = (sample.height * eighths + 7) / 8;
  const Window w = decoder.options().windows
                       ? window_for(matrix, out_w, out_h, scaled_w, scaled_h, s)
                       : Window{};
  if (w.x1 <= w.x0) return decoder.decode_eighths(bytes, sample.name, eighths, out);
  // Only the part the crop reads. The warp then sees an image whose pixel (0, 0) is the
  // window's origin: move the matrix's source frame there (origin / s in full-size pixels).
  TF_ASSIGN_OR_RETURN(Decoder::Window got, decoder.decode_window(bytes, sample.name, eighths, w.x0,
                                                                 w.y0, w.x1, w.y1, out));
  const double ox = got.x0 / s, oy = got.y0 / s;
  matrix[2] += matrix[0] * ox + matrix[1] * oy;  // the linear part stays the plan's
  matrix[5] += matrix[3] * ox + matrix[4] * oy;
  frame = {scaled_w, scaled_h, got.x0, got.y0};
  return Status();
}

// The sample's words as eval returns them: every point the source kept (UFO polygons), else its
// quads, in original px.
void set_original_words(SampleMeta& meta, const SampleRead& sample) {
  if (!sample.poly_points.empty()) {
    meta.xy.assign(sample.poly_xy.begin(), sample.poly_xy.end());
    meta.points.assign(sample.poly_points.begin(), sample.poly_points.end());
    meta.ignore.resize(sample.poly_labels.size());
    for (size_t i = 0; i < meta.ignore.size(); ++i)
      meta.ignore[i] = sample.poly_labels[i] == kLabelIgnored ? 1 : 0;
    return;
  }
  const size_t n = sample.quads.size();
  meta.xy.resize(n * 8);
  for (size_t i = 0; i < n; ++i)
    std::copy(sample.quads[i].xy.begin(), sample.quads[i].xy.end(), &meta.xy[i * 8]);
  meta.points.assign(n, 4);
  meta.ignore.resize(n);
  for (size_t i = 0; i < n; ++i) meta.ignore[i] = sample.labels[i] == kLabelIgnored ? 1 : 0;
}

// The sample as a family's chain reads it.
augment::SampleWords words_of(const SampleRead& s) {
  augment::SampleWords w;
  w.name = s.name;
  w.width = s.width;
  w.height = s.height;
  w.pre_resized = s.pre_resized;
  w.quads = s.quads;
  w.labels = s.labels;
  w.poly_xy = s.poly_xy;
  w.poly_points = s.poly_points;
  w.poly_labels = s.poly_labels;
  return w;
}

}  // namespace

Status read_sample(const SampleSource& source, Decoder& decoder, uint32_t index,
                   SampleRead& sample) {
  TF_RETURN_IF_ERROR(source.read(index, sample));
  if (!sample.decoded() && sample.width == 0) {  // encoded pixels whose size only their header says
    TF_ASSIGN_OR_RETURN(ImageInfo info, decoder.read_info(sample.encoded, sample.name));
    sample.width = info.width;  // read_info gives every format's size, or fails
    sample.height = info.height;
  }
  return Status();
}

SampleProducer::SampleProducer(std::shared_ptr<const SampleSource> source,
                               const augment::AugmentOptions& options, const DecodeOptions& decode)
    : source_(std::move(source)),
      options_(options),
      decoder_(decode),
      family_(augment::family_of(options.profile)),
      chain_(family_.make_chain(options)) {}

Status SampleProducer::produce(uint32_t index, uint64_t seed, uint64_t epoch,
                               const SampleOutputs& out, SampleMeta* polygons, uint32_t copy) {
  planned_ = false;
  if (out.compact && !family_.compact_rows()) return augment::check_compact_rows(options_.profile);
  // The last line of defence: whatever a library throws for one sample stays that sample's error.
  try {
    return produce_unguarded(index, seed, epoch, out, polygons, copy);
  } catch (const std::exception& e) {
    return Status::internal("sample " + std::to_string(index) + " (" + source_->name(index) +
                            "): " + e.what());
  }
}

Status SampleProducer::produce_eval(uint32_t index, const MutableImageView& image,
                                    SampleMeta& meta) {
  try {
    return produce_eval_unguarded(index, image, meta);
  } catch (const std::exception& e) {
    return Status::internal("sample " + std::to_string(index) + " (" + source_->name(index) +
                            "): " + e.what());
  }
}

Status SampleProducer::produce_eval_unguarded(uint32_t index, const MutableImageView& image,
                                              SampleMeta& meta) {
  auto t = StageClock::now();
  // What a failure leaves in `meta` names the image, and its words once they were read: a row
  // reported missing (OnBadSample::kReport) still tells a metric what it should have scored.
  meta = SampleMeta{};
  meta.image_id = source_->name(index);
  meta.scale_x = meta.scale_y = 0;
  SampleRead& sample = read_;
  const Status read = read_sample(*source_, decoder_, index, sample);
  set_original_words(meta, sample);  // also when the pixels failed: the words a missing row keeps
  TF_RETURN_IF_ERROR(read);
  meta.height = sample.height;
  meta.width = sample.width;
  if (sample.pre_resized)
    return Status::invalid_argument(
        sample.name +
        ": eval needs the original pixels, but the cache holds them "
        "resized; evaluate from the dataset or a cache built with image_size=0");
  times_.read += seconds_since(t);
  t = StageClock::now();
  if (sample.decoded()) {
    pixels_ = sample.pixels;
  } else {
    TF_RETURN_IF_ERROR(decoder_.decode_eighths(sample.encoded, sample.name, 8, decoded_));
    pixels_ = decoded_.view();
  }
  times_.decode += seconds_since(t);
  t = StageClock::now();
  Result<augment::InferencePlan> plan =
      augment::plan_inference(options_.profile, pixels_.width, pixels_.height, options_.image_size);
  if (!plan.has_value()) return plan.error().with_context(sample.name);
  TF_RETURN_IF_ERROR(
      augment::render_inference(image, pixels_, *plan, options_.profile, inference_scratch_)
          .with_context(sample.name));
  times_.warp += seconds_since(t);
  meta.height = pixels_.height;  // the decoded size, which the plan used
  meta.width = pixels_.width;
  meta.scale_x = plan->scale_x;
  meta.scale_y = plan->scale_y;
  ++times_.samples;
  return Status();
}

Status SampleProducer::produce_unguarded(uint32_t index, uint64_t seed, uint64_t epoch,
                                         const SampleOutputs& out, SampleMeta* polygons,
                                         uint32_t copy) {
  Rng rng(seed, epoch, index | (uint64_t{copy} << 32));
  auto t = StageClock::now();
  TF_RETURN_IF_ERROR(read_sample(*source_, decoder_, index, read_));
  times_.read += seconds_since(t);

  t = StageClock::now();
  augment::PixelRequest request;
  planned_ = true;
  TF_RETURN_IF_ERROR(chain_->plan(words_of(read_), rng, epoch, request));
  times_.plan += seconds_since(t);

  t = StageClock::now();
  augment::PixelGrant grant;
  TF_RETURN_IF_ERROR(fetch_pixels(request, grant));
  times_.decode += seconds_since(t);

  TF_RETURN_IF_ERROR(chain_->render(grant, rng, epoch, out, times_));
  ++times_.samples;
  if (polygons) {
    chain_->words_after(*polygons);
    polygons->image_id = source_->name(index);
  }
  return Status();
}

Status SampleProducer::fetch_pixels(const augment::PixelRequest& request,
                                    augment::PixelGrant& grant) {
  std::copy(request.matrix, request.matrix + 6, grant.matrix);
  if (read_.decoded()) {
    grant.pixels = read_.pixels;
    return Status();
  }
  const int eighths = fast_dct_eighths(request.min_scale, request.max_scale);
  TF_RETURN_IF_ERROR(decode_for_crop(decoder_, read_, eighths, request.out_w, request.out_h,
                                     grant.matrix, decoded_, grant.frame));
  grant.pixels = decoded_.view();
  grant.scale = eighths / 8.0;
  return Status();
}

}  // namespace textfeed::loader
