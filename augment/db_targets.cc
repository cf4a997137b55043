// DB targets: MakeBorderMap then MakeShrinkMap (docs/targets.md, "DB targets"). Every float step
// keeps NumPy's operation order and precision (float64 distances, float32 storage); this file is
// built with -ffp-contract=off so that no multiply-add is fused. Clipper and GEOS are the
// reference's engines; Clipper's exceptions are caught here and become Status. Past the 500-line
// soft cap because the band kernel comes twice (scalar and SSE2 lanes, which must stay in step)
// beside the two steps it serves; splitting them would scatter one reference function.
#include "augment/db_targets.h"

#include <geos_c.h>
#include <polyclipping/clipper.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>

#include <opencv2/imgproc.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace textfeed::augment {

struct DbScratch::State {
  GEOSContextHandle_t geos = nullptr;
  std::string geos_error;
  std::vector<double> poly;      // one polygon (clipped for the shrink map)
  std::vector<double> band;      // min over edges of the float32 clipped distance, one region
  std::vector<cv::Point> points;  // int32 points for cv::fillPoly
  ClipperLib::Paths solution;

  State() {
    geos = GEOS_init_r();
    GEOSContext_setErrorMessageHandler_r(
        geos, [](const char* message, void* self) { static_cast<State*>(self)->geos_error = message; },
        this);
  }
  ~State() {
    if (geos != nullptr) GEOS_finish_r(geos);
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;
};

DbScratch::DbScratch() = default;
DbScratch::~DbScratch() = default;
DbScratch::DbScratch(DbScratch&&) noexcept = default;
DbScratch& DbScratch::operator=(DbScratch&&) noexcept = default;
DbScratch::State& DbScratch::state() {
  if (!state_) state_ = std::make_unique<State>();
  return *state_;
}

namespace {

std::string word_name(size_t k) { return "DB targets: polygon " + std::to_string(k); }

cv::Mat mat_of(const MutableImageView& v) { return cv::Mat(v.height, v.width, CV_32F, v.data, v.stride_bytes); }

// cv2.fillPoly(img, [pts.astype(np.int32)], value) on one polygon given as doubles (truncated
// toward zero, as astype does; the coordinates are bounded, so the conversion is defined).
void fill_doubles(const MutableImageView& img, std::span<const double> xy, double value,
                  std::vector<cv::Point>& pts) {
  pts.clear();
  for (size_t i = 0; i + 1 < xy.size(); i += 2)
    pts.emplace_back(static_cast<int>(xy[i]), static_cast<int>(xy[i + 1]));
  cv::Mat m = mat_of(img);
  const cv::Point* p = pts.data();
  const int n = static_cast<int>(pts.size());
  cv::fillPoly(m, &p, &n, 1, cv::Scalar(value));
}

void fill_path(const MutableImageView& img, const ClipperLib::Path& path, double value,
               std::vector<cv::Point>& pts) {
  pts.clear();
  for (const ClipperLib::IntPoint& q : path)
    pts.emplace_back(static_cast<int>(q.X), static_cast<int>(q.Y));
  cv::Mat m = mat_of(img);
  const cv::Point* p = pts.data();
  const int n = static_cast<int>(pts.size());
  cv::fillPoly(m, &p, &n, 1, cv::Scalar(value));
}

// shapely.geometry.Polygon(xy).area and .length through GEOS: the ring is closed with the first
// point unless it has 4 or more points and the last already equals the first (shapely 1.8's rule:
// a 3-point ring is closed even when it closes on itself).
Status ring_measure(DbScratch::State& st, std::span<const double> xy, size_t k, double& area,
                    double& length) {
  const size_t n = xy.size() / 2;
  const bool closed = n >= 4 && xy[0] == xy[2 * n - 2] && xy[1] == xy[2 * n - 1];
  const size_t m = closed ? n : n + 1;
  GEOSCoordSequence* seq = GEOSCoordSeq_create_r(st.geos, static_cast<unsigned>(m), 2);
  if (seq == nullptr) return Status::internal(word_name(k) + ": GEOS: " + st.geos_error);
  for (size_t i = 0; i < m; ++i) {
    const size_t j = i % n;
    GEOSCoordSeq_setXY_r(st.geos, seq, static_cast<unsigned>(i), xy[2 * j], xy[2 * j + 1]);
  }
  st.geos_error.clear();
  GEOSGeometry* ring = GEOSGeom_createLinearRing_r(st.geos, seq);  // owns seq, even on failure
  if (ring == nullptr)
    return Status::invalid_argument(word_name(k) + ": not a ring GEOS accepts (" + st.geos_error + ")");
  GEOSGeometry* poly = GEOSGeom_createPolygon_r(st.geos, ring, nullptr, 0);  // owns ring
  if (poly == nullptr) return Status::internal(word_name(k) + ": GEOS: " + st.geos_error);
  const bool ok = GEOSArea_r(st.geos, poly, &area) == 1 && GEOSLength_r(st.geos, poly, &length) == 1;
  GEOSGeom_destroy_r(st.geos, poly);
  if (!ok) return Status::internal(word_name(k) + ": GEOS area/length: " + st.geos_error);
  return Status();
}

// pyclipper's float -> cInt conversion is Python's int(): truncation toward zero.
ClipperLib::Path clipper_path(std::span<const double> xy) {
  ClipperLib::Path path;
  path.reserve(xy.size() / 2);
  for (size_t i = 0; i + 1 < xy.size(); i += 2)
    path.emplace_back(static_cast<ClipperLib::cInt>(xy[i]), static_cast<ClipperLib::cInt>(xy[i + 1]));
  return path;
}

// A PyclipperOffset's Execute: default miter limit 2 and arc tolerance 0.25.
Status offset(ClipperLib::ClipperOffset& co, double delta, ClipperLib::Paths& out, size_t k) {
  try {
    co.Execute(out, delta);
  } catch (const std::exception& e) {
    return Status::internal(word_name(k) + ": Clipper offset failed: " + e.what());
  }
  return Status();
}

// The band of one polygon: coordinates in the band frame (polygon minus the padded bbox's
// integer corner); region [rx0, rx1] x [ry0, ry1] in that frame; band holds the region row-major.
struct BandRegion {
  long rx0, ry0, rx1, ry1;
  double* band;  // float32 values (the reference's storage), held as doubles
};

// The x-range of row `ys` within `reach` of the segment p1 p2: the hull of the row's cuts
// through the two end disks and the strip beside the segment (their union, a stadium, is convex,
// so its cut is one interval). Empty when lo > hi.
struct Span {
  double lo = 1, hi = 0;
  void add(double a, double b) {
    if (a > b) return;
    if (lo > hi) lo = a, hi = b;
    else lo = std::min(lo, a), hi = std::max(hi, b);
  }
};

// a * x + b within [lo, hi], as an x-interval (all x or none when a == 0).
void linear_range(double a, double b, double lo, double hi, double& x0, double& x1) {
  if (a == 0) {
    if (b < lo || b > hi) x0 = 1, x1 = 0;
    return;
  }
  double u = (lo - b) / a, v = (hi - b) / a;
  if (u > v) std::swap(u, v);
  x0 = std::max(x0, u), x1 = std::min(x1, v);
}

Span row_span(double ys, double p1x, double p1y, double p2x, double p2y, double reach) {
  Span s;
  for (const double* p : {&p1x, &p2x}) {
    const double py = p == &p1x ? p1y : p2y, dy = ys - py;
    if (std::fabs(dy) <= reach) {
      const double half = std::sqrt(reach * reach - dy * dy);
      s.add(*p - half, *p + half);
    }
  }
  const double ex = p2x - p1x, ey = p2y - p1y, len2 = ex * ex + ey * ey;
  if (len2 > 0) {
    double x0 = -std::numeric_limits<double>::infinity(), x1 = -x0;
    const double len = std::sqrt(len2);
    linear_range(ey, -p1x * ey - (ys - p1y) * ex, -reach * len, reach * len, x0, x1);  // cross
    linear_range(ex, -p1x * ex + (ys - p1y) * ey, 0, len2, x0, x1);                   // projection
    s.add(x0, x1);
  }
  return s;
}

// One edge in the band frame, and the band width.
struct Edge {
  double p1x, p1y, p2x, p2y, sd, width;
};

// MakeBorderMap._distance at one pixel (dy1, dy2: its squared row offsets from p1 and p2),
// divided by the width, clipped to [0, 1] with NaN kept, and rounded to float32 (returned as a
// double holding that float).
inline double pixel_value(double xs, double dy1, double dy2, const Edge& e) {
  const double sd1 = (xs - e.p1x) * (xs - e.p1x) + dy1;
  const double sd2 = (xs - e.p2x) * (xs - e.p2x) + dy2;
  const double cosin = (e.sd - sd1 - sd2) / (2 * std::sqrt(sd1 * sd2));
  double ss = 1 - cosin * cosin;       // np.nan_to_num:
  ss = ss > DBL_MAX ? DBL_MAX : ss;    //   +inf -> DBL_MAX
  ss = ss < -DBL_MAX ? -DBL_MAX : ss;  //   -inf -> -DBL_MAX
  ss = ss == ss ? ss : 0.0;            //   NaN -> 0
  const double line = std::sqrt(sd1 * sd2 * ss / e.sd);
  const double end = std::sqrt(sd1 < sd2 ? sd1 : sd2);  // np.fmin (no NaN here)
  double v = (cosin < 0 ? end : line) / e.width;
  v = v < 0 ? 0.0 : v;  // np.clip(v, 0, 1): NaN stays NaN
  v = v > 1 ? 1.0 : v;
  return static_cast<double>(static_cast<float>(v));
}

// NumPy's min of two: NaN if either is NaN.
inline double nan_min(double f, double old) {
  return (f != f || old != old) ? std::numeric_limits<double>::quiet_NaN() : (f < old ? f : old);
}

#if defined(__SSE2__)
// pixel_value and nan_min on two adjacent pixels (xs, xs + 1) at once: the same IEEE operations
// lane by lane, selects written as masks.
inline __m128d select(__m128d mask, __m128d a, __m128d b) {
  return _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b));
}

inline void pixel_pair(double xs, double dy1, double dy2, const Edge& e, double* m) {
  const __m128d x = _mm_set_pd(xs + 1, xs), zero = _mm_setzero_pd(), one = _mm_set1_pd(1.0);
  const __m128d a = _mm_sub_pd(x, _mm_set1_pd(e.p1x)), b = _mm_sub_pd(x, _mm_set1_pd(e.p2x));
  const __m128d sd1 = _mm_add_pd(_mm_mul_pd(a, a), _mm_set1_pd(dy1));
  const __m128d sd2 = _mm_add_pd(_mm_mul_pd(b, b), _mm_set1_pd(dy2));
  const __m128d sd = _mm_set1_pd(e.sd), prod = _mm_mul_pd(sd1, sd2);
  const __m128d cosin = _mm_div_pd(_mm_sub_pd(_mm_sub_pd(sd, sd1), sd2),
                                   _mm_mul_pd(_mm_set1_pd(2.0), _mm_sqrt_pd(prod)));
  __m128d ss = _mm_sub_pd(one, _mm_mul_pd(cosin, cosin));
  const __m128d big = _mm_set1_pd(DBL_MAX), nbig = _mm_set1_pd(-DBL_MAX);
  ss = select(_mm_cmpgt_pd(ss, big), big, ss);
  ss = select(_mm_cmplt_pd(ss, nbig), nbig, ss);
  ss = _mm_andnot_pd(_mm_cmpunord_pd(ss, ss), ss);
  const __m128d line = _mm_sqrt_pd(_mm_div_pd(_mm_mul_pd(prod, ss), sd));
  const __m128d end = _mm_sqrt_pd(_mm_min_pd(sd1, sd2));  // sd1 < sd2 ? sd1 : sd2
  __m128d v = _mm_div_pd(select(_mm_cmplt_pd(cosin, zero), end, line), _mm_set1_pd(e.width));
  v = select(_mm_cmplt_pd(v, zero), zero, v);
  v = select(_mm_cmpgt_pd(v, one), one, v);
  const __m128d f = _mm_cvtps_pd(_mm_cvtpd_ps(v));  // the float32 store
  const __m128d old = _mm_loadu_pd(m);
  const __m128d nan = _mm_or_pd(_mm_cmpunord_pd(f, f), _mm_cmpunord_pd(old, old));
  const __m128d lower = _mm_min_pd(f, old);  // f < old ? f : old
  _mm_storeu_pd(m, select(nan, _mm_set1_pd(std::numeric_limits<double>::quiet_NaN()), lower));
}
#endif

// One edge's contribution to the band (MakeBorderMap._distance, clipped by the band width,
// stored as float32 and folded into the per-pixel min with NaN propagating as NumPy's min does).
// The reference's distance is never below the true distance to the segment by more than
// rounding (far under 1 px here) and is NaN only on the segment itself, so a pixel farther than
// width + 1 px from the segment gets exactly 1 and changes nothing: only each row's cut through
// that neighbourhood is computed (floor and ceil of the cut's ends), two pixels at a time where
// SSE2 is there.
void edge_band(const BandRegion& r, const Edge& e) {
  const double reach = e.width + 1;
  const long y0 = std::max(r.ry0, static_cast<long>(std::floor(std::min(e.p1y, e.p2y) - reach)));
  const long y1 = std::min(r.ry1, static_cast<long>(std::ceil(std::max(e.p1y, e.p2y) + reach)));
  const long stride = r.rx1 - r.rx0 + 1;
  for (long y = y0; y <= y1; ++y) {
    const double ys = static_cast<double>(y);
    const Span s = row_span(ys, e.p1x, e.p1y, e.p2x, e.p2y, reach);
    if (s.lo > s.hi) continue;
    const long xa = std::max(r.rx0, static_cast<long>(std::floor(s.lo)));
    const long xb = std::min(r.rx1, static_cast<long>(std::ceil(s.hi)));
    double* m = r.band + (y - r.ry0) * stride + (xa - r.rx0);
    const double dy1 = (ys - e.p1y) * (ys - e.p1y), dy2 = (ys - e.p2y) * (ys - e.p2y);
    const long n = xb - xa + 1;
    long i = 0;
#if defined(__SSE2__)
    for (; i + 1 < n; i += 2) pixel_pair(static_cast<double>(xa + i), dy1, dy2, e, m + i);
#endif
    for (; i < n; ++i) m[i] = nan_min(pixel_value(static_cast<double>(xa + i), dy1, dy2, e), m[i]);
  }
}

struct PaddedBox {
  long xmin, ymin, xmax, ymax;
};

// The band of one polygon folded into the raw canvas (np.fmax keeps the canvas where the band is
// NaN), over the part of the padded bbox inside the canvas only.
void draw_band(DbScratch::State& st, std::span<const double> xy, const PaddedBox& b, double width,
               const MutableImageView& canvas) {
  const long w = canvas.width, h = canvas.height;
  if (b.xmax < 0 || b.ymax < 0 || b.xmin > w - 1 || b.ymin > h - 1) return;  // docs: wholly outside
  const long cx0 = std::max(0L, b.xmin), cx1 = std::min(w - 1, b.xmax);
  const long cy0 = std::max(0L, b.ymin), cy1 = std::min(h - 1, b.ymax);
  const long rw = cx1 - cx0 + 1, rh = cy1 - cy0 + 1;
  st.band.assign(static_cast<size_t>(rw * rh), 1.0);
  const BandRegion r{cx0 - b.xmin, cy0 - b.ymin, cx1 - b.xmin, cy1 - b.ymin, st.band.data()};
  const double fx = static_cast<double>(b.xmin), fy = static_cast<double>(b.ymin);
  const size_t n = xy.size() / 2;
  for (size_t i = 0; i < n; ++i) {
    const size_t j = (i + 1) % n;
    const double p1x = xy[2 * i] - fx, p1y = xy[2 * i + 1] - fy;
    const double p2x = xy[2 * j] - fx, p2y = xy[2 * j + 1] - fy;
    const double sd = (p1x - p2x) * (p1x - p2x) + (p1y - p2y) * (p1y - p2y);
    edge_band(r, Edge{p1x, p1y, p2x, p2y, sd, width});
  }
  for (long y = 0; y < rh; ++y) {
    float* out = reinterpret_cast<float*>(canvas.row(static_cast<int>(cy0 + y))) + cx0;
    const double* m = st.band.data() + y * rw;
    for (long x = 0; x < rw; ++x) {
      const float t = 1.0f - static_cast<float>(m[x]);  // np.fmax: a NaN band keeps the canvas (never NaN)
      if (t > out[x]) out[x] = t;
    }
  }
}

// MakeBorderMap.draw_border_map for one valid polygon.
Status draw_border(DbScratch::State& st, std::span<const double> xy, size_t k, double ratio,
                   const DbTargetViews& out) {
  double area = 0, length = 0;
  TF_RETURN_IF_ERROR(ring_measure(st, xy, k, area, length));
  if (area <= 0) return Status();
  const double width = area * (1 - std::pow(ratio, 2)) / length;
  ClipperLib::ClipperOffset co;
  co.AddPath(clipper_path(xy), ClipperLib::jtRound, ClipperLib::etClosedPolygon);
  TF_RETURN_IF_ERROR(offset(co, width, st.solution, k));
  if (st.solution.empty() || st.solution[0].empty())
    return Status::invalid_argument(word_name(k) +
                                    ": its border offset is empty (the polygon truncates to a "
                                    "degenerate one; the reference raises here)");
  const ClipperLib::Path& padded = st.solution[0];
  fill_path(out.threshold_mask, padded, 1.0, st.points);
  PaddedBox b{std::numeric_limits<long>::max(), std::numeric_limits<long>::max(),
              std::numeric_limits<long>::min(), std::numeric_limits<long>::min()};
  for (const ClipperLib::IntPoint& q : padded) {
    b.xmin = std::min<long>(b.xmin, q.X), b.xmax = std::max<long>(b.xmax, q.X);
    b.ymin = std::min<long>(b.ymin, q.Y), b.ymax = std::max<long>(b.ymax, q.Y);
  }
  draw_band(st, xy, b, width, out.threshold_map);
  return Status();
}

// np.arange(ratio, 1, ratio): length ceil((1 - ratio) / ratio); values start, start + step, then
// start + i * ((start + step) - start), as NumPy's fill does.
std::vector<double> retry_ratios(double r) {
  const double len = std::ceil((1 - r) / r);
  const size_t n = len > 0 ? static_cast<size_t>(std::min(len, 1e6)) : 0;
  std::vector<double> a(n);
  if (n > 0) a[0] = r;
  if (n > 1) a[1] = r + r;
  const double delta = n > 1 ? a[1] - a[0] : 0;
  for (size_t i = 2; i < n; ++i) a[i] = a[0] + static_cast<double>(i) * delta;
  return a;
}

// validate_polygons for one polygon: clipped into the canvas (np.clip), the shoelace area, the
// `abs(area) < 1` rule and the reversal of positive-area polygons. Leaves the result in st.poly.
bool clip_and_orient(DbScratch::State& st, std::span<const double> xy, int h, int w) {
  st.poly.assign(xy.begin(), xy.end());
  const double hi[2] = {static_cast<double>(w - 1), static_cast<double>(h - 1)};
  for (size_t i = 0; i < st.poly.size(); ++i) {
    double v = st.poly[i];
    v = v > 0 ? v : 0.0;
    st.poly[i] = v < hi[i % 2] ? v : hi[i % 2];
  }
  const size_t n = st.poly.size() / 2;
  double area = 0;
  for (size_t i = 0, q = n - 1; i < n; q = i++)
    area += st.poly[2 * i] * st.poly[2 * q + 1] - st.poly[2 * i + 1] * st.poly[2 * q];
  area = area / 2.0;
  if (area > 0)
    for (size_t i = 0; i < n / 2; ++i) {
      std::swap(st.poly[2 * i], st.poly[2 * (n - 1 - i)]);
      std::swap(st.poly[2 * i + 1], st.poly[2 * (n - 1 - i) + 1]);
    }
  return std::fabs(area) < 1;
}

// MakeShrinkMap's loop body for one polygon (already clipped and oriented in st.poly).
Status draw_shrink(DbScratch::State& st, size_t k, const DbTargetOptions& o, const DbTargetViews& out,
                   unsigned char& ignore) {
  const std::span<const double> p(st.poly);
  double xlo = p[0], xhi = p[0], ylo = p[1], yhi = p[1];
  for (size_t i = 0; i < p.size(); i += 2) {
    xlo = std::min(xlo, p[i]), xhi = std::max(xhi, p[i]);
    ylo = std::min(ylo, p[i + 1]), yhi = std::max(yhi, p[i + 1]);
  }
  if (ignore || std::min(yhi - ylo, xhi - xlo) < o.min_text_size) {
    fill_doubles(out.shrink_mask, p, 0.0, st.points);
    ignore = 1;
    return Status();
  }
  double area = 0, length = 0;
  TF_RETURN_IF_ERROR(ring_measure(st, p, k, area, length));
  ClipperLib::ClipperOffset co;
  co.AddPath(clipper_path(p), ClipperLib::jtRound, ClipperLib::etClosedPolygon);
  st.solution.clear();
  for (double ratio : retry_ratios(o.shrink_ratio)) {
    const double distance = area * (1 - std::pow(ratio, 2)) / length;
    TF_RETURN_IF_ERROR(offset(co, -distance, st.solution, k));
    if (st.solution.size() == 1) break;
  }
  if (st.solution.empty()) {
    fill_doubles(out.shrink_mask, p, 0.0, st.points);
    ignore = 1;
    return Status();
  }
  for (const ClipperLib::Path& piece : st.solution) fill_path(out.shrink_map, piece, 1.0, st.points);
  return Status();
}

Status check_views(const DbTargetViews& out) {
  const MutableImageView* v[4] = {&out.threshold_map, &out.threshold_mask, &out.shrink_map,
                                  &out.shrink_mask};
  const int h = out.threshold_map.height, w = out.threshold_map.width;
  if (h < 1 || w < 1 || h > kMaxDbCanvasSide || w > kMaxDbCanvasSide)
    return Status::invalid_argument("DB targets: canvas " + std::to_string(h) + " x " +
                                    std::to_string(w) + " outside 1.." +
                                    std::to_string(kMaxDbCanvasSide) + " px per side");
  for (const MutableImageView* m : v)
    if (m->data == nullptr || m->height != h || m->width != w || m->channels != 1 ||
        m->dtype != DType::kF32 || m->stride_bytes < static_cast<ptrdiff_t>(4 * w))
      return Status::invalid_argument("DB targets: the four views must be float32 " +
                                      std::to_string(h) + " x " + std::to_string(w) + ", 1 channel");
  return Status();
}

Status check_polygons(const PolygonsView& polys, size_t labels, size_t ignore_out) {
  if (labels != polys.size() || ignore_out != polys.size())
    return Status::invalid_argument("DB targets: " + std::to_string(polys.size()) + " polygons, " +
                                    std::to_string(labels) + " labels, " +
                                    std::to_string(ignore_out) + " ignore tags");
  if (!polys.consistent())
    return Status::invalid_argument("DB targets: " + std::to_string(polys.xy.size()) +
                                    " coordinates do not make the polygons their ends say");
  for (size_t k = 0; k < polys.size(); ++k) {
    const size_t n = polys.points(k);
    if (n < 3 || n > kMaxDbPolygonPoints)
      return Status::invalid_argument(word_name(k) + " has " + std::to_string(n) +
                                      " points (3.." + std::to_string(kMaxDbPolygonPoints) + ")");
    for (double c : polys.word(k))
      if (!(std::fabs(c) <= kMaxDbCoordinate))
        return Status::invalid_argument(word_name(k) + ": coordinate " + std::to_string(c) +
                                        " is not finite or beyond +-1e6 px");
  }
  return Status();
}

void fill_view(const MutableImageView& v, float value) {
  for (int y = 0; y < v.height; ++y) std::fill_n(reinterpret_cast<float*>(v.row(y)), v.width, value);
}

void clear_views(const DbTargetViews& out) {
  fill_view(out.threshold_map, 0.f);
  fill_view(out.threshold_mask, 0.f);
  fill_view(out.shrink_map, 0.f);
  fill_view(out.shrink_mask, 1.f);
}

// canvas * (thresh_max - thresh_min) + thresh_min in float32 (NumPy casts the Python scalars to
// the array's float32).
void scale_threshold(const MutableImageView& m, const DbTargetOptions& o) {
  const float a = static_cast<float>(o.thresh_max - o.thresh_min);
  const float b = static_cast<float>(o.thresh_min);
  for (int y = 0; y < m.height; ++y) {
    float* row = reinterpret_cast<float*>(m.row(y));
    for (int x = 0; x < m.width; ++x) {
      const float t = row[x] * a;
      row[x] = t + b;
    }
  }
}

}  // namespace

Status validate(const DbTargetOptions& o) {
  if (!(o.shrink_ratio > 0 && o.shrink_ratio < 1))
    return Status::invalid_argument("DB targets: shrink_ratio = " + std::to_string(o.shrink_ratio) +
                                    " (expected 0 < shrink_ratio < 1)");
  if (!(o.thresh_min >= 0 && o.thresh_min <= o.thresh_max && o.thresh_max <= 1))
    return Status::invalid_argument("DB targets: thresh_min = " + std::to_string(o.thresh_min) +
                                    ", thresh_max = " + std::to_string(o.thresh_max) +
                                    " (expected 0 <= thresh_min <= thresh_max <= 1)");
  if (!(o.min_text_size >= 0 && o.min_text_size <= kMaxDbCanvasSide))
    return Status::invalid_argument("DB targets: min_text_size = " +
                                    std::to_string(o.min_text_size) + " (expected 0..16384 px)");
  return Status();
}

double db_shrink_ratio(double base, int epoch, int total_epochs) {
  return base + 0.2 * epoch / static_cast<double>(total_epochs);
}

Status make_db_targets(const DbTargetViews& out, const PolygonsView& polygons,
                       std::span<const unsigned char> labels, const DbTargetOptions& options,
                       DbScratch& scratch, std::span<unsigned char> ignore_out) {
  TF_RETURN_IF_ERROR(validate(options));
  TF_RETURN_IF_ERROR(check_views(out));
  TF_RETURN_IF_ERROR(check_polygons(polygons, labels.size(), ignore_out.size()));
  DbScratch::State& st = scratch.state();
  if (st.geos == nullptr) return Status::internal("DB targets: GEOS_init_r failed");
  clear_views(out);
  for (size_t k = 0; k < polygons.size(); ++k)
    if (labels[k] != 0) TF_RETURN_IF_ERROR(draw_border(st, polygons.word(k), k, options.shrink_ratio, out));
  scale_threshold(out.threshold_map, options);
  const int h = out.threshold_map.height, w = out.threshold_map.width;
  for (size_t k = 0; k < polygons.size(); ++k) {
    ignore_out[k] = labels[k] == 0;
    if (clip_and_orient(st, polygons.word(k), h, w)) ignore_out[k] = 1;
    TF_RETURN_IF_ERROR(draw_shrink(st, k, options, out, ignore_out[k]));
  }
  return Status();
}

std::vector<TargetTensor> DbTargetBuilder::tensors(int crop_size) const {
  return {
      {"threshold_map", DType::kF32, 1, crop_size},
      {"threshold_mask", DType::kF32, 1, crop_size},
      {"shrink_map", DType::kF32, 1, crop_size},
      {"shrink_mask", DType::kF32, 1, crop_size},
  };
}

Status DbTargetBuilder::build(std::span<const MutableImageView> out, const PolygonsView& words,
                              std::span<const unsigned char> labels, int crop_size) {
  if (out.size() != 4)
    return Status::invalid_argument("DB targets: " + std::to_string(out.size()) +
                                    " views for 4 tensors (threshold_map, threshold_mask, "
                                    "shrink_map, shrink_mask)");
  for (const MutableImageView& v : out)
    if (v.height != crop_size || v.width != crop_size)
      return Status::invalid_argument("DB targets: a view of " + std::to_string(v.height) + " x " +
                                      std::to_string(v.width) + " for a crop of side " +
                                      std::to_string(crop_size));
  ignore_.assign(words.size(), 0);
  return make_db_targets(DbTargetViews{out[0], out[1], out[2], out[3]}, words, labels, options_,
                         scratch_, ignore_);
}

}  // namespace textfeed::augment
