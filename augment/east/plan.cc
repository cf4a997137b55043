// The geometric chain on vertices, in the reference's order and arithmetic, and the pixel matrix.
//
// Two conventions meet here. The reference moves vertices with x' = x * s (corner convention) but
// resamples pixels with PIL, which maps pixel centres: x' + 0.5 = (x + 0.5) * s. The vertices
// follow the reference exactly (targets must match); the pixel matrix follows PIL (pixels must
// match). The two differ by 0.5 * (s - 1) px per resize: a property of the reference, kept.
#include "augment/east/plan.h"

#include <algorithm>
#include <cmath>

#include "augment/geometry/polygon.h"

namespace textfeed::augment {
namespace {

// 3x3 affine, row-major, last row implicit (0 0 1).
struct Affine {
  double a[6] = {1, 0, 0, 0, 1, 0};
  // this = m * this (apply m after this).
  void then(const double m[6]) {
    const double r[6] = {m[0] * a[0] + m[1] * a[3],        m[0] * a[1] + m[1] * a[4],
                         m[0] * a[2] + m[1] * a[5] + m[2], m[3] * a[0] + m[4] * a[3],
                         m[3] * a[1] + m[4] * a[4],        m[3] * a[2] + m[4] * a[5] + m[5]};
    std::copy(r, r + 6, a);
  }
  // PIL resize of the pixel grid from (w, h) to (nw, nh).
  void resize(int w, int h, int nw, int nh) {
    const double sx = static_cast<double>(nw) / w, sy = static_cast<double>(nh) / h;
    const double m[6] = {sx, 0, 0.5 * sx - 0.5, 0, sy, 0.5 * sy - 0.5};
    then(m);
  }
};

// Reference crop test: does any valid word have a cut fraction in [low, high]?
struct WordHull {
  std::vector<Point> hull;
  double area, xmin, ymin, xmax, ymax;
};

bool cuts_a_word(const std::vector<WordHull>& words, double x0, double y0, double len, double low,
                 double high) {
  const double x1 = x0 + len, y1 = y0 + len;
  for (const WordHull& w : words) {
    if (w.area <= 0) continue;  // the reference divides by zero here; a degenerate word never cuts
    double frac;
    if (w.xmin >= x0 && w.xmax <= x1 && w.ymin >= y0 && w.ymax <= y1) {
      frac = 1.0;
    } else if (w.xmax <= x0 || w.xmin >= x1 || w.ymax <= y0 || w.ymin >= y1) {
      frac = 0.0;
    } else {
      frac = clipped_area(w.hull, x0, y0, x1, y1) / w.area;
    }
    if (low <= frac && frac <= high) return true;
  }
  return false;
}

// The longest side any step may give the image. Sizes are computed in double and checked against
// this before they become ints: an image of extreme aspect (3000x1 resized to a longer side of
// 2048 is 2048x0; 1e8x1 upscaled to a shorter side of 1024 is 1e11 wide) is a bad sample, never
// a division by zero or an int overflow.
constexpr double kMaxSidePx = 1 << 30;

// The chain's state from step to step. The vertices are held as the reference holds them: UP
// keeps float32 until rotate (every product rounds to float32, with the factor rounded to float32
// first, as numpy does for a float32 array times a Python float); SR holds int64 (y truncates
// after adjust_height); float64 after rotate.
struct PlanState {
  GeometryPlan& plan;  // the output: each step records its size and draws there
  const AugmentOptions& o;
  Rng& rng;
  int src_w = 0, src_h = 0;  // the input's size, named in errors
  int w = 0, h = 0;          // the image's size after the steps so far
  std::vector<double> v;     // n * 8 vertices
  Affine pix;                // source pixel -> current pixel
};

// `w` x `h`, the size a step computed, as ints; kInvalidArgument naming the step when it is
// empty or too large.
Status step_size(const PlanState& s, const char* step, double w, double h, int* out_w, int* out_h) {
  if (!(w >= 1 && h >= 1 && w <= kMaxSidePx && h <= kMaxSidePx))
    return Status::invalid_argument(
        "plan: a " + std::to_string(s.src_w) + "x" + std::to_string(s.src_h) + " image is " +
        std::to_string(static_cast<int64_t>(std::min(w, 1e18))) + "x" +
        std::to_string(static_cast<int64_t>(std::min(h, 1e18))) + " after " + step +
        ": its aspect ratio is too extreme to train on");
  *out_w = static_cast<int>(w);
  *out_h = static_cast<int>(h);
  return Status();
}

// resize_img: longer side to image_size, vertices *= r on both axes.
Status resize_img(PlanState& s) {
  const AugmentOptions& o = s.o;
  const double r = static_cast<double>(o.image_size) / std::max(s.w, s.h);
  int nw = 0, nh = 0;
  TF_RETURN_IF_ERROR(step_size(s, "resize_img", s.w > s.h ? o.image_size : std::trunc(s.w * r),
                               s.w > s.h ? std::trunc(s.h * r) : o.image_size, &nw, &nh));
  if (o.vertices_f32) {
    const float rf = static_cast<float>(r);
    for (double& x : s.v) x = static_cast<float>(x) * rf;
  } else {
    for (double& x : s.v) x *= r;
  }
  s.pix.resize(s.w, s.h, nw, nh);
  s.w = nw, s.h = nh;
  return Status();
}

// adjust_height: one draw; new_h = np.around(h * ratio) (half to even); y *= new_h / h.
Status adjust_height(PlanState& s) {
  const AugmentOptions& o = s.o;
  const double ratio_h = 1 + o.height_jitter * (s.rng.uniform() * 2 - 1);
  s.plan.height_ratio = ratio_h;
  int new_h = 0, same_w = 0;
  TF_RETURN_IF_ERROR(
      step_size(s, "adjust_height", s.w, std::nearbyint(s.h * ratio_h), &same_w, &new_h));
  const double fy = static_cast<double>(new_h) / s.h;
  for (size_t k = 1; k < s.v.size(); k += 2) {
    if (o.vertices_f32) {
      s.v[k] = static_cast<float>(s.v[k]) * static_cast<float>(fy);
    } else if (o.int_vertices) {
      s.v[k] = std::trunc(s.v[k] * fy);  // SR: int64 vertices truncate on assignment
    } else {
      s.v[k] *= fy;
    }
  }
  s.pix.resize(s.w, s.h, s.w, new_h);
  s.h = new_h;
  s.plan.adjusted = {s.w, s.h};
  return Status();
}

// rotate_img: one draw; PIL rotate(angle) turns the image counter-clockwise, so the vertices turn
// by -angle about the image's centre. The size is kept.
void rotate_img(PlanState& s) {
  const double angle = s.o.rotate_deg * (s.rng.uniform() * 2 - 1);
  s.plan.angle_deg = angle;
  const double cx = (s.w - 1) / 2.0, cy = (s.h - 1) / 2.0;
  const double theta = -angle / 180 * 3.14159265358979323846;
  const double c = std::cos(theta), sn = std::sin(theta);
  for (size_t i = 0; i < s.v.size(); i += 2) {
    const double dx = s.v[i] - cx, dy = s.v[i + 1] - cy;
    s.v[i] = (c * dx + (-sn) * dy) + cx;
    s.v[i + 1] = (sn * dx + c * dy) + cy;
  }
  const double m[6] = {c, -sn, cx - c * cx + sn * cy, sn, c, cy - sn * cx - c * cy};
  s.pix.then(m);
}

// crop_img's first part: upscale so the shorter side is at least crop_size.
Status upscale_for_crop(PlanState& s) {
  s.plan.before_crop = {s.w, s.h};
  const int len = s.o.crop_size;
  int nw = s.w, nh = s.h;
  if (s.h >= s.w && s.w < len) {
    TF_RETURN_IF_ERROR(step_size(s, "crop_img's upscale", len,
                                 std::trunc(static_cast<double>(s.h) * len / s.w), &nw, &nh));
  } else if (s.h < s.w && s.h < len) {
    TF_RETURN_IF_ERROR(step_size(s, "crop_img's upscale",
                                 std::trunc(static_cast<double>(s.w) * len / s.h), len, &nw, &nh));
  }
  if (nw != s.w || nh != s.h) {
    const double rw = static_cast<double>(nw) / s.w, rh = static_cast<double>(nh) / s.h;
    for (size_t k = 0; k < s.v.size(); ++k) s.v[k] *= (k % 2 == 0) ? rw : rh;
    s.pix.resize(s.w, s.h, nw, nh);
    s.w = nw, s.h = nh;
  }
  s.plan.upscaled = {s.w, s.h};
  return Status();
}

// The hulls of the valid words, in word order: the crop search tests only these.
std::vector<WordHull> valid_word_hulls(const PlanState& s) {
  std::vector<WordHull> words;
  for (size_t i = 0; i < s.plan.labels.size(); ++i) {
    if (s.plan.labels[i] != kLabelValid) continue;
    const auto pts = quad_points(std::span<const double, 8>(s.v.data() + 8 * i, 8));
    WordHull wh;
    wh.hull = convex_hull(pts);
    wh.area = polygon_area(wh.hull);
    wh.xmin = std::min({pts[0].x, pts[1].x, pts[2].x, pts[3].x});
    wh.xmax = std::max({pts[0].x, pts[1].x, pts[2].x, pts[3].x});
    wh.ymin = std::min({pts[0].y, pts[1].y, pts[2].y, pts[3].y});
    wh.ymax = std::max({pts[0].y, pts[1].y, pts[2].y, pts[3].y});
    words.push_back(std::move(wh));
  }
  return words;
}

// crop_img's search: two draws per try until a position cuts no valid word or crop_max_tries
// run out (the last position is then kept: plan.fallback).
void search_crop(PlanState& s, const std::vector<WordHull>& words) {
  const AugmentOptions& o = s.o;
  const int len = o.crop_size;
  const int remain_w = s.w - len, remain_h = s.h - len;
  int sw = 0, sh = 0, tries = 0;
  bool cut = true;
  while (cut && tries < o.crop_max_tries) {
    ++tries;
    sw = static_cast<int>(s.rng.uniform() * remain_w);
    sh = static_cast<int>(s.rng.uniform() * remain_h);
    cut = !words.empty() && cuts_a_word(words, sw, sh, len, o.cut_low, o.cut_high);
  }
  s.plan.crop_x = sw;
  s.plan.crop_y = sh;
  s.plan.tries = tries;
  s.plan.fallback = cut;
}

// crop_fallback = kIgnoreCut: the valid words the kept position cuts become ignored.
void ignore_cut_words(PlanState& s, const std::vector<WordHull>& words) {
  const AugmentOptions& o = s.o;
  GeometryPlan& p = s.plan;
  for (size_t i = 0, wi = 0; i < p.labels.size(); ++i) {
    if (p.labels[i] != kLabelValid) continue;
    if (cuts_a_word({words[wi]}, p.crop_x, p.crop_y, o.crop_size, o.cut_low, o.cut_high))
      p.labels[i] = kLabelIgnored;
    ++wi;
  }
}

// crop_img: upscale, search a position, then move vertices and pixels into the crop's frame.
Status crop_img(PlanState& s) {
  TF_RETURN_IF_ERROR(upscale_for_crop(s));
  const std::vector<WordHull> words = valid_word_hulls(s);
  search_crop(s, words);
  if (s.plan.fallback && s.o.crop_fallback == CropFallback::kIgnoreCut) ignore_cut_words(s, words);
  const int sw = s.plan.crop_x, sh = s.plan.crop_y;
  for (size_t k = 0; k < s.v.size(); ++k) s.v[k] -= (k % 2 == 0) ? sw : sh;
  const double shift[6] = {1, 0, -static_cast<double>(sw), 0, 1, -static_cast<double>(sh)};
  s.pix.then(shift);
  return Status();
}

}  // namespace

Status plan_geometry(GeometryPlan& p, int src_w, int src_h, std::span<const Quad> quads,
                     std::span<const unsigned char> labels, const AugmentOptions& o, Rng& rng,
                     bool pre_resized) {
  if (src_w <= 0 || src_h <= 0)
    return Status::invalid_argument("plan: empty source image " + std::to_string(src_w) + "x" +
                                    std::to_string(src_h));
  if (quads.size() != labels.size())
    return Status::invalid_argument("plan: quads and labels differ in count");
  const int64_t draws0 = rng.draws();
  PlanState s{p,       o, rng, src_w, src_h, src_w, src_h, std::vector<double>(8 * quads.size()),
              Affine()};
  for (size_t i = 0; i < quads.size(); ++i)
    std::copy(quads[i].xy.begin(), quads[i].xy.end(), s.v.begin() + 8 * i);
  p.labels.assign(labels.begin(), labels.end());
  p.source = {src_w, src_h};
  if (o.image_size > 0 && !pre_resized) TF_RETURN_IF_ERROR(resize_img(s));
  p.resized = {s.w, s.h};
  TF_RETURN_IF_ERROR(adjust_height(s));
  rotate_img(s);
  TF_RETURN_IF_ERROR(crop_img(s));
  p.vertices = std::move(s.v);
  std::copy(s.pix.a, s.pix.a + 6, p.matrix);
  p.draws = rng.draws() - draws0;
  return Status();
}

}  // namespace textfeed::augment
