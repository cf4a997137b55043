// mmocr's TextDetRandomCropFlip on a ChainState (crop_flip.h). The free rows and columns come from
// OpenCV's minAreaRect (the reference's own call, on the same truncated integer points) and the
// "does this box cut a word" test from GEOS as shapely 1.8 drives it; GEOS's errors stop here and
// become Status.
#include "augment/mmocr/crop_flip.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "augment/geometry/shapely_geos.h"

namespace textfeed::augment::mmocr {
namespace {

constexpr std::string_view kStep = "TextDetRandomCropFlip";
// The config's arguments (fcenet/_base_fcenet_resnet50_fpn.py) and the class's defaults.
constexpr double kPadRatio = 0.1;
constexpr double kCropRatio = 0.5;
constexpr double kMinAreaRatio = 0.2;
constexpr double kEpsilon = 1e-2;  // px^2: "wholly inside" / "wholly outside" tolerance
constexpr int kMaxAttempts = 10;
constexpr int kIterations = 1;
// shapely 1.8's buffer(0): round caps and joins, 16 segments per quadrant.
constexpr int kBufferQuadSegs = 16;
constexpr size_t kMinRingPoints = 3;

using augment::GeosContext;
using augment::GeosGeometry;
using augment::own;
using augment::shapely_polygon;

// numpy's float -> integer cast on x86-64: truncation toward zero; NaN and values out of range
// give the type's minimum (what cvttsd2si yields), never undefined behaviour here.
template <class Int>
Int truncate_like_numpy(double v) {
  constexpr double lo = static_cast<double>(std::numeric_limits<Int>::min());
  constexpr double hi = -lo;  // 2^(bits-1), exact in double
  if (!(v > lo - 1.0 && v < hi)) return std::numeric_limits<Int>::min();
  return static_cast<Int>(v);
}

// mmocr's poly_make_valid: the polygon if valid, else buffer(0), and the convex hull of that when
// it is not a single polygon.
Result<GeosGeometry> make_valid(const GeosContext& geos, const GEOSGeometry* g) {
  GEOSContextHandle_t ctx = geos.handle();
  const char valid = GEOSisValid_r(ctx, g);
  if (valid == 2) return Status::internal("GEOS isValid failed: " + geos.error());
  GeosGeometry fixed =
      own(geos, valid == 1 ? GEOSGeom_clone_r(ctx, g) : GEOSBuffer_r(ctx, g, 0.0, kBufferQuadSegs));
  if (!fixed) return Status::internal("GEOS buffer(0) failed: " + geos.error());
  if (GEOSGeomTypeId_r(ctx, fixed.get()) == GEOS_POLYGON) return fixed;
  GeosGeometry hull = own(geos, GEOSConvexHull_r(ctx, fixed.get()));
  if (!hull) return Status::internal("GEOS convex hull failed: " + geos.error());
  return hull;
}

// mmocr's poly_intersection(a, b) (no invalid_ret): the area both cover, after make_valid.
Result<double> intersection_area(const GeosContext& geos, const GEOSGeometry* a,
                                 const GEOSGeometry* b) {
  GEOSContextHandle_t ctx = geos.handle();
  TF_ASSIGN_OR_RETURN(GeosGeometry va, make_valid(geos, a));
  TF_ASSIGN_OR_RETURN(GeosGeometry vb, make_valid(geos, b));
  // A geometry still invalid here makes the reference fail (its area is None); buffer(0) and
  // convex hulls are valid, so this does not happen.
  if (GEOSisValid_r(ctx, va.get()) != 1 || GEOSisValid_r(ctx, vb.get()) != 1)
    return Status::internal("poly_intersection on an invalid polygon: " + geos.error());
  const char touches = GEOSIntersects_r(ctx, va.get(), vb.get());
  if (touches == 2) return Status::internal("GEOS intersects failed: " + geos.error());
  if (touches == 0) return 0.0;
  GeosGeometry both = own(geos, GEOSIntersection_r(ctx, va.get(), vb.get()));
  double area = 0;
  if (!both || GEOSArea_r(ctx, both.get(), &area) != 1)
    return Status::internal("GEOS intersection failed: " + geos.error());
  return area;
}

// Python's a[start:stop] = 1 on a 1-d array (negative ends count from the back, then clamp).
void mark_slice(std::vector<unsigned char>& busy, int64_t start, int64_t stop) {
  const int64_t n = static_cast<int64_t>(busy.size());
  auto clamp = [n](int64_t i) {
    if (i < 0) i = std::max<int64_t>(i + n, 0);
    return std::min(i, n);
  };
  for (int64_t i = clamp(start), end = clamp(stop); i < end; ++i) busy[i] = 1;
}

// The indices of the zeros of `busy` (np.where(a == 0)[0]).
std::vector<int64_t> free_indices(const std::vector<unsigned char>& busy) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < busy.size(); ++i)
    if (busy[i] == 0) out.push_back(static_cast<int64_t>(i));
  return out;
}

// _generate_crop_target: rows (of h + 2 pad_h) and columns (of w + 2 pad_w) that no word's
// minimum-area rectangle covers. Each word goes through int32 (truncated), minAreaRect and
// boxPoints, whose corners are truncated to integers; its bounding range [min, max) of those,
// shifted by the pad, is marked with Python's slice rules. OpenCV's exceptions become kInternal.
Status free_axes(const ChainState& state, int64_t pad_h, int64_t pad_w, std::vector<int64_t>& rows,
                 std::vector<int64_t>& cols) {
  std::vector<unsigned char> busy_rows(state.h + 2 * pad_h), busy_cols(state.w + 2 * pad_w);
  std::vector<cv::Point> points;
  for (const ChainPolygon& polygon : state.polygons) {
    points.clear();
    for (size_t i = 0; i + 1 < polygon.xy.size(); i += 2)
      points.emplace_back(truncate_like_numpy<int32_t>(polygon.xy[i]),
                          truncate_like_numpy<int32_t>(polygon.xy[i + 1]));
    cv::Point2f corners[4];
    try {
      cv::minAreaRect(points).points(corners);
    } catch (const cv::Exception& e) {
      return Status::internal(std::string("minAreaRect failed: ") + e.what());
    }
    int64_t min_x = std::numeric_limits<int64_t>::max(),
            max_x = std::numeric_limits<int64_t>::min();
    int64_t min_y = min_x, max_y = max_x;
    for (const cv::Point2f& c : corners) {
      // np.int0 (int64), then the int32 array the corners are gathered into.
      const int64_t x = static_cast<int32_t>(truncate_like_numpy<int64_t>(c.x));
      const int64_t y = static_cast<int32_t>(truncate_like_numpy<int64_t>(c.y));
      min_x = std::min(min_x, x), max_x = std::max(max_x, x);
      min_y = std::min(min_y, y), max_y = std::max(max_y, y);
    }
    mark_slice(busy_cols, min_x + pad_w, max_x + pad_w);
    mark_slice(busy_rows, min_y + pad_h, max_y + pad_h);
  }
  rows = free_indices(busy_rows);
  cols = free_indices(busy_cols);
  return Status();
}

// The box of one attempt in image pixels, x1/y1 exclusive.
struct CropBox {
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// Draws one box: two free columns, then two free rows, each pair's ends moved back by the pad and
// clipped to the image.
CropBox draw_box(const ChainState& state, ChainStreams& streams, int attempt,
                 const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, int64_t pad_h,
                 int64_t pad_w) {
  const std::string prefix = "attempt" + std::to_string(attempt);
  const auto xi = streams.np_randint2(kStep, prefix + ".x_idx", 0, std::ssize(cols));
  const auto yi = streams.np_randint2(kStep, prefix + ".y_idx", 0, std::ssize(rows));
  auto clip = [](int64_t v, int64_t hi) { return std::clamp<int64_t>(v, 0, hi); };
  const int64_t xa = cols[xi[0]], xb = cols[xi[1]], ya = rows[yi[0]], yb = rows[yi[1]];
  CropBox box;
  box.x0 = clip(std::min(xa, xb) - pad_w, state.w - 1);
  box.x1 = clip(std::max(xa, xb) - pad_w, state.w - 1);
  box.y0 = clip(std::min(ya, yb) - pad_h, state.h - 1);
  box.y1 = clip(std::max(ya, yb) - pad_h, state.h - 1);
  return box;
}

// Where a word lies relative to a box, by area with kEpsilon tolerance.
enum class Place { kOutside, kInside, kCut };

// One attempt's outcome: the words examined in order (all of them unless one was cut: those
// before it), split into those outside and those inside the box.
struct Split {
  std::vector<size_t> examined, outside, inside;
  bool cut = false;
};

Result<Place> place_of(const GeosContext& geos, const ChainPolygon& polygon,
                       const GEOSGeometry* box) {
  if (polygon.xy.size() / 2 < kMinRingPoints)
    return Status::internal("a polygon of fewer than 3 points (shapely refuses it)");
  GeosGeometry word = own(geos, shapely_polygon(geos, polygon.xy));
  double word_area = 0;
  if (!word || GEOSArea_r(geos.handle(), word.get(), &word_area) != 1)
    return Status::internal("GEOS polygon failed: " + geos.error());
  TF_ASSIGN_OR_RETURN(const double shared, intersection_area(geos, word.get(), box));
  if (std::abs(shared - word_area) > kEpsilon && std::abs(shared) > kEpsilon) return Place::kCut;
  return std::abs(shared - word_area) < kEpsilon ? Place::kInside : Place::kOutside;
}

// Tests every word against `box` in list order, stopping at the first one it cuts.
Result<Split> split_words(const ChainState& state, const CropBox& box) {
  const GeosContext& geos = augment::thread_geos();
  if (geos.handle() == nullptr) return Status::internal("GEOS_init_r failed");
  // The reference's box corners are int32 (xmin, ymin), (xmax, ymin), (xmax, ymax), (xmin, ymax).
  const double x0 = static_cast<double>(static_cast<int32_t>(box.x0));
  const double y0 = static_cast<double>(static_cast<int32_t>(box.y0));
  const double x1 = static_cast<double>(static_cast<int32_t>(box.x1));
  const double y1 = static_cast<double>(static_cast<int32_t>(box.y1));
  const double corners[8] = {x0, y0, x1, y0, x1, y1, x0, y1};
  GeosGeometry box_polygon = own(geos, shapely_polygon(geos, corners));
  if (!box_polygon) return Status::internal("GEOS box polygon failed: " + geos.error());
  Split split;
  for (size_t i = 0; i < state.polygons.size(); ++i) {
    TF_ASSIGN_OR_RETURN(const Place place, place_of(geos, state.polygons[i], box_polygon.get()));
    if (place == Place::kCut) {
      split.cut = true;
      break;
    }
    split.examined.push_back(i);
    (place == Place::kInside ? split.inside : split.outside).push_back(i);
  }
  return split;
}

// extent - v + shift in the polygon's dtype (numpy: a float32 array with integer scalars stays
// float32, each operation rounded).
double mirror(const ChainPolygon& polygon, int64_t extent, double v, int64_t shift) {
  if (polygon.f32) {
    const float t = static_cast<float>(extent) - static_cast<float>(v);
    return static_cast<float>(t + static_cast<float>(shift));
  }
  return (static_cast<double>(extent) - v) + static_cast<double>(shift);
}

// Flips a word inside `box`: type 0 mirrors x, 1 mirrors y, 2 both.
void flip_polygon(ChainPolygon& polygon, int64_t type, const CropBox& box) {
  const int64_t width = box.x1 - box.x0, height = box.y1 - box.y0;
  for (size_t i = 0; i + 1 < polygon.xy.size(); i += 2) {
    if (type != 1) polygon.xy[i] = mirror(polygon, width, polygon.xy[i], 2 * box.x0);
    if (type != 0) polygon.xy[i + 1] = mirror(polygon, height, polygon.xy[i + 1], 2 * box.y0);
  }
}

// The reference's bookkeeping after a flip: the words outside, then the flipped ones, while the
// flags and labels are only narrowed to the examined words, in their old order.
void apply_split(ChainState& state, const Split& split, int64_t type, const CropBox& box) {
  std::vector<ChainPolygon> polygons;
  polygons.reserve(split.examined.size());
  for (size_t i : split.outside) polygons.push_back(std::move(state.polygons[i]));
  for (size_t i : split.inside) {
    polygons.push_back(std::move(state.polygons[i]));
    flip_polygon(polygons.back(), type, box);
  }
  std::vector<unsigned char> ignored;
  std::vector<int> labels;
  for (size_t i : split.examined) {
    ignored.push_back(state.ignored[i]);
    labels.push_back(state.labels[i]);
  }
  state.polygons = std::move(polygons);
  state.ignored = std::move(ignored);
  state.labels = std::move(labels);
}

// One iteration (_random_crop_flip_polygons).
Status crop_flip_once(ChainState& state, ChainStreams& streams) {
  if (state.polygons.empty() || streams.py_random(kStep, "apply") > kCropRatio) return Status();
  if (state.ignored.size() != state.polygons.size() || state.labels.size() != state.polygons.size())
    return Status::internal("TextDetRandomCropFlip: flags/labels do not match the polygons");
  const int64_t pad_h = static_cast<int64_t>(state.h * kPadRatio);
  const int64_t pad_w = static_cast<int64_t>(state.w * kPadRatio);
  std::vector<int64_t> rows, cols;
  TF_RETURN_IF_ERROR(free_axes(state, pad_h, pad_w, rows, cols));
  if (rows.empty() || cols.empty()) return Status();

  const double min_area = static_cast<double>(int64_t{state.h} * state.w) * kMinAreaRatio;
  CropBox box;
  Split split;  // of the last attempt; empty after a box too small
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    box = draw_box(state, streams, attempt, rows, cols, pad_h, pad_w);
    split = Split();
    if (static_cast<double>((box.x1 - box.x0) * (box.y1 - box.y0)) < min_area) continue;
    TF_ASSIGN_OR_RETURN(split, split_words(state, box));
    if (!split.cut) break;
  }
  // The region flips even when every attempt failed.
  const int64_t type = streams.np_randint(kStep, "flip_type", 0, 3);
  PixelOp op;
  op.kind = PixelOp::Kind::kRegionFlip;
  op.out_h = state.h, op.out_w = state.w;
  op.rect[0] = static_cast<int>(box.x0), op.rect[1] = static_cast<int>(box.y0);
  op.rect[2] = static_cast<int>(box.x1), op.rect[3] = static_cast<int>(box.y1);
  op.code = static_cast<int>(type);
  state.ops.push_back(op);
  if (!split.inside.empty()) apply_split(state, split, type, box);
  return Status();
}

}  // namespace

Status text_det_random_crop_flip(ChainState& state, ChainStreams& streams) {
  for (int i = 0; i < kIterations; ++i) TF_RETURN_IF_ERROR(crop_flip_once(state, streams));
  return Status();
}

}  // namespace textfeed::augment::mmocr
