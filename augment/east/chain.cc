// EastChain: plan -> (pixels) -> warp -> photometric -> targets, or a compact row.
#include "augment/east/chain.h"

#include <algorithm>
#include <cmath>

#include "augment/colour/photometric.h"

namespace textfeed::augment {
namespace {

// Whether the target builder draws the quad at all (make_targets: usable()).
bool drawn(std::span<const double> q) {
  return std::all_of(q.begin(), q.end(), [](double v) { return std::abs(v) <= kMaxTargetCoord; });
}

// Every corner more than one crop side off the crop on one side: the quad, its shrunk quad and its
// box lie there too, so no pixel of the crop or of the maps is painted, and an even-odd fill of
// the others meets an even number of its edges on every row, all off the image.
bool wholly_off(std::span<const double> q, double c) {
  bool left = true, right = true, above = true, below = true;
  for (int k = 0; k < 4; ++k) {
    const double x = q[2 * k], y = q[2 * k + 1];
    left = left && x < -c, right = right && x > 2 * c;
    above = above && y < -c, below = below && y > 2 * c;
  }
  return left || right || above || below;
}

}  // namespace

void keep_visible_words(std::span<const double> quads, std::span<const unsigned char> labels,
                        int crop_size, CompactRow& row) {
  row.quads.clear();
  row.labels.clear();
  for (size_t w = 0; w < labels.size() && 8 * w + 8 <= quads.size(); ++w) {
    const std::span<const double> q = quads.subspan(8 * w, 8);
    if (!drawn(q) || wholly_off(q, crop_size)) continue;
    row.quads.insert(row.quads.end(), q.begin(), q.end());
    row.labels.push_back(labels[w]);
  }
}

EastChain::EastChain(const AugmentOptions& options) : options_(options), targets_(options) {
  crop_.reset(options_.crop_size, options_.crop_size, 3);
}

Status EastChain::plan(const SampleWords& sample, Rng& rng, uint64_t /*epoch*/,
                       PixelRequest& request) {
  TF_RETURN_IF_ERROR(plan_geometry(plan_, sample.width, sample.height, sample.quads, sample.labels,
                                   options_, rng, sample.pre_resized)
                         .with_context(std::string(sample.name)));
  std::copy(plan_.matrix, plan_.matrix + 6, request.matrix);
  request.out_w = request.out_h = options_.crop_size;
  // The resize and the height stretch decide the DCT scale (loader/decode/decode.h
  // fast_dct_eighths).
  const AxisScales s = axis_scales(plan_.matrix);
  request.min_scale = std::min(s.sx, s.sy);
  request.max_scale = std::max(s.sx, s.sy);
  return Status();
}

Status EastChain::render(const PixelGrant& pixels, Rng& rng, uint64_t /*epoch*/,
                         const ChainOutputs& out, StageTimes& times) {
  auto t = StageClock::now();
  TF_RETURN_IF_ERROR(warp_to_crop(out.compact ? out.crop : crop_.mutable_view(), pixels.pixels,
                                  pixels.matrix, pixels.scale, warp_scratch_, pixels.frame));
  times.warp += seconds_since(t);

  t = StageClock::now();
  const ColorParams color = draw_color_params(options_, rng);
  if (out.compact) {  // the receiver jitters, normalizes and builds the targets (CompactExpander)
    out.compact->color = color;
    // Only what the targets can see: a receiver refuses words reaching far off the crop.
    keep_visible_words(plan_.vertices, plan_.labels, options_.crop_size, *out.compact);
    return Status();
  }
  TF_RETURN_IF_ERROR(apply_photometric(out.image, crop_.view(), color, options_));
  times.photometric += seconds_since(t);

  t = StageClock::now();
  TF_RETURN_IF_ERROR(targets_.build(out.targets, PolygonsView::quads(plan_.vertices), plan_.labels,
                                    options_.crop_size));
  times.targets += seconds_since(t);
  return Status();
}

void EastChain::words_after(SampleMeta& meta) const {
  const size_t n = plan_.labels.size();
  meta.height = meta.width = options_.crop_size;
  meta.scale_x = meta.scale_y = 1;
  meta.xy.resize(n * 8);
  for (size_t i = 0; i < n * 8; ++i) meta.xy[i] = static_cast<float>(plan_.vertices[i]);
  meta.points.assign(n, 4);
  meta.ignore.resize(n);
  for (size_t i = 0; i < n; ++i) meta.ignore[i] = plan_.labels[i] == kLabelIgnored ? 1 : 0;
}

}  // namespace textfeed::augment
