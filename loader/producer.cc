// SampleProducer: plan -> decode at the needed scale -> warp -> photometric -> targets.
#include "loader/producer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

#include "augment/db_targets.h"
#include "base/rng.h"

namespace textfeed::loader {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

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
  const double ms[6] = {m[0] / s, m[1] / s, 0, m[3] / s, m[4] / s, 0};  // the matrix from the scaled image
  const double margin = 24.0 + augment::read_margin(ms);
  Window w;
  w.x0 = static_cast<int>(std::clamp(std::floor((x0 - margin) / 16) * 16, 0.0, static_cast<double>(scaled_w)));
  w.y0 = static_cast<int>(std::clamp(std::floor((y0 - margin) / 16) * 16, 0.0, static_cast<double>(scaled_h)));
  w.x1 = static_cast<int>(std::clamp(std::ceil(x1 + margin), 0.0, static_cast<double>(scaled_w)));
  w.y1 = static_cast<int>(std::clamp(std::ceil(y1 + margin), 0.0, static_cast<double>(scaled_h)));
  const double area = static_cast<double>(w.x1 - w.x0) * (w.y1 - w.y0);
  if (w.x1 <= w.x0 || w.y1 <= w.y0 || area > 0.8 * static_cast<double>(scaled_w) * scaled_h) return {};
  return w;
}

// The DCT scale to decode at for an EAST warp through `m` (full-size source -> output): its
// resize and height stretch (loader/decode.h fast_dct_eighths).
int dct_eighths(const double m[6]) {
  const augment::AxisScales s = augment::axis_scales(m);
  return fast_dct_eighths(std::min(s.sx, s.sy), std::max(s.sx, s.sy));
}


// Decodes `sample`'s encoded pixels at eighths / 8 of full size into `out`: only the window that
// the warp to an output of out_w x out_h reads, when the decoder's options allow windows. `matrix`
// (source -> output) comes in for the full image and goes out for the pixels decoded; `frame` says
// where they lie in the whole decode (all zero when they are all of it).
Status decode_for_crop(Decoder& decoder, const SampleRead& sample, int eighths, int out_w, int out_h,
                       double matrix[6], Image& out, augment::SourceFrame& frame) {
  frame = {};
  const std::span<const uint8_t> bytes = sample.encoded;
  const double s = eighths / 8.0;
  const int scaled_w = (sample.width * eighths + 7) / 8, scaled_h = (sample.height * eighths + 7) / 8;
  const Window w = decoder.options().windows ? window_for(matrix, out_w, out_h, scaled_w, scaled_h, s) : Window{};
  if (w.x1 <= w.x0) return decoder.decode_eighths(bytes, sample.name, eighths, out);
  // Only the part the crop reads. The warp then sees an image whose pixel (0, 0) is the
  // window's origin: move the matrix's source frame there (origin / s in full-size pixels).
  TF_ASSIGN_OR_RETURN(Decoder::Window got,
                      decoder.decode_window(bytes, sample.name, eighths, w.x0, w.y0, w.x1, w.y1, out));
  const double ox = got.x0 / s, oy = got.y0 / s;
  matrix[2] += matrix[0] * ox + matrix[1] * oy;  // the linear part stays the plan's
  matrix[5] += matrix[3] * ox + matrix[4] * oy;
  frame = {scaled_w, scaled_h, got.x0, got.y0};
  return Status();
}

// Quads (n * 8 coordinates) and their labels as a SampleMeta's words of 4 points each.
void set_words(SampleMeta& meta, const std::vector<double>& quads, const std::vector<unsigned char>& labels) {
  const size_t n = labels.size();
  meta.xy.resize(n * 8);
  for (size_t i = 0; i < n * 8; ++i) meta.xy[i] = static_cast<float>(quads[i]);
  meta.points.assign(n, 4);
  meta.ignore.resize(n);
  for (size_t i = 0; i < n; ++i) meta.ignore[i] = labels[i] == kLabelIgnored ? 1 : 0;
}

// The sample's words as eval returns them: every point the source kept (UFO polygons), else its
// quads, in original px.
void set_original_words(SampleMeta& meta, const SampleRead& sample) {
  if (!sample.poly_points.empty()) {
    meta.xy.assign(sample.poly_xy.begin(), sample.poly_xy.end());
    meta.points.assign(sample.poly_points.begin(), sample.poly_points.end());
    meta.ignore.resize(sample.poly_labels.size());
    for (size_t i = 0; i < meta.ignore.size(); ++i) meta.ignore[i] = sample.poly_labels[i] == kLabelIgnored ? 1 : 0;
    return;
  }
  const size_t n = sample.quads.size();
  meta.xy.resize(n * 8);
  for (size_t i = 0; i < n; ++i) std::copy(sample.quads[i].xy.begin(), sample.quads[i].xy.end(), &meta.xy[i * 8]);
  meta.points.assign(n, 4);
  meta.ignore.resize(n);
  for (size_t i = 0; i < n; ++i) meta.ignore[i] = sample.labels[i] == kLabelIgnored ? 1 : 0;
}

// The db geometry's options from the profile's.
augment::DbGeometryOptions db_geometry_options(const augment::AugmentOptions& o) {
  augment::DbGeometryOptions g;
  g.flip_p = o.flip_p;
  g.max_rotate_deg = o.rotate_deg;
  g.min_resize = o.resize.lo;
  g.max_resize = o.resize.hi;
  g.crop.size = o.crop_size;
  g.crop.max_tries = o.crop_max_tries;
  g.crop.min_crop_side_ratio = o.min_crop_side;
  return g;
}

// The sample's words as polygons: every point the reader kept (SampleRead::poly_*), else its quads.
void gather_polygons(const SampleRead& s, augment::PolygonSet& out) {
  out.xy.clear(), out.ends.clear(), out.labels.clear();
  if (!s.poly_points.empty()) {
    out.xy.assign(s.poly_xy.begin(), s.poly_xy.end());
    uint32_t end = 0;
    for (uint32_t n : s.poly_points) out.ends.push_back(end += n);
    out.labels.assign(s.poly_labels.begin(), s.poly_labels.end());
    return;
  }
  for (const Quad& q : s.quads) {
    out.xy.insert(out.xy.end(), q.xy.begin(), q.xy.end());
    out.ends.push_back(static_cast<uint32_t>(out.xy.size() / 2));
  }
  out.labels.assign(s.labels.begin(), s.labels.end());
}

// The db crop's kept words as a SampleMeta: canvas px, their own point counts.
void set_db_words(SampleMeta& meta, const augment::DbCrop& crop, std::string name, int size) {
  meta.image_id = std::move(name);
  meta.height = meta.width = size;
  meta.scale_x = meta.scale_y = 1;
  meta.xy.assign(crop.xy.begin(), crop.xy.end());
  meta.points.clear();
  int32_t first = 0;
  for (int32_t end : crop.ends) meta.points.push_back(static_cast<uint32_t>(end - first)), first = end;
  meta.ignore.assign(crop.ignore.begin(), crop.ignore.end());
}

}  // namespace

Status read_sample(const SampleSource& source, Decoder& decoder, uint32_t index, SampleRead& sample) {
  TF_RETURN_IF_ERROR(source.read(index, sample));
  if (!sample.decoded() && sample.width == 0) {  // encoded pixels whose size only their header says
    TF_ASSIGN_OR_RETURN(ImageInfo info, decoder.read_info(sample.encoded, sample.name));
    sample.width = info.width;  // read_info gives every format's size, or fails
    sample.height = info.height;
  }
  return Status();
}

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
    : source_(std::move(source)),
      options_(options),
      decoder_(decode),
      targets_(augment::make_target_builder(augment::target_kind(options.profile), options)) {
  crop_.reset(options_.crop_size, options_.crop_size, 3);
  if (options_.profile == augment::Profile::kDb) {
    db_options_ = db_geometry_options(options_);
    policy_ = std::make_unique<augment::PolygonPolicy>(options_.invalid_polygon);
  }
}

Status SampleProducer::produce(uint32_t index, uint64_t seed, uint64_t epoch, const SampleOutputs& out,
                               SampleMeta* polygons, uint32_t copy) {
  polygons_ = {};
  // The last line of defence: whatever a library throws for one sample stays that sample's error.
  try {
    if (options_.profile == augment::Profile::kDb) {
      if (out.compact) return Status::invalid_argument("the compact payload is for the EAST profiles, not db");
      TF_RETURN_IF_ERROR(produce_db(index, seed, epoch, out, copy));
      if (polygons) set_db_words(*polygons, db_plan_.crop, source_->name(index), options_.crop_size);
      return Status();
    }
    TF_RETURN_IF_ERROR(produce_unguarded(index, seed, epoch, out, copy));
    if (polygons) {
      polygons->image_id = source_->name(index);
      polygons->height = polygons->width = options_.crop_size;
      polygons->scale_x = polygons->scale_y = 1;
      set_words(*polygons, plan_.vertices, plan_.labels);
    }
    return Status();
  } catch (const std::exception& e) {
    return Status::internal("sample " + std::to_string(index) + " (" + source_->name(index) + "): " + e.what());
  }
}

Status SampleProducer::produce_eval(uint32_t index, const MutableImageView& image, SampleMeta& meta) {
  try {
    return produce_eval_unguarded(index, image, meta);
  } catch (const std::exception& e) {
    return Status::internal("sample " + std::to_string(index) + " (" + source_->name(index) + "): " + e.what());
  }
}

Status SampleProducer::produce_eval_unguarded(uint32_t index, const MutableImageView& image, SampleMeta& meta) {
  auto t = Clock::now();
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
    return Status::invalid_argument(sample.name + ": eval needs the original pixels, but the cache holds them "
                                    "resized; evaluate from the dataset or a cache built with image_size=0");
  times_.read += since(t);
  t = Clock::now();
  if (sample.decoded()) {
    pixels_ = sample.pixels;
  } else {
    TF_RETURN_IF_ERROR(decoder_.decode_eighths(sample.encoded, sample.name, 8, decoded_));
    pixels_ = decoded_.view();
  }
  times_.decode += since(t);
  t = Clock::now();
  Result<augment::InferencePlan> plan =
      augment::plan_inference(options_.profile, pixels_.width, pixels_.height, options_.image_size);
  if (!plan.has_value()) return plan.error().with_context(sample.name);
  TF_RETURN_IF_ERROR(augment::render_inference(image, pixels_, *plan, options_.profile, inference_scratch_)
                         .with_context(sample.name));
  times_.warp += since(t);
  meta.height = pixels_.height;  // the decoded size, which the plan used
  meta.width = pixels_.width;
  meta.scale_x = plan->scale_x;
  meta.scale_y = plan->scale_y;
  ++times_.samples;
  return Status();
}

Status SampleProducer::produce_unguarded(uint32_t index, uint64_t seed, uint64_t epoch, const SampleOutputs& out,
                                         uint32_t copy) {
  Rng rng(seed, epoch, index | (uint64_t{copy} << 32));
  auto t = Clock::now();
  SampleRead& sample = read_;
  TF_RETURN_IF_ERROR(read_sample(*source_, decoder_, index, sample));
  const int width = sample.width, height = sample.height;
  const std::string& name = sample.name;
  times_.read += since(t);

  t = Clock::now();
  TF_RETURN_IF_ERROR(augment::plan_geometry(plan_, width, height, sample.quads, sample.labels, options_, rng,
                                            sample.pre_resized)
                         .with_context(name));
  times_.plan += since(t);

  t = Clock::now();
  int eighths = 8;
  augment::SourceFrame frame;  // where a decoded window lies in the whole decode
  double matrix[6];  // source -> crop for the pixels the warp gets (a window's origin moves it)
  std::copy(plan_.matrix, plan_.matrix + 6, matrix);
  if (sample.decoded()) {
    pixels_ = sample.pixels;
  } else {
    eighths = dct_eighths(plan_.matrix);
    TF_RETURN_IF_ERROR(decode_for_crop(decoder_, sample, eighths, options_.crop_size, options_.crop_size, matrix,
                                       decoded_, frame));
    pixels_ = decoded_.view();
  }
  times_.decode += since(t);

  t = Clock::now();
  TF_RETURN_IF_ERROR(augment::warp_to_crop(out.compact ? out.crop : crop_.mutable_view(), pixels_, matrix,
                                            eighths / 8.0, warp_scratch_, frame));
  times_.warp += since(t);

  t = Clock::now();
  const augment::ColorParams color = augment::draw_color_params(options_, rng);
  if (out.compact) {  // the receiver jitters, normalizes and builds the targets (CompactExpander)
    out.compact->color = color;
    // Only what the targets can see: a receiver refuses words reaching far off the crop.
    keep_visible_words(plan_.vertices, plan_.labels, options_.crop_size, *out.compact);
    ++times_.samples;
    return Status();
  }
  TF_RETURN_IF_ERROR(augment::apply_photometric(out.image, crop_.view(), color, options_));
  times_.photometric += since(t);

  t = Clock::now();
  TF_RETURN_IF_ERROR(targets_->build(out.targets, augment::PolygonsView::quads(plan_.vertices), plan_.labels,
                                     options_.crop_size));
  times_.targets += since(t);
  ++times_.samples;
  return Status();
}

Status SampleProducer::produce_db(uint32_t index, uint64_t seed, uint64_t epoch, const SampleOutputs& out,
                                  uint32_t copy) {
  Rng rng(seed, epoch, index | (uint64_t{copy} << 32));
  auto t = Clock::now();
  SampleRead& sample = read_;
  TF_RETURN_IF_ERROR(read_sample(*source_, decoder_, index, sample));
  const std::string& name = sample.name;
  times_.read += since(t);

  t = Clock::now();
  gather_polygons(sample, words_);
  TF_RETURN_IF_ERROR(policy_->apply(words_, sample.width, sample.height, polygons_).with_context(name));
  db_ends_.assign(words_.ends.begin(), words_.ends.end());
  db_ignore_.resize(words_.labels.size());
  for (size_t i = 0; i < db_ignore_.size(); ++i) db_ignore_[i] = words_.labels[i] == kLabelIgnored ? 1 : 0;
  TF_RETURN_IF_ERROR(augment::plan_db_geometry(db_plan_, sample.width, sample.height, {words_.xy, db_ends_},
                                               db_ignore_, db_options_, rng)
                         .with_context(name));
  times_.plan += since(t);

  TF_RETURN_IF_ERROR(render_db(sample));

  t = Clock::now();
  const augment::ColorParams color = augment::draw_color_params(options_, rng);
  TF_RETURN_IF_ERROR(augment::apply_photometric(out.image, crop_.view(), color, options_));
  times_.photometric += since(t);

  t = Clock::now();
  const augment::DbCrop& crop = db_plan_.crop;
  crop_ends_.assign(crop.ends.begin(), crop.ends.end());
  crop_labels_.resize(crop.ignore.size());
  for (size_t i = 0; i < crop.ignore.size(); ++i) crop_labels_[i] = crop.ignore[i] ? kLabelIgnored : kLabelValid;
  static_cast<augment::DbTargetBuilder&>(*targets_).set_shrink_ratio(augment::shrink_ratio_at(options_, epoch));
  TF_RETURN_IF_ERROR(targets_->build(out.targets, augment::PolygonsView{crop.xy, crop_ends_}, crop_labels_,
                                     options_.crop_size)
                         .with_context(name));
  times_.targets += since(t);
  ++times_.samples;
  return Status();
}

// The db canvas: one warp from a decode at the DCT scale the map needs (a window of it when the
// decoder allows), then black outside the resized crop, as the reference pads its canvas.
Status SampleProducer::render_db(const SampleRead& sample) {
  auto t = Clock::now();
  int eighths = 8;
  augment::SourceFrame frame;  // where a decoded window lies in the whole decode
  double matrix[6];
  std::copy(db_plan_.matrix, db_plan_.matrix + 6, matrix);
  const MutableImageView canvas = crop_.mutable_view();
  const int w = std::clamp(db_plan_.crop.out_w, 0, canvas.width), h = std::clamp(db_plan_.crop.out_h, 0, canvas.height);
  if (sample.decoded()) {
    pixels_ = sample.pixels;
  } else {
    eighths = fast_dct_eighths(augment::max_scale(matrix));  // db stretches each axis its own way
    TF_RETURN_IF_ERROR(
        decode_for_crop(decoder_, sample, eighths, std::max(w, 1), std::max(h, 1), matrix, decoded_, frame));
    pixels_ = decoded_.view();
  }
  times_.decode += since(t);
  t = Clock::now();
  if (w > 0 && h > 0) {  // only the part the resized crop covers; the rest is black
    const MutableImageView covered{canvas.data, h, w, 3, canvas.stride_bytes, DType::kU8};
    TF_RETURN_IF_ERROR(augment::warp_to_crop(covered, pixels_, matrix, eighths / 8.0, warp_scratch_, frame));
  }
  for (int y = 0; y < canvas.height; ++y) {
    uint8_t* row = canvas.data + static_cast<ptrdiff_t>(y) * canvas.stride_bytes;
    if (y >= h)
      std::fill(row, row + 3 * canvas.width, uint8_t{0});
    else
      std::fill(row + 3 * w, row + 3 * canvas.width, uint8_t{0});
  }
  times_.warp += since(t);
  return Status();
}

}  // namespace textfeed::loader
