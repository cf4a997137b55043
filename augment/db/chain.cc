// DbChain: polygons -> policy -> imgaug draws and crop search -> (pixels) -> canvas ->
// photometric -> DB targets.
#include "augment/db/chain.h"

#include <algorithm>

#include "augment/colour/photometric.h"
#include "base/quad.h"

namespace textfeed::augment {
namespace {

// The sample's words as polygons: every point the source kept, else its quads.
void gather_polygons(const SampleWords& s, PolygonSet& out) {
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

}  // namespace

DbGeometryOptions db_geometry_options(const AugmentOptions& o) {
  DbGeometryOptions g;
  g.flip_p = o.flip_p;
  g.max_rotate_deg = o.rotate_deg;
  g.min_resize = o.resize.lo;
  g.max_resize = o.resize.hi;
  g.crop.size = o.crop_size;
  g.crop.max_tries = o.crop_max_tries;
  g.crop.min_crop_side_ratio = o.min_crop_side;
  return g;
}

DbTargetOptions db_target_options(const AugmentOptions& o) {
  return DbTargetOptions{o.shrink_ratio, o.thresh_min, o.thresh_max,
                         static_cast<double>(o.min_text_size)};
}

DbChain::DbChain(const AugmentOptions& options)
    : options_(options),
      geometry_(db_geometry_options(options)),
      policy_(options.invalid_polygon),
      targets_(db_target_options(options)) {
  canvas_.reset(options_.crop_size, options_.crop_size, 3);
}

Status DbChain::plan(const SampleWords& sample, Rng& rng, uint64_t /*epoch*/,
                     PixelRequest& request) {
  name_.assign(sample.name);
  polygons_ = {};
  gather_polygons(sample, words_);
  TF_RETURN_IF_ERROR(
      policy_.apply(words_, sample.width, sample.height, polygons_).with_context(name_));
  ends_.assign(words_.ends.begin(), words_.ends.end());
  ignore_.resize(words_.labels.size());
  for (size_t i = 0; i < ignore_.size(); ++i) ignore_[i] = words_.labels[i] == kLabelIgnored;
  TF_RETURN_IF_ERROR(plan_db_geometry(plan_, sample.width, sample.height, {words_.xy, ends_},
                                      ignore_, geometry_, rng)
                         .with_context(name_));
  std::copy(plan_.matrix, plan_.matrix + 6, request.matrix);
  // The resized crop's part of the canvas; db stretches each axis its own way, and the larger
  // scale decides the DCT scale.
  request.out_w = std::max(std::clamp(plan_.crop.out_w, 0, options_.crop_size), 1);
  request.out_h = std::max(std::clamp(plan_.crop.out_h, 0, options_.crop_size), 1);
  request.min_scale = request.max_scale = max_scale(plan_.matrix);
  return Status();
}

// Only the part the resized crop covers is warped; the rest of the canvas is black, as the
// reference pads its canvas.
Status DbChain::render_canvas(const PixelGrant& pixels, StageTimes& times) {
  const auto t = StageClock::now();
  const MutableImageView canvas = canvas_.mutable_view();
  const int w = std::clamp(plan_.crop.out_w, 0, canvas.width);
  const int h = std::clamp(plan_.crop.out_h, 0, canvas.height);
  if (w > 0 && h > 0) {
    const MutableImageView covered{canvas.data, h, w, 3, canvas.stride_bytes, DType::kU8};
    TF_RETURN_IF_ERROR(warp_to_crop(covered, pixels.pixels, pixels.matrix, pixels.scale,
                                    warp_scratch_, pixels.frame));
  }
  for (int y = 0; y < canvas.height; ++y) {
    uint8_t* row = canvas.data + static_cast<ptrdiff_t>(y) * canvas.stride_bytes;
    if (y >= h)
      std::fill(row, row + 3 * canvas.width, uint8_t{0});
    else
      std::fill(row + 3 * w, row + 3 * canvas.width, uint8_t{0});
  }
  times.warp += seconds_since(t);
  return Status();
}

Status DbChain::render(const PixelGrant& pixels, Rng& rng, uint64_t epoch, const ChainOutputs& out,
                       StageTimes& times) {
  if (out.compact) return Status::invalid_argument("the db family has no compact rows");
  TF_RETURN_IF_ERROR(render_canvas(pixels, times));

  auto t = StageClock::now();
  const ColorParams color = draw_color_params(options_, rng);
  TF_RETURN_IF_ERROR(apply_photometric(out.image, canvas_.view(), color, options_));
  times.photometric += seconds_since(t);

  t = StageClock::now();
  const DbCrop& crop = plan_.crop;
  crop_ends_.assign(crop.ends.begin(), crop.ends.end());
  crop_labels_.resize(crop.ignore.size());
  for (size_t i = 0; i < crop.ignore.size(); ++i)
    crop_labels_[i] = crop.ignore[i] ? kLabelIgnored : kLabelValid;
  targets_.set_shrink_ratio(shrink_ratio_at(options_, epoch));
  TF_RETURN_IF_ERROR(
      targets_
          .build(out.targets, PolygonsView{crop.xy, crop_ends_}, crop_labels_, options_.crop_size)
          .with_context(name_));
  times.targets += seconds_since(t);
  return Status();
}

void DbChain::words_after(SampleMeta& meta) const {
  const DbCrop& crop = plan_.crop;
  meta.height = meta.width = options_.crop_size;
  meta.scale_x = meta.scale_y = 1;
  meta.xy.assign(crop.xy.begin(), crop.xy.end());
  meta.points.clear();
  int32_t first = 0;
  for (int32_t end : crop.ends)
    meta.points.push_back(static_cast<uint32_t>(end - first)), first = end;
  meta.ignore.assign(crop.ignore.begin(), crop.ignore.end());
}

}  // namespace textfeed::augment
