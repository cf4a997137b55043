// FCENet's and TextSnake's training chains (fce_snake_chains.h): mmcv's RandomResize, RandomApply
// and RandomChoice wrappers around mmocr's RandomCrop, RandomRotate (on a canvas),
// BoundedScaleAspectJitter, Resize and SourceImagePad. numpy's dtype rules decide the rounding: a
// float32 polygon combined with a Python scalar stays float32 (each operation rounded), the same
// polygon minus an integer offset array becomes float64 (RandomCrop).
#include "augment/mmocr/fce_snake_chains.h"

#include <geos_c.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "augment/geometry/shapely_geos.h"
#include "augment/mmocr/crop_flip.h"

namespace textfeed::augment::mmocr {
namespace {

// Both configs' target size (RandomResize's base scale, Resize's and SourceImagePad's size).
constexpr int kTargetPx = 800;
constexpr double kRandomResizeMin = 0.75, kRandomResizeMax = 2.5;
constexpr double kCropMinSideRatio = 0.3;
// BoundedScaleAspectJitter(800, 480, (0.7, 1.3), (0.9, 1.1)).
constexpr double kLongBound = 800, kShortBound = 480;
constexpr double kJitterMin = 0.7, kJitterMax = 1.3;
constexpr double kAspectMin = 0.9, kAspectMax = 1.1;
constexpr double kShortBoundMargin = 10;
// SourceImagePad's default crop_ratio 1/9 and RandomRotate's fill patch origin range (7/8).
constexpr double kPadCropRatio = 1.0 / 9;
constexpr int kFillNum = 7, kFillDen = 8;

double f32(double v) { return static_cast<double>(static_cast<float>(v)); }

// ---- RandomCrop ----------------------------------------------------------------------------

// The runs of ones in a 0/1 array: [starts[i], ends[i]) (what the reference finds through the
// signs of the padded difference).
struct Runs {
  std::vector<int64_t> starts, ends;
};

Runs runs_of_ones(const std::vector<unsigned char>& a) {
  Runs r;
  const int64_t n = static_cast<int64_t>(a.size());
  for (int64_t i = 0; i < n; ++i) {
    if (a[i] == 0) continue;
    if (i == 0 || a[i - 1] == 0) r.starts.push_back(i);
    if (i + 1 == n || a[i + 1] == 0) r.ends.push_back(i + 1);
  }
  return r;
}

// One random index from the runs of `a` (a run, then a position in it), drawn as `prefix`.start
// or `prefix`.end. `a` always has a one (the reference sets an end to 1).
int64_t sample_in_runs(ChainStreams& streams, const std::vector<unsigned char>& a,
                       const std::string& name) {
  const Runs r = runs_of_ones(a);
  const int64_t k =
      streams.np_randint("RandomCrop", name + "_region", 0, static_cast<int64_t>(r.starts.size()));
  return streams.np_randint("RandomCrop", name, r.starts[k], r.ends[k]);
}

// RandomCrop._sample_valid_start_end on one axis (`axis` "x" or "y"): a start before
// max_start and an end at or after min_end, at least min_len apart, both on free positions.
std::pair<int64_t, int64_t> sample_start_end(ChainStreams& streams, const std::string& axis,
                                             const std::vector<unsigned char>& valid,
                                             int64_t min_len, int64_t max_start, int64_t min_end) {
  const int64_t n = static_cast<int64_t>(valid.size());
  std::vector<unsigned char> starts = valid;
  max_start = std::min(n - min_len, max_start);
  std::fill(starts.begin() + max_start, starts.end(), 0);
  starts[0] = 1;
  const int64_t start = sample_in_runs(streams, starts, axis + ".start");
  std::vector<unsigned char> ends = valid;
  min_end = std::max(start + min_len, min_end);
  std::fill(ends.begin(), ends.begin() + min_end, 0);
  ends[n - 1] = 1;
  const int64_t end = sample_in_runs(streams, ends, axis + ".end");
  return {start, end};
}

// The integer span [floor(min), ceil(max)) of one coordinate of `p` clipped to [0, limit].
std::pair<int64_t, int64_t> clipped_span(const ChainPolygon& p, size_t coord, int limit) {
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (size_t i = coord; i < p.xy.size(); i += 2) {
    const double v = std::clamp(p.xy[i], 0.0, static_cast<double>(limit));
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return {static_cast<int64_t>(std::floor(lo)), static_cast<int64_t>(std::ceil(hi))};
}

// RandomCrop._sample_crop_box: (x0, y0, x1, y1) keeping one randomly chosen polygon whole and
// cutting through no polygon's clipped bounding box.
std::array<int64_t, 4> sample_crop_box(const ChainState& state, ChainStreams& streams) {
  std::vector<unsigned char> x_valid(state.w + 1, 1), y_valid(state.h + 1, 1);
  const int64_t kept = streams.np_randint("RandomCrop", "kept_polygon", 0,
                                          static_cast<int64_t>(state.polygons.size()));
  std::pair<int64_t, int64_t> kept_x, kept_y;
  for (size_t i = 0; i < state.polygons.size(); ++i) {
    const auto sx = clipped_span(state.polygons[i], 0, state.w);
    const auto sy = clipped_span(state.polygons[i], 1, state.h);
    for (int64_t x = sx.first; x < sx.second; ++x) x_valid[x] = 0;
    for (int64_t y = sy.first; y < sy.second; ++y) y_valid[y] = 0;
    if (static_cast<int64_t>(i) == kept) {
      kept_x = sx;
      kept_y = sy;
    }
  }
  // Python's int(size * ratio).
  const auto min_w = static_cast<int64_t>(state.w * kCropMinSideRatio);
  const auto min_h = static_cast<int64_t>(state.h * kCropMinSideRatio);
  const auto [x0, x1] = sample_start_end(streams, "x", x_valid, min_w, kept_x.first, kept_x.second);
  const auto [y0, y1] = sample_start_end(streams, "y", y_valid, min_h, kept_y.first, kept_y.second);
  return {x0, y0, x1, y1};
}

// mmocr's is_poly_inside_rect(xy, [0, 0, w, h]): shapely's rect.contains(polygon) on float32
// coordinates (GEOS: inside the closed rectangle and not lying wholly on its border).
Result<bool> inside_rect(std::span<const double> xy, double w, double h) {
  GeosContext& geos = thread_geos();
  if (geos.handle() == nullptr) return Status::internal("GEOS_init_r failed");
  std::vector<double> xy32(xy.size());
  for (size_t i = 0; i < xy.size(); ++i) xy32[i] = f32(xy[i]);
  const double rect[8] = {0, 0, f32(w), 0, f32(w), f32(h), 0, f32(h)};
  GeosGeometry poly = own(geos, shapely_polygon(geos, xy32));
  GeosGeometry box = own(geos, shapely_polygon(geos, rect));
  if (poly == nullptr || box == nullptr) return Status::internal("GEOS polygon: " + geos.error());
  const char contains = GEOSContains_r(geos.handle(), box.get(), poly.get());
  if (contains == 2) return Status::internal("GEOS contains failed: " + geos.error());
  return contains == 1;
}

// mmocr's RandomCrop(min_side_ratio 0.3): nothing (and no draw) without polygons; else the crop
// box, and the polygons moved by its integer origin (float64 from then on) that lie inside it.
Status random_crop(ChainState& state, ChainStreams& streams) {
  if (state.polygons.empty()) return Status();
  const std::array<int64_t, 4> box = sample_crop_box(state, streams);
  if (box[2] <= box[0] || box[3] <= box[1])
    return Status::invalid_argument("RandomCrop: an empty crop of a " + std::to_string(state.w) +
                                    "x" + std::to_string(state.h) + " image");
  const auto crop_w = static_cast<double>(box[2] - box[0]);
  const auto crop_h = static_cast<double>(box[3] - box[1]);
  std::vector<unsigned char> keep(state.polygons.size(), 0);
  for (size_t i = 0; i < state.polygons.size(); ++i) {
    ChainPolygon& p = state.polygons[i];
    for (size_t j = 0; j + 1 < p.xy.size(); j += 2) {
      p.xy[j] -= static_cast<double>(box[0]);
      p.xy[j + 1] -= static_cast<double>(box[1]);
    }
    p.f32 = false;
    TF_ASSIGN_OR_RETURN(const bool inside, inside_rect(p.xy, crop_w, crop_h));
    keep[i] = inside ? 1 : 0;
  }
  state.keep_only(keep);
  state.w = static_cast<int>(box[2] - box[0]);
  state.h = static_cast<int>(box[3] - box[1]);
  PixelOp op;
  op.kind = PixelOp::Kind::kCrop;
  op.out_h = state.h;
  op.out_w = state.w;
  for (int k = 0; k < 4; ++k) op.rect[k] = static_cast<int>(box[k]);
  state.ops.push_back(op);
  return Status();
}

// RandomApply([RandomCrop(0.3)], prob): one np rand(), the crop iff it is below prob.
Status random_apply_crop(ChainState& state, ChainStreams& streams, double prob) {
  if (streams.np_random_sample("RandomApply(RandomCrop)", "apply") < prob)
    TF_RETURN_IF_ERROR(random_crop(state, streams));
  state.mark("RandomApply(RandomCrop)");
  return Status();
}

// ---- RandomRotate (use_canvas) --------------------------------------------------------------

// RandomRotate._rotate_points on one polygon in its own dtype: about (cx, cy) of the old image
// by theta (radians, counter-clockwise on screen), then moved by the canvas shift. A float32
// polygon rounds the scalars and every operation to float32, as numpy does.
void rotate_polygon(ChainPolygon& p, double cx, double cy, double cos_t, double sin_t, int shift_x,
                    int shift_y) {
  const auto r = [&p](double v) { return round_as(p, v); };
  // The reference works with y pointing up: the centre's and the points' y negated.
  const double cxr = r(cx), cyr = r(-cy), c = r(cos_t), s = r(sin_t);
  const double dx = shift_x, dy = shift_y;
  for (size_t i = 0; i + 1 < p.xy.size(); i += 2) {
    const double x = r(p.xy[i] - cxr);
    const double y = r(-p.xy[i + 1] - cyr);
    p.xy[i] = r(r(r(cxr + r(x * c)) - r(y * s)) + dx);
    p.xy[i + 1] = r(-r(r(cyr + r(x * s)) + r(y * c)) + dy);
  }
}

// The pixel ops of the canvas rotation: cv2.getRotationMatrix2D about the old centre, moved by
// the shift, into the canvas; then the empty corners filled from the patch at (fill_y, fill_x).
void push_rotate_ops(ChainState& state, double angle_deg, int canvas_h, int canvas_w, int shift_x,
                     int shift_y, int fill_y, int fill_x) {
  // OpenCV scales by the constant pi / 180 (not angle * pi, then / 180 as the canvas does).
  const double rad = angle_deg * (std::numbers::pi / 180);
  const double a = std::cos(rad), b = std::sin(rad);
  const double cx = state.w / 2.0, cy = state.h / 2.0;
  PixelOp warp;
  warp.kind = PixelOp::Kind::kAffine;
  warp.out_h = canvas_h;
  warp.out_w = canvas_w;
  const double m[6] = {a,  b, (1 - a) * cx - b * cy + shift_x,
                       -b, a, b * cx + (1 - a) * cy + shift_y};
  std::copy(m, m + 6, warp.matrix);
  state.ops.push_back(warp);
  PixelOp fill;
  fill.kind = PixelOp::Kind::kFillPatch;
  fill.out_h = canvas_h;
  fill.out_w = canvas_w;
  fill.fill_y = fill_y;
  fill.fill_x = fill_x;
  state.ops.push_back(fill);
}

// mmocr's RandomRotate(max_angle, pad_with_fixed_color False, use_canvas True): the angle, the
// canvas that holds the turned image (its size truncated), the fill patch origin, and every
// polygon turned about the old centre and shifted into the canvas.
// Errors: kInvalidArgument (an image under 2 px on a side: numpy's randint(0, 0) raises there).
Status random_rotate(ChainState& state, ChainStreams& streams, int max_angle) {
  const double u = streams.np_random_sample("RandomRotate", "angle");
  const double angle = u * 2 * max_angle - max_angle;
  const double canvas_rad = angle * std::numbers::pi / 180.0;
  const double cos_c = std::fabs(std::cos(canvas_rad)), sin_c = std::fabs(std::sin(canvas_rad));
  const auto canvas_h = static_cast<int>(state.w * sin_c + state.h * cos_c);
  const auto canvas_w = static_cast<int>(state.w * cos_c + state.h * sin_c);
  // Python's int() of a true division: truncation toward zero (the canvas may be narrower).
  const auto shift_x = static_cast<int>((canvas_w - state.w) / 2.0);
  const auto shift_y = static_cast<int>((canvas_h - state.h) / 2.0);
  const int64_t fill_hi_y = int64_t{state.h} * kFillNum / kFillDen;
  const int64_t fill_hi_x = int64_t{state.w} * kFillNum / kFillDen;
  if (fill_hi_y <= 0 || fill_hi_x <= 0)
    return Status::invalid_argument("RandomRotate: image " + std::to_string(state.h) + "x" +
                                    std::to_string(state.w) + " too small for the fill patch");
  const int64_t fill_y = streams.np_randint("RandomRotate", "fill_y", 0, fill_hi_y);
  const int64_t fill_x = streams.np_randint("RandomRotate", "fill_x", 0, fill_hi_x);
  // The points use theta = angle / 180 * pi, which may differ from the canvas's angle in the
  // last bit.
  const double theta = angle / 180 * std::numbers::pi;
  const double cos_t = std::cos(theta), sin_t = std::sin(theta);
  for (ChainPolygon& p : state.polygons)
    rotate_polygon(p, state.w / 2.0, state.h / 2.0, cos_t, sin_t, shift_x, shift_y);
  push_rotate_ops(state, angle, canvas_h, canvas_w, shift_x, shift_y, static_cast<int>(fill_y),
                  static_cast<int>(fill_x));
  state.h = canvas_h;
  state.w = canvas_w;
  return Status();
}

// ---- Resizes and the pad --------------------------------------------------------------------

// mmcv's RandomResize(scale (800, 800), ratio_range (0.75, 2.5), keep_ratio True) with mmocr's
// Resize: the scale is int(800 * ratio) on both sides, then the image fits into it.
Status random_resize(ChainState& state, ChainStreams& streams) {
  const double u = streams.np_random_sample("RandomResize", "ratio");
  const double ratio = u * (kRandomResizeMax - kRandomResizeMin) + kRandomResizeMin;
  const double scale = static_cast<int>(kTargetPx * ratio);
  int new_w = 0, new_h = 0;
  rescale_keep_ratio(state.w, state.h, scale, scale, new_w, new_h);
  TF_RETURN_IF_ERROR(resize_to(state, new_w, new_h));
  state.mark("RandomResize");
  return Status();
}

// mmocr's BoundedScaleAspectJitter(800, 480, (0.7, 1.3), (0.9, 1.1)) with its Resize to the
// jittered size (keep_ratio False).
Status bounded_scale_aspect_jitter(ChainState& state, ChainStreams& streams) {
  const int h = state.h, w = state.w;
  double new_scale = 1;
  if (std::max(h, w) > kLongBound) new_scale = kLongBound / std::max(h, w);
  const double u_ratio = streams.np_random_sample("BoundedScaleAspectJitter", "ratio");
  double jitter = new_scale * (u_ratio * (kJitterMax - kJitterMin) + kJitterMin);
  if (std::min(h, w) * jitter <= kShortBound)
    jitter = (kShortBound + kShortBoundMargin) * 1.0 / std::min(h, w);
  const double u_aspect = streams.np_random_sample("BoundedScaleAspectJitter", "aspect");
  const double aspect = u_aspect * (kAspectMax - kAspectMin) + kAspectMin;
  const double h_scale = jitter * std::sqrt(aspect);
  const double w_scale = jitter / std::sqrt(aspect);
  TF_RETURN_IF_ERROR(
      resize_to(state, static_cast<int>(w * w_scale), static_cast<int>(h * h_scale)));
  state.mark("BoundedScaleAspectJitter");
  return Status();
}

// mmocr's SourceImagePad(800): the image at the top left of an 800 x 800 one whose rest comes
// from a patch (crop ratio 1/9) at a random origin. Polygons do not move.
void source_image_pad(ChainState& state, ChainStreams& streams) {
  const auto hi_y = static_cast<int64_t>(state.h - state.h * kPadCropRatio) + 1;
  const auto hi_x = static_cast<int64_t>(state.w - state.w * kPadCropRatio) + 1;
  const int64_t fill_y = streams.np_randint("SourceImagePad", "fill_y", 0, hi_y);
  const int64_t fill_x = streams.np_randint("SourceImagePad", "fill_x", 0, hi_x);
  PixelOp pad;
  pad.kind = PixelOp::Kind::kPad;
  pad.out_h = kTargetPx;
  pad.out_w = kTargetPx;
  state.ops.push_back(pad);
  PixelOp fill = pad;
  fill.code = 1;  // SourceImagePad's fill (chain_state.h)
  fill.kind = PixelOp::Kind::kFillPatch;
  fill.fill_y = static_cast<int>(fill_y);
  fill.fill_x = static_cast<int>(fill_x);
  state.ops.push_back(fill);
  state.h = kTargetPx;
  state.w = kTargetPx;
}

// RandomChoice([[Resize(800, keep_ratio), SourceImagePad(800)], Resize(800 x 800)],
// prob [p0, 1 - p0]): one np random_sample u, the first branch iff u < p0.
Status random_choice_resize(ChainState& state, ChainStreams& streams, double p0) {
  if (streams.np_random_sample("RandomChoice(Resize)", "branch") < p0) {
    int new_w = 0, new_h = 0;
    rescale_keep_ratio(state.w, state.h, kTargetPx, kTargetPx, new_w, new_h);
    TF_RETURN_IF_ERROR(resize_to(state, new_w, new_h));
    source_image_pad(state, streams);
  } else {
    TF_RETURN_IF_ERROR(resize_to(state, kTargetPx, kTargetPx));
  }
  state.mark("RandomChoice(Resize)");
  return Status();
}

}  // namespace

Status run_fcenet(ChainState& state, ChainStreams& streams) {
  constexpr double kCropProb = 0.8, kRotateProb = 0.5, kBranch0Prob = 0.6;
  constexpr int kMaxAngle = 30;
  TF_RETURN_IF_ERROR(random_resize(state, streams));
  TF_RETURN_IF_ERROR(text_det_random_crop_flip(state, streams));
  state.mark("TextDetRandomCropFlip");
  TF_RETURN_IF_ERROR(random_apply_crop(state, streams, kCropProb));
  if (streams.np_random_sample("RandomApply(RandomRotate)", "apply") < kRotateProb)
    TF_RETURN_IF_ERROR(random_rotate(state, streams, kMaxAngle));
  state.mark("RandomApply(RandomRotate)");
  TF_RETURN_IF_ERROR(random_choice_resize(state, streams, kBranch0Prob));
  random_flip(state, streams);
  state.mark("RandomFlip");
  // ColorJitter draws only from torch and changes no geometry.
  state.mark("ColorJitter");
  return Status();
}

Status run_textsnake(ChainState& state, ChainStreams& streams) {
  constexpr double kCropProb = 0.65, kBranch0Prob = 0.4;
  constexpr int kMaxAngle = 20;
  // ColorJitter draws only from torch and changes no geometry.
  state.mark("ColorJitter");
  TF_RETURN_IF_ERROR(random_apply_crop(state, streams, kCropProb));
  TF_RETURN_IF_ERROR(random_rotate(state, streams, kMaxAngle));
  state.mark("RandomRotate");
  TF_RETURN_IF_ERROR(bounded_scale_aspect_jitter(state, streams));
  TF_RETURN_IF_ERROR(random_choice_resize(state, streams, kBranch0Prob));
  random_flip(state, streams);
  state.mark("RandomFlip");
  return Status();
}

}  // namespace textfeed::augment::mmocr
