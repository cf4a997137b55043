// mmocr's DBNet targets (mmocr_targets.h). The threshold map keeps the reference's NumPy precision
// step by step: pixel distances in float64, the edge's squared length and its guard in float32
// (they are NumPy float32 scalars there), the per-edge distance map in float32. This file is built
// with -ffp-contract=off so that no multiply-add is fused.
#include "augment/db/mmocr_targets.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <limits>
#include <opencv2/imgproc.hpp>
#include <string>
#include <utility>

#include "augment/geometry/offset.h"

namespace textfeed::augment {
namespace {

constexpr std::string_view kWho = "DB (mmocr) targets";
constexpr double kMinArea = 1.0;  // _is_poly_invalid: |area| < 1 is invalid

std::string word_name(size_t k) { return std::string(kWho) + ": polygon " + std::to_string(k); }

// A word's float32 vertices and shapely's measure of them.
struct FloatWord {
  std::span<const float> xy;
  RingMeasure ring;
};

Result<std::vector<FloatWord>> float_words(const TextKernelWords& words) {
  std::vector<FloatWord> out(words.npts.size());
  size_t start = 0;
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].xy = words.xy.subspan(start, 2 * static_cast<size_t>(words.npts[k]));
    start += out[k].xy.size();
    const std::vector<double> xy(out[k].xy.begin(), out[k].xy.end());
    Result<RingMeasure> ring = shapely_ring_measure(xy);
    if (!ring.ok()) return ring.status().with_context(word_name(k));
    out[k].ring = *ring;
  }
  return out;
}

// _is_poly_invalid: |shapely area| < 1, or the shorter side of cv2.minAreaRect (on the float32
// vertices) below min_sidelength. A thin diagonal word is invalid even with a large bounding box.
bool is_invalid(const FloatWord& w) {
  if (std::fabs(w.ring.area) < kMinArea) return true;
  std::vector<cv::Point2f> pts;
  for (size_t i = 0; i + 1 < w.xy.size(); i += 2) pts.emplace_back(w.xy[i], w.xy[i + 1]);
  const cv::Size2f size = cv::minAreaRect(pts).size;
  return std::min(size.width, size.height) < kMmocrDbMinSidelengthPx;
}

std::vector<int32_t> truncated(std::span<const float> xy) {
  std::vector<int32_t> out(xy.size());
  for (size_t i = 0; i < xy.size(); ++i) out[i] = static_cast<int32_t>(xy[i]);
  return out;
}

// a[start:stop] on an axis of n: Python's slice rules (a negative end counts from the end, then
// both are clamped to [0, n]).
struct AxisSlice {
  long start = 0;
  long length = 0;
};

AxisSlice numpy_slice(long start, long stop, long n) {
  const auto norm = [n](long i) { return std::clamp(i < 0 ? i + n : i, 0L, n); };
  const long a = norm(start), b = norm(stop);
  return {a, std::max(0L, b - a)};
}

// One axis of _draw_border_map's final assignment: the canvas range [lo, hi] it writes and the
// part of the box's distance map it reads, box[lo - min : hi - max + extent]. Inside the canvas the
// two agree; a box wholly right of or below the canvas reads one far column (or row) through
// numpy's negative indexing, or an empty slice, which cannot broadcast (the reference raises).
struct Axis {
  long lo = 0, hi = 0;  // canvas range, inclusive
  AxisSlice src;        // box-frame range read (length 1 broadcasts)
  bool skip = false;    // the box lies wholly before the canvas: nothing drawn
  bool ok() const { return src.length == hi - lo + 1 || src.length == 1; }
  long source(long t) const { return src.start + (src.length == 1 ? 0 : t); }
};

Axis plan_axis(long box_min, long box_max, long canvas) {
  const long extent = box_max - box_min + 1;
  Axis a;
  a.lo = std::min(std::max(0L, box_min), canvas - 1);
  a.hi = std::min(std::max(0L, box_max), canvas - 1);
  a.skip = a.lo - box_min >= extent;
  a.src = numpy_slice(a.lo - box_min, a.hi - box_max + extent, extent);
  return a;
}

// One edge in the box frame: its ends (float32 values, widened) and, as NumPy float32 scalars,
// its squared length c2 and the guard eps + c2 of the distance's denominator.
struct Edge {
  double x1, y1, x2, y2, c2, guard;
};

Edge make_edge(float x1, float y1, float x2, float y2) {
  const float dx = x1 - x2, dy = y1 - y2;
  const float c2 = dx * dx + dy * dy;
  const float guard = FLT_EPSILON + c2;
  return {x1, y1, x2, y2, static_cast<double>(c2), static_cast<double>(guard)};
}

// _dist_points2line at pixel (x, y) of the box frame, divided by `distance`, clipped to [0, 1].
float edge_value(const Edge& e, double x, double y, double distance) {
  const double ax = x - e.x1, ay = y - e.y1, bx = x - e.x2, by = y - e.y2;
  const double a2 = ax * ax + ay * ay, b2 = bx * bx + by * by;
  const double ab = a2 * b2;
  double neg_cos = (e.c2 - a2 - b2) / (static_cast<double>(FLT_EPSILON) + 2 * std::sqrt(ab));
  // c2's float32 rounding can push |-cos| past 1 near the edge; the clip keeps 1 - cos^2 >= 0
  // (PaddleOCR's formula has no clip and gives NaN there).
  neg_cos = std::clamp(neg_cos, -1.0, 1.0);
  const double sin2 = 1 - neg_cos * neg_cos;
  const double d = neg_cos < 0 ? std::sqrt(std::fmin(a2, b2)) : std::sqrt(ab * sin2 / e.guard);
  return static_cast<float>(std::clamp(d / distance, 0.0, 1.0));
}

// How far from an edge a pixel can still score below 1: the distance plus a pixel, widened for
// the float32 rounding of c2 (relative 2^-22 at most), which can move the reference's squared
// distance by up to c2 * 2^-21 (docs/targets.md §9.1). Farther pixels score 1, the min's identity.
constexpr double kC2Slack = 1.0 / (1 << 20);

double edge_reach(const Edge& e, double distance) {
  return std::sqrt((distance + 1) * (distance + 1) + e.c2 * kC2Slack) + 1;
}

// An x-interval of one row; empty when lo > hi.
struct XSpan {
  double lo = 1, hi = 0;
  void add(double a, double b) {
    if (a > b) return;
    if (lo > hi) {
      lo = a, hi = b;
    } else {
      lo = std::min(lo, a), hi = std::max(hi, b);
    }
  }
};

// The x-range where a * x + b lies in [lo, hi], intersected into [x0, x1].
void linear_range(double a, double b, double lo, double hi, double& x0, double& x1) {
  if (a == 0) {
    if (b < lo || b > hi) x0 = 1, x1 = 0;
    return;
  }
  double u = (lo - b) / a, v = (hi - b) / a;
  if (u > v) std::swap(u, v);
  x0 = std::max(x0, u), x1 = std::min(x1, v);
}

// Row y's pixels within `reach` of the segment: the hull of the row's cuts through the two end
// disks and the strip beside the segment (their union is convex, so the cut is one interval).
XSpan row_span(const Edge& e, double y, double reach) {
  XSpan s;
  for (const auto& [px, py] : {std::pair{e.x1, e.y1}, std::pair{e.x2, e.y2}}) {
    const double dy = y - py;
    if (std::fabs(dy) > reach) continue;
    const double half = std::sqrt(reach * reach - dy * dy);
    s.add(px - half, px + half);
  }
  const double ex = e.x2 - e.x1, ey = e.y2 - e.y1, len2 = ex * ex + ey * ey;
  if (len2 > 0) {
    double x0 = -std::numeric_limits<double>::infinity(), x1 = -x0;
    const double len = std::sqrt(len2);
    linear_range(ey, -e.x1 * ey - (y - e.y1) * ex, -reach * len, reach * len, x0, x1);  // cross
    linear_range(ex, -e.x1 * ex + (y - e.y1) * ey, 0, len2, x0, x1);  // projection
    s.add(x0, x1);
  }
  return s;
}

// The word's distance map (min over edges) on the box pixels the canvas reads: `dist` holds
// ay.src.length rows of ax.src.length, 1 where no edge comes near.
void distance_map(const std::vector<Edge>& edges, double distance, const Axis& ax, const Axis& ay,
                  std::vector<float>& dist) {
  dist.assign(static_cast<size_t>(ay.src.length * ax.src.length), 1.0f);
  const double first_x = static_cast<double>(ax.src.start);
  const double last_x = static_cast<double>(ax.src.start + ax.src.length - 1);
  for (const Edge& e : edges) {
    const double reach = edge_reach(e, distance);
    for (long r = 0; r < ay.src.length; ++r) {
      const double y = static_cast<double>(ay.src.start + r);
      const XSpan s = row_span(e, y, reach);
      const double lo = std::max(std::ceil(s.lo), first_x), hi = std::min(std::floor(s.hi), last_x);
      float* row = dist.data() + r * ax.src.length;
      for (double x = lo; x <= hi; x += 1) {
        float& m = row[static_cast<long>(x - first_x)];
        m = std::min(m, edge_value(e, x, y, distance));
      }
    }
  }
}

// The distance map of one word folded into the canvas by np.fmax(1 - map, canvas).
void fold_border(std::span<const float> xy, const float shift[2], double distance, const Axis& ax,
                 const Axis& ay, cv::Mat& canvas) {
  const size_t n = xy.size() / 2;
  std::vector<Edge> edges(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t j = (i + 1) % n;
    // polygon - x_min runs in float32 (an int32 scalar against a float32 array).
    edges[i] = make_edge(xy[2 * i] - shift[0], xy[2 * i + 1] - shift[1], xy[2 * j] - shift[0],
                         xy[2 * j + 1] - shift[1]);
  }
  std::vector<float> dist;
  distance_map(edges, distance, ax, ay, dist);
  for (long y = ay.lo; y <= ay.hi; ++y) {
    float* row = canvas.ptr<float>(static_cast<int>(y));
    const long r = ay.source(y - ay.lo) - ay.src.start;
    for (long x = ax.lo; x <= ax.hi; ++x) {
      const long c = ax.source(x - ax.lo) - ax.src.start;
      row[x] = std::max(1.0f - dist[static_cast<size_t>(r * ax.src.length + c)], row[x]);
    }
  }
}

void fill(cv::Mat& plane, std::span<const int32_t> xy, double value) {
  std::vector<cv::Point> pts;
  for (size_t i = 0; i + 1 < xy.size(); i += 2) pts.emplace_back(xy[i], xy[i + 1]);
  const cv::Point* p = pts.data();
  const int n = static_cast<int>(pts.size());
  cv::fillPoly(plane, &p, &n, 1, cv::Scalar(value));
}

// _draw_border_map for one kept word k.
Status draw_border(const FloatWord& w, size_t k, cv::Mat& canvas, cv::Mat& mask) {
  const double distance = w.ring.area * (1 - std::pow(kMmocrDbShrinkRatio, 2)) / w.ring.length;
  const std::vector<int32_t> vertices = truncated(w.xy);  // pyclipper's conversion, and astype
  Result<std::vector<int32_t>> grown = offset_polygon(vertices, distance);
  if (!grown.ok()) return grown.status().with_context(word_name(k));
  // An offset that gives nothing falls back to the word itself (truncated).
  const std::vector<int32_t>& expanded = grown->empty() ? vertices : *grown;
  long box[4] = {std::numeric_limits<long>::max(), std::numeric_limits<long>::max(),
                 std::numeric_limits<long>::min(), std::numeric_limits<long>::min()};
  for (size_t i = 0; i + 1 < expanded.size(); i += 2) {
    box[0] = std::min<long>(box[0], expanded[i]), box[2] = std::max<long>(box[2], expanded[i]);
    box[1] = std::min<long>(box[1], expanded[i + 1]);
    box[3] = std::max<long>(box[3], expanded[i + 1]);
  }
  const Axis ax = plan_axis(box[0], box[2], canvas.cols);
  const Axis ay = plan_axis(box[1], box[3], canvas.rows);
  if (ax.skip || ay.skip) return Status();  // wholly left of or above the canvas
  fill(mask, expanded, 1.0);
  if (!ax.ok() || !ay.ok())
    return Status::invalid_argument(
        word_name(k) + ": its threshold box (x " + std::to_string(box[0]) + ".." +
        std::to_string(box[2]) + ", y " + std::to_string(box[1]) + ".." + std::to_string(box[3]) +
        ") lies right of or below the canvas where the reference's slice of its distance map is "
        "empty (it raises ValueError)");
  const float shift[2] = {static_cast<float>(box[0]), static_cast<float>(box[1])};
  fold_border(w.xy, shift, distance, ax, ay, canvas);
  return Status();
}

// The ignore flags after _is_poly_invalid and the shrink; the shrink map drawn into `shrink`.
Result<std::vector<uint8_t>> shrink_words(const TextKernelWords& words,
                                          const std::vector<FloatWord>& fw,
                                          std::span<float> shrink) {
  std::vector<uint8_t> flags(words.ignored.begin(), words.ignored.end());
  for (size_t k = 0; k < fw.size(); ++k)
    if (is_invalid(fw[k])) flags[k] = 1;
  std::vector<uint8_t> drawn(fw.size());
  Status s = draw_text_kernel(words, kMmocrDbShrinkRatio, kNoShrinkCap, flags, shrink, drawn);
  if (!s.ok()) return s.with_context(kWho);
  for (size_t k = 0; k < fw.size(); ++k)
    if (flags[k] == 0 && drawn[k] == 0) flags[k] = 1;  // no piece kept: ignored from now on
  for (float& v : shrink) v = v > 0 ? 1.0f : 0.0f;
  return flags;
}

}  // namespace

Result<DbMmocrTargets> make_db_mmocr_targets(const TextKernelWords& words) {
  TF_RETURN_IF_ERROR(check_text_kernel_words(words, kWho));
  TF_ASSIGN_OR_RETURN(const std::vector<FloatWord> fw, float_words(words));
  const size_t plane = static_cast<size_t>(words.height) * static_cast<size_t>(words.width);
  DbMmocrTargets out{words.height,
                     words.width,
                     std::vector<float>(plane, 0.0f),
                     std::vector<float>(plane, 1.0f),
                     std::vector<float>(plane, 0.0f),
                     std::vector<float>(plane, 0.0f),
                     {}};
  TF_ASSIGN_OR_RETURN(out.ignored, shrink_words(words, fw, out.shrink));
  fill_ignored_words(words, out.ignored, out.shrink_mask);
  cv::Mat canvas(words.height, words.width, CV_32F, out.thr.data());
  cv::Mat mask(words.height, words.width, CV_32F, out.thr_mask.data());
  for (size_t k = 0; k < fw.size(); ++k)
    if (out.ignored[k] == 0) TF_RETURN_IF_ERROR(draw_border(fw[k], k, canvas, mask));
  // thr_map * (thr_max - thr_min) + thr_min with Python floats against a float32 array: both
  // scalars are rounded to float32 and the arithmetic runs in float32.
  const float scale = static_cast<float>(kMmocrDbThrMax - kMmocrDbThrMin);
  const float offset = static_cast<float>(kMmocrDbThrMin);
  for (float& v : out.thr) {
    const float scaled = v * scale;
    v = scaled + offset;
  }
  return out;
}

}  // namespace textfeed::augment
