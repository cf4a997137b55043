// The geometric chain on vertices, in the reference's order and arithmetic, and the pixel matrix.
//
// Two conventions meet here. The reference moves vertices with x' = x * s (corner convention) but
// resamples pixels with PIL, which maps pixel centres: x' + 0.5 = (x + 0.5) * s. The vertices
// follow the reference exactly (targets must match); the pixel matrix follows PIL (pixels must
// match). The two differ by 0.5 * (s - 1) px per resize: a property of the reference, kept.
#include "augment/plan.h"

#include <algorithm>
#include <cmath>

#include "augment/polygon.h"

namespace textfeed::augment {
namespace {

// 3x3 affine, row-major, last row implicit (0 0 1).
struct Affine {
  double a[6] = {1, 0, 0, 0, 1, 0};
  // this = m * this (apply m after this).
  void then(const double m[6]) {
    const double r[6] = {m[0] * a[0] + m[1] * a[3], m[0] * a[1] + m[1] * a[4], m[0] * a[2] + m[1] * a[5] + m[2],
                         m[3] * a[0] + m[4] * a[3], m[3] * a[1] + m[4] * a[4], m[3] * a[2] + m[4] * a[5] + m[5]};
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

bool cuts_a_word(const std::vector<WordHull>& words, double x0, double y0, double len, double low, double high) {
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

// `w` x `h`, the size a step computed, as ints; kInvalidArgument naming the step when it is
// empty or too large.
Status step_size(const char* step, int src_w, int src_h, double w, double h, int* out_w, int* out_h) {
  if (!(w >= 1 && h >= 1 && w <= kMaxSidePx && h <= kMaxSidePx))
    return Status::invalid_argument("plan: a " + std::to_string(src_w) + "x" + std::to_string(src_h) +
                                    " image is " + std::to_string(static_cast<int64_t>(std::min(w, 1e18))) + "x" +
                                    std::to_string(static_cast<int64_t>(std::min(h, 1e18))) + " after " + step +
                                    ": its aspect ratio is too extreme to train on");
  *out_w = static_cast<int>(w);
  *out_h = static_cast<int>(h);
  return Status();
}

}  // namespace

Status plan_geometry(GeometryPlan& p, int src_w, int src_h, std::span<const Quad> quads,
                     std::span<const unsigned char> labels, const AugmentOptions& o, Rng& rng, bool pre_resized) {
  if (src_w <= 0 || src_h <= 0)
    return Status::invalid_argument("plan: empty source image " + std::to_string(src_w) + "x" + std::to_string(src_h));
  if (quads.size() != labels.size()) return Status::invalid_argument("plan: quads and labels differ in count");
  const int64_t draws0 = rng.draws();
  const size_t n = quads.size();
  // Vertices as the reference holds them: UP keeps float32 until rotate (every product rounds to
  // float32, with the factor rounded to float32 first, as numpy does for a float32 array times a
  // Python float); SR holds int64 (y truncates after adjust_height); float64 after rotate.
  std::vector<double> v(8 * n);
  for (size_t i = 0; i < n; ++i) std::copy(quads[i].xy.begin(), quads[i].xy.end(), v.begin() + 8 * i);
  p.labels.assign(labels.begin(), labels.end());
  p.source = {src_w, src_h};
  Affine pix;

  // resize_img: longer side to image_size, vertices *= r on both axes.
  int w = src_w, h = src_h;
  if (o.image_size > 0 && !pre_resized) {
    const double r = static_cast<double>(o.image_size) / std::max(w, h);
    int nw = 0, nh = 0;
    TF_RETURN_IF_ERROR(step_size("resize_img", src_w, src_h, w > h ? o.image_size : std::trunc(w * r),
                                 w > h ? std::trunc(h * r) : o.image_size, &nw, &nh));
    if (o.vertices_f32) {
      const float rf = static_cast<float>(r);
      for (double& x : v) x = static_cast<float>(x) * rf;
    } else {
      for (double& x : v) x *= r;
    }
    pix.resize(w, h, nw, nh);
    w = nw, h = nh;
  }
  p.resized = {w, h};

  // adjust_height: one draw; new_h = np.around(h * ratio) (half to even); y *= new_h / h.
  const double ratio_h = 1 + o.height_jitter * (rng.uniform() * 2 - 1);
  p.height_ratio = ratio_h;
  int new_h = 0, same_w = 0;
  TF_RETURN_IF_ERROR(step_size("adjust_height", src_w, src_h, w, std::nearbyint(h * ratio_h), &same_w, &new_h));
  const double fy = static_cast<double>(new_h) / h;
  for (size_t k = 1; k < v.size(); k += 2) {
    if (o.vertices_f32) {
      v[k] = static_cast<float>(v[k]) * static_cast<float>(fy);
    } else if (o.int_vertices) {
      v[k] = std::trunc(v[k] * fy);  // SR: int64 vertices truncate on assignment
    } else {
      v[k] *= fy;
    }
  }
  pix.resize(w, h, w, new_h);
  h = new_h;
  p.adjusted = {w, h};

  // rotate_img: PIL rotate(angle) turns the image counter-clockwise; vertices by -angle.
  const double angle = o.rotate_deg * (rng.uniform() * 2 - 1);
  p.angle_deg = angle;
  {
    const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
    const double theta = -angle / 180 * 3.14159265358979323846;
    const double c = std::cos(theta), s = std::sin(theta);
    for (size_t i = 0; i < n; ++i)
      for (int k = 0; k < 4; ++k) {
        const double dx = v[8 * i + 2 * k] - cx, dy = v[8 * i + 2 * k + 1] - cy;
        v[8 * i + 2 * k] = (c * dx + (-s) * dy) + cx;
        v[8 * i + 2 * k + 1] = (s * dx + c * dy) + cy;
      }
    const double m[6] = {c, -s, cx - c * cx + s * cy, s, c, cy - s * cx - c * cy};
    pix.then(m);
  }

  // crop_img: upscale so the shorter side is at least L, then search a position.
  p.before_crop = {w, h};
  const int len = o.crop_size;
  int nw = w, nh = h;
  if (h >= w && w < len) {
    TF_RETURN_IF_ERROR(step_size("crop_img's upscale", src_w, src_h, len, std::trunc(static_cast<double>(h) * len / w),
                                 &nw, &nh));
  } else if (h < w && h < len) {
    TF_RETURN_IF_ERROR(step_size("crop_img's upscale", src_w, src_h, std::trunc(static_cast<double>(w) * len / h), len,
                                 &nw, &nh));
  }
  if (nw != w || nh != h) {
    const double rw = static_cast<double>(nw) / w, rh = static_cast<double>(nh) / h;
    for (size_t k = 0; k < v.size(); ++k) v[k] *= (k % 2 == 0) ? rw : rh;
    pix.resize(w, h, nw, nh);
    w = nw, h = nh;
  }
  p.upscaled = {w, h};
  std::vector<WordHull> words;
  for (size_t i = 0; i < n; ++i) {
    if (p.labels[i] != kLabelValid) continue;
    const auto pts = quad_points(std::span<const double, 8>(v.data() + 8 * i, 8));
    WordHull wh;
    wh.hull = convex_hull(pts);
    wh.area = polygon_area(wh.hull);
    wh.xmin = std::min({pts[0].x, pts[1].x, pts[2].x, pts[3].x});
    wh.xmax = std::max({pts[0].x, pts[1].x, pts[2].x, pts[3].x});
    wh.ymin = std::min({pts[0].y, pts[1].y, pts[2].y, pts[3].y});
    wh.ymax = std::max({pts[0].y, pts[1].y, pts[2].y, pts[3].y});
    words.push_back(std::move(wh));
  }
  const int remain_w = w - len, remain_h = h - len;
  int sw = 0, sh = 0, tries = 0;
  bool cut = true;
  while (cut && tries < o.crop_max_tries) {
    ++tries;
    sw = static_cast<int>(rng.uniform() * remain_w);
    sh = static_cast<int>(rng.uniform() * remain_h);
    cut = !words.empty() && cuts_a_word(words, sw, sh, len, o.cut_low, o.cut_high);
  }
  p.crop_x = sw;
  p.crop_y = sh;
  p.tries = tries;
  p.fallback = cut;
  if (cut && o.crop_fallback == CropFallback::kIgnoreCut) {
    for (size_t i = 0, wi = 0; i < n; ++i) {
      if (p.labels[i] != kLabelValid) continue;
      if (cuts_a_word({words[wi]}, sw, sh, len, o.cut_low, o.cut_high)) p.labels[i] = kLabelIgnored;
      ++wi;
    }
  }
  for (size_t k = 0; k < v.size(); ++k) v[k] -= (k % 2 == 0) ? sw : sh;
  const double shift[6] = {1, 0, -static_cast<double>(sw), 0, 1, -static_cast<double>(sh)};
  pix.then(shift);
  p.vertices = std::move(v);
  std::copy(pix.a, pix.a + 6, p.matrix);
  p.draws = rng.draws() - draws0;
  return Status();
}

}  // namespace textfeed::augment
