// DB targets: MakeBorderMap then MakeShrinkMap (docs/targets.md, "DB targets"). Every float step
// keeps NumPy's operation order and precision (float64 distances, float32 storage); this file is
// built with -ffp-contract=off so that no multiply-add is fused. The per-pixel distances of the
// border band are db_band.cc's. Clipper and GEOS are the reference's engines (GEOS through
// augment/geometry/offset.h); Clipper's exceptions are caught here and become Status.
#include "augment/db/targets.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <opencv2/imgproc.hpp>
#include <polyclipping/clipper.hpp>
#include <string>

#include "augment/db/band.h"
#include "augment/geometry/offset.h"
#include "base/stream_store.h"

namespace textfeed::augment {

struct DbScratch::State {
  std::vector<double> poly;  // one polygon (clipped for the shrink map)
  std::vector<float> band;   // min over edges of the float32 clipped distance, one region
  // The canvas being drawn: the threshold map (float32) and the three masks (0/1 as uint8), each
  // H x W row-major, then written out to the caller's views in one streaming pass. Between calls
  // every row not flagged in `dirty` is blank (threshold `blank`, masks 0, 0, 1) for a canvas of
  // canvas_h x canvas_w: a call draws on the rows its polygons reach, and only those are copied
  // and blanked again; the others are written to the views as constants.
  std::vector<float> threshold;
  std::vector<uint8_t> threshold_mask, shrink_map, shrink_mask, dirty;
  int canvas_h = 0, canvas_w = 0;
  float blank = 0;
  internal::DbBandKernel kernel = internal::best_db_band_kernel();
  std::vector<cv::Point> points;  // int32 points for cv::fillPoly
  ClipperLib::Paths solution;
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

struct Canvas;
void mark_rows(Canvas& c, long y0, long y1);

// cv::fillPoly of one polygon, its rows flagged.
void fill_points(Canvas& c, cv::Mat& m, double value, const std::vector<cv::Point>& pts) {
  if (pts.empty()) return;
  long y0 = pts[0].y, y1 = pts[0].y;
  for (const cv::Point& q : pts) y0 = std::min<long>(y0, q.y), y1 = std::max<long>(y1, q.y);
  mark_rows(c, y0, y1);
  const cv::Point* p = pts.data();
  const int n = static_cast<int>(pts.size());
  cv::fillPoly(m, &p, &n, 1, cv::Scalar(value));
}

// cv2.fillPoly(img, [pts.astype(np.int32)], value) on one polygon given as doubles (truncated
// toward zero, as astype does; the coordinates are bounded, so the conversion is defined).
void fill_doubles(Canvas& c, cv::Mat& m, std::span<const double> xy, double value,
                  std::vector<cv::Point>& pts) {
  pts.clear();
  for (size_t i = 0; i + 1 < xy.size(); i += 2)
    pts.emplace_back(static_cast<int>(xy[i]), static_cast<int>(xy[i + 1]));
  fill_points(c, m, value, pts);
}

void fill_path(Canvas& c, cv::Mat& m, const ClipperLib::Path& path, double value,
               std::vector<cv::Point>& pts) {
  pts.clear();
  for (const ClipperLib::IntPoint& q : path)
    pts.emplace_back(static_cast<int>(q.X), static_cast<int>(q.Y));
  fill_points(c, m, value, pts);
}

// shapely.geometry.Polygon(xy).area and .length (augment/geometry/offset.h: GEOS, shapely 1.8's
// closing rule), errors naming polygon k.
Status ring_measure(std::span<const double> xy, size_t k, double& area, double& length) {
  Result<RingMeasure> m = shapely_ring_measure(xy);
  if (!m.ok()) return m.status().with_context(word_name(k));
  area = m->area;
  length = m->length;
  return Status();
}

// pyclipper's float -> cInt conversion is Python's int(): truncation toward zero.
ClipperLib::Path clipper_path(std::span<const double> xy) {
  ClipperLib::Path path;
  path.reserve(xy.size() / 2);
  for (size_t i = 0; i + 1 < xy.size(); i += 2)
    path.emplace_back(static_cast<ClipperLib::cInt>(xy[i]),
                      static_cast<ClipperLib::cInt>(xy[i + 1]));
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

struct PaddedBox {
  long xmin, ymin, xmax, ymax;
};

// The canvas of one call over the scratch's buffers: the threshold map as a view, the masks as
// OpenCV headers (cv::fillPoly covers the same pixels whatever the depth, and 0/1 are exact).
struct Canvas {
  MutableImageView threshold;
  cv::Mat threshold_mask, shrink_map, shrink_mask;
  uint8_t* dirty;  // one flag per row
};

void mark_rows(Canvas& c, long y0, long y1) {
  y0 = std::max(y0, 0L), y1 = std::min(y1, static_cast<long>(c.threshold.height) - 1);
  if (y0 <= y1) std::fill(c.dirty + y0, c.dirty + y1 + 1, uint8_t{1});
}

// Row y of the scratch blank again.
void blank_row(DbScratch::State& st, size_t y) {
  const size_t w = static_cast<size_t>(st.canvas_w), at = y * w;
  std::fill_n(st.threshold.data() + at, w, st.blank);
  std::memset(st.threshold_mask.data() + at, 0, w);
  std::memset(st.shrink_map.data() + at, 0, w);
  std::memset(st.shrink_mask.data() + at, 1, w);
  st.dirty[y] = 0;
}

// A blank canvas of h x w: threshold `blank`, threshold_mask and shrink_map 0, shrink_mask 1 (a
// canvas of the last call's size and blank value has only its dirty rows blanked again: those
// of a call that failed half-way).
Canvas blank_canvas(DbScratch::State& st, int h, int w, float blank) {
  const size_t n = static_cast<size_t>(h) * static_cast<size_t>(w);
  if (h != st.canvas_h || w != st.canvas_w || blank != st.blank || st.threshold.size() != n) {
    st.threshold.assign(n, blank);
    st.threshold_mask.assign(n, 0);
    st.shrink_map.assign(n, 0);
    st.shrink_mask.assign(n, 1);
    st.dirty.assign(static_cast<size_t>(h), 0);
    st.canvas_h = h, st.canvas_w = w, st.blank = blank;
  } else {
    for (size_t y = 0; y < static_cast<size_t>(h); ++y)
      if (st.dirty[y] != 0) blank_row(st, y);
  }
  return {MutableImageView{reinterpret_cast<uint8_t*>(st.threshold.data()), h, w, 1,
                           static_cast<ptrdiff_t>(w) * 4, DType::kF32},
          cv::Mat(h, w, CV_8U, st.threshold_mask.data()),
          cv::Mat(h, w, CV_8U, st.shrink_map.data()), cv::Mat(h, w, CV_8U, st.shrink_mask.data()),
          st.dirty.data()};
}

// The canvas into the caller's views, row by row with streaming stores (base/stream_store.h:
// the views are usually a slot of a batch, written once and read by somebody else). A canvas of
// more than kKeptScratchPixels gives its buffers back.
constexpr size_t kKeptScratchPixels = size_t{2048} * 2048;

void publish(DbScratch::State& st, const Canvas& c, const DbTargetViews& out) {
  const int h = c.threshold.height;
  const size_t w = static_cast<size_t>(c.threshold.width);
  for (int y = 0; y < h; ++y) {
    float* const rows[4] = {reinterpret_cast<float*>(out.threshold_map.row(y)),
                            reinterpret_cast<float*>(out.threshold_mask.row(y)),
                            reinterpret_cast<float*>(out.shrink_map.row(y)),
                            reinterpret_cast<float*>(out.shrink_mask.row(y))};
    if (c.dirty[y] == 0) {
      stream_fill_f32(rows[0], w, st.blank);
      stream_fill_f32(rows[1], w, 0.f);
      stream_fill_f32(rows[2], w, 0.f);
      stream_fill_f32(rows[3], w, 1.f);
      continue;
    }
    const size_t at = static_cast<size_t>(y) * w;
    stream_copy_f32(rows[0], st.threshold.data() + at, w);
    stream_u8_to_f32(rows[1], st.threshold_mask.data() + at, w);
    stream_u8_to_f32(rows[2], st.shrink_map.data() + at, w);
    stream_u8_to_f32(rows[3], st.shrink_mask.data() + at, w);
    blank_row(st, static_cast<size_t>(y));
  }
  stream_fence();
  if (static_cast<size_t>(h) * w > kKeptScratchPixels) {
    for (std::vector<uint8_t>* v : {&st.threshold_mask, &st.shrink_map, &st.shrink_mask, &st.dirty})
      *v = {};
    st.threshold = {};
    st.canvas_h = st.canvas_w = 0;
  }
}

// The reference's last step, canvas * (thresh_max - thresh_min) + thresh_min in float32 (NumPy
// casts the Python scalars to the array's float32). It is monotone (a >= 0) and so commutes with
// the np.fmax that builds the canvas: the map holds scaled values from the start (the blank canvas
// is scale(0) = b) and each band folds in scale(1 - band), with no pass over the map at the end.
struct ThresholdScale {
  float a, b;
  explicit ThresholdScale(const DbTargetOptions& o)
      : a(static_cast<float>(o.thresh_max - o.thresh_min)), b(static_cast<float>(o.thresh_min)) {}
  float operator()(float t) const {
    const float s = t * a;
    return s + b;
  }
};

// The band of one polygon folded into the canvas (np.fmax keeps the canvas where the band is NaN),
// over the part of the padded bbox inside the canvas only.
void draw_band(DbScratch::State& st, std::span<const double> xy, const PaddedBox& b, double width,
               internal::DbBandFormula formula, const ThresholdScale& scale, Canvas& c) {
  const MutableImageView& canvas = c.threshold;
  const long w = canvas.width, h = canvas.height;
  if (b.xmax < 0 || b.ymax < 0 || b.xmin > w - 1 || b.ymin > h - 1) return;  // docs: wholly outside
  const long cx0 = std::max(0L, b.xmin), cx1 = std::min(w - 1, b.xmax);
  const long cy0 = std::max(0L, b.ymin), cy1 = std::min(h - 1, b.ymax);
  const long rw = cx1 - cx0 + 1, rh = cy1 - cy0 + 1;
  mark_rows(c, cy0, cy1);
  st.band.assign(static_cast<size_t>(rw * rh), 1.0f);
  const internal::DbBandRegion r{cx0 - b.xmin, cy0 - b.ymin, cx1 - b.xmin, cy1 - b.ymin,
                                 st.band.data()};
  const double fx = static_cast<double>(b.xmin), fy = static_cast<double>(b.ymin);
  const size_t n = xy.size() / 2;
  for (size_t i = 0; i < n; ++i) {
    const size_t j = (i + 1) % n;
    const double p1x = xy[2 * i] - fx, p1y = xy[2 * i + 1] - fy;
    const double p2x = xy[2 * j] - fx, p2y = xy[2 * j + 1] - fy;
    const double sd = (p1x - p2x) * (p1x - p2x) + (p1y - p2y) * (p1y - p2y);
    internal::fold_db_edge(r, internal::DbEdge{p1x, p1y, p2x, p2y, sd, width}, formula, st.kernel);
  }
  for (long y = 0; y < rh; ++y) {
    float* out = reinterpret_cast<float*>(canvas.row(static_cast<int>(cy0 + y))) + cx0;
    const float* m = st.band.data() + y * rw;
    for (long x = 0; x < rw; ++x) {
      const float t = scale(1.0f - m[x]);  // np.fmax: a NaN band keeps the canvas (never NaN)
      out[x] = t > out[x] ? t : out[x];
    }
  }
}

// MakeBorderMap.draw_border_map for one valid polygon.
Status draw_border(DbScratch::State& st, std::span<const double> xy, size_t k,
                   const DbTargetOptions& o, const ThresholdScale& scale, Canvas& out) {
  double area = 0, length = 0;
  TF_RETURN_IF_ERROR(ring_measure(xy, k, area, length));
  if (area <= 0) return Status();
  const double width = area * (1 - std::pow(o.shrink_ratio, 2)) / length;
  ClipperLib::ClipperOffset co;
  co.AddPath(clipper_path(xy), ClipperLib::jtRound, ClipperLib::etClosedPolygon);
  TF_RETURN_IF_ERROR(offset(co, width, st.solution, k));
  if (st.solution.empty() || st.solution[0].empty())
    return Status::invalid_argument(word_name(k) +
                                    ": its border offset is empty (the polygon truncates to a "
                                    "degenerate one; the reference raises here)");
  const ClipperLib::Path& padded = st.solution[0];
  fill_path(out, out.threshold_mask, padded, 1.0, st.points);
  PaddedBox b{std::numeric_limits<long>::max(), std::numeric_limits<long>::max(),
              std::numeric_limits<long>::min(), std::numeric_limits<long>::min()};
  for (const ClipperLib::IntPoint& q : padded) {
    b.xmin = std::min<long>(b.xmin, q.X), b.xmax = std::max<long>(b.xmax, q.X);
    b.ymin = std::min<long>(b.ymin, q.Y), b.ymax = std::max<long>(b.ymax, q.Y);
  }
  const auto formula =
      o.exact_threshold ? internal::DbBandFormula::kReference : internal::DbBandFormula::kFast;
  draw_band(st, xy, b, width, formula, scale, out);
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
Status draw_shrink(DbScratch::State& st, size_t k, const DbTargetOptions& o, Canvas& out,
                   unsigned char& ignore) {
  const std::span<const double> p(st.poly);
  double xlo = p[0], xhi = p[0], ylo = p[1], yhi = p[1];
  for (size_t i = 0; i < p.size(); i += 2) {
    xlo = std::min(xlo, p[i]), xhi = std::max(xhi, p[i]);
    ylo = std::min(ylo, p[i + 1]), yhi = std::max(yhi, p[i + 1]);
  }
  if (ignore || std::min(yhi - ylo, xhi - xlo) < o.min_text_size) {
    fill_doubles(out, out.shrink_mask, p, 0.0, st.points);
    ignore = 1;
    return Status();
  }
  double area = 0, length = 0;
  TF_RETURN_IF_ERROR(ring_measure(p, k, area, length));
  ClipperLib::ClipperOffset co;
  co.AddPath(clipper_path(p), ClipperLib::jtRound, ClipperLib::etClosedPolygon);
  st.solution.clear();
  for (double ratio : retry_ratios(o.shrink_ratio)) {
    const double distance = area * (1 - std::pow(ratio, 2)) / length;
    TF_RETURN_IF_ERROR(offset(co, -distance, st.solution, k));
    if (st.solution.size() == 1) break;
  }
  if (st.solution.empty()) {
    fill_doubles(out, out.shrink_mask, p, 0.0, st.points);
    ignore = 1;
    return Status();
  }
  for (const ClipperLib::Path& piece : st.solution)
    fill_path(out, out.shrink_map, piece, 1.0, st.points);
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
                                      std::to_string(h) + " x " + std::to_string(w) +
                                      ", 1 channel");
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
      return Status::invalid_argument(word_name(k) + " has " + std::to_string(n) + " points (3.." +
                                      std::to_string(kMaxDbPolygonPoints) + ")");
    for (double c : polys.word(k))
      if (!(std::fabs(c) <= kMaxDbCoordinate))
        return Status::invalid_argument(word_name(k) + ": coordinate " + std::to_string(c) +
                                        " is not finite or beyond +-1e6 px");
  }
  return Status();
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
  const ThresholdScale scale(options);
  const int h = out.threshold_map.height, w = out.threshold_map.width;
  Canvas canvas = blank_canvas(st, h, w, scale(0.f));
  for (size_t k = 0; k < polygons.size(); ++k)
    if (labels[k] != 0)
      TF_RETURN_IF_ERROR(draw_border(st, polygons.word(k), k, options, scale, canvas));
  for (size_t k = 0; k < polygons.size(); ++k) {
    ignore_out[k] = labels[k] == 0;
    if (clip_and_orient(st, polygons.word(k), h, w)) ignore_out[k] = 1;
    TF_RETURN_IF_ERROR(draw_shrink(st, k, options, canvas, ignore_out[k]));
  }
  publish(st, canvas, out);
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
