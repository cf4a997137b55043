// The state of mmocr's chains, their logged streams and the steps several chains share
// (chain_state.h). Arithmetic follows numpy's dtypes: a float32 polygon times a float64 scale
// factor array is float64, and crop_polygon converts to float32 before GEOS sees it.
#include "augment/mmocr/chain_state.h"

#include <geos_c.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include "augment/geometry/shapely_geos.h"

namespace textfeed::augment::mmocr {
namespace {

// mmcv's _scale_size rounding: int(x * scale + 0.5).
constexpr double kRoundHalf = 0.5;
constexpr size_t kMinPolygonPoints = 3;

double f32(double v) { return static_cast<double>(static_cast<float>(v)); }

}  // namespace

ChainStreams::ChainStreams(uint32_t seed) : np_(seed), py_(seed), imgaug_(seed) {}

void ChainStreams::log(std::string_view step, std::string_view name, char rng,
                       std::vector<double> values) {
  draws_.push_back({std::string(step), std::string(name), rng, std::move(values)});
}

double ChainStreams::np_random_sample(std::string_view step, std::string_view name) {
  const double v = np_.random_sample();
  log(step, name, 'n', {v});
  return v;
}

int64_t ChainStreams::np_randint(std::string_view step, std::string_view name, int64_t lo,
                                 int64_t hi) {
  const int64_t v = np_.randint(lo, hi);
  log(step, name, 'n', {static_cast<double>(v)});
  return v;
}

std::array<int64_t, 2> ChainStreams::np_randint2(std::string_view step, std::string_view name,
                                                 int64_t lo, int64_t hi) {
  const int64_t a = np_.randint(lo, hi);
  const int64_t b = np_.randint(lo, hi);
  log(step, name, 'n', {static_cast<double>(a), static_cast<double>(b)});
  return {a, b};
}

double ChainStreams::py_random(std::string_view step, std::string_view name) {
  const double v = py_.random();
  log(step, name, 'p', {v});
  return v;
}

int64_t ChainStreams::py_randint(std::string_view step, std::string_view name, int64_t a,
                                 int64_t b) {
  const int64_t v = py_.randint(a, b);
  log(step, name, 'p', {static_cast<double>(v)});
  return v;
}

float ChainStreams::imgaug_angle(std::string_view step, double lo, double hi) {
  const ImgaugAffineDraws d = imgaug_affine_angle(imgaug_, lo, hi);
  log(step, "angle.derive_affine", 'i', {double(d.derive_affine[0]), double(d.derive_affine[1])});
  log(step, "angle.derive_sequential", 'i',
      {double(d.derive_sequential[0]), double(d.derive_sequential[1])});
  log(step, "angle", 'i', {static_cast<double>(d.angle_deg)});
  return d.angle_deg;
}

void ChainState::mark(std::string_view step) {
  if (record_trace) trace.push_back({std::string(step), h, w, polygons});
}

void ChainState::keep_only(std::span<const unsigned char> keep) {
  size_t out = 0;
  for (size_t i = 0; i < polygons.size(); ++i) {
    if (keep[i] == 0) continue;
    if (out != i) polygons[out] = std::move(polygons[i]);
    ignored[out] = ignored[i];
    labels[out] = labels[i];
    ++out;
  }
  polygons.resize(out);
  ignored.resize(out);
  labels.resize(out);
}

Result<ChainState> load_chain_input(const ChainInput& input) {
  if (input.h <= 0 || input.w <= 0)
    return Status::invalid_argument("image size " + std::to_string(input.h) + "x" +
                                    std::to_string(input.w) + " is not positive");
  if (input.points.size() != input.ignored.size())
    return Status::invalid_argument(std::to_string(input.points.size()) + " polygons but " +
                                    std::to_string(input.ignored.size()) + " ignored flags");
  ChainState state;
  state.h = input.h;
  state.w = input.w;
  size_t at = 0;
  for (size_t i = 0; i < input.points.size(); ++i) {
    const size_t n = input.points[i];
    if (n < kMinPolygonPoints || 2 * n > input.xy.size() - at)
      return Status::invalid_argument("polygon " + std::to_string(i) + ": " + std::to_string(n) +
                                      " points (needs 3 or more, within the points given)");
    ChainPolygon p{std::vector<double>(input.xy.begin() + at, input.xy.begin() + at + 2 * n), true,
                   static_cast<int>(i)};
    for (double v : p.xy)
      if (!std::isfinite(v))
        return Status::invalid_argument("polygon " + std::to_string(i) + ": a coordinate is " +
                                        "not finite");
    at += 2 * n;
    state.polygons.push_back(std::move(p));
    state.ignored.push_back(input.ignored[i] != 0 ? 1 : 0);
    state.labels.push_back(static_cast<int>(i));
  }
  if (at != input.xy.size())
    return Status::invalid_argument(std::to_string(input.xy.size() / 2 - at / 2) +
                                    " points left over after the last polygon");
  return state;
}

namespace {

// poly_make_valid: the geometry itself if valid, else buffer(0), and the convex hull of what is
// not a single polygon. Null on GEOS failure.
GeosGeometry make_valid(const GeosContext& geos, GeosGeometry g) {
  if (g == nullptr) return g;
  const char valid = GEOSisValid_r(geos.handle(), g.get());
  if (valid == 2) return own(geos, nullptr);
  if (valid == 0) g = own(geos, GEOSBuffer_r(geos.handle(), g.get(), 0.0, 16));
  if (g == nullptr) return g;
  if (GEOSGeomTypeId_r(geos.handle(), g.get()) != GEOS_POLYGON)
    g = own(geos, GEOSConvexHull_r(geos.handle(), g.get()));
  return g;
}

// The exterior ring of `poly` reversed (closing point included), as float32 values.
Result<std::vector<double>> reversed_exterior(const GeosContext& geos, const GEOSGeometry* poly) {
  const GEOSGeometry* ring = GEOSGetExteriorRing_r(geos.handle(), poly);
  const GEOSCoordSequence* seq = ring ? GEOSGeom_getCoordSeq_r(geos.handle(), ring) : nullptr;
  unsigned n = 0;
  if (seq == nullptr || GEOSCoordSeq_getSize_r(geos.handle(), seq, &n) == 0)
    return Status::internal("GEOS ring read failed: " + geos.error());
  std::vector<double> out(2 * static_cast<size_t>(n));
  for (unsigned i = 0; i < n; ++i) {
    double x = 0, y = 0;
    GEOSCoordSeq_getXY_r(geos.handle(), seq, i, &x, &y);
    out[2 * (n - 1 - i)] = f32(x);
    out[2 * (n - 1 - i) + 1] = f32(y);
  }
  return out;
}

}  // namespace

Result<std::vector<double>> crop_polygon(std::span<const double> xy, const double box[4]) {
  GeosContext& geos = thread_geos();
  if (geos.handle() == nullptr) return Status::internal("GEOS_init_r failed");
  std::vector<double> xy32(xy.size());
  for (size_t i = 0; i < xy.size(); ++i) xy32[i] = f32(xy[i]);
  const double bx[8] = {f32(box[0]), f32(box[1]), f32(box[2]), f32(box[1]),
                        f32(box[2]), f32(box[3]), f32(box[0]), f32(box[3])};
  // crop_polygon makes both valid, then poly_intersection makes them valid again (a no-op).
  GeosGeometry poly = make_valid(geos, own(geos, shapely_polygon(geos, xy32)));
  GeosGeometry clip = make_valid(geos, own(geos, shapely_polygon(geos, bx)));
  if (poly == nullptr || clip == nullptr)
    return Status::internal("GEOS could not make a polygon of " + std::to_string(xy.size() / 2) +
                            " points valid: " + geos.error());
  if (GEOSisValid_r(geos.handle(), poly.get()) != 1 ||
      GEOSisValid_r(geos.handle(), clip.get()) != 1)
    return std::vector<double>{};  // poly_intersection's area None
  const char meets = GEOSIntersects_r(geos.handle(), poly.get(), clip.get());
  if (meets == 2) return Status::internal("GEOS intersects failed: " + geos.error());
  if (meets == 0) return std::vector<double>{};
  GeosGeometry cut = own(geos, GEOSIntersection_r(geos.handle(), poly.get(), clip.get()));
  if (cut == nullptr) return Status::internal("GEOS intersection failed: " + geos.error());
  double area = 0;
  if (GEOSArea_r(geos.handle(), cut.get(), &area) == 0)
    return Status::internal("GEOS area failed: " + geos.error());
  if (area == 0 || GEOSGeomTypeId_r(geos.handle(), cut.get()) != GEOS_POLYGON)
    return std::vector<double>{};
  cut = make_valid(geos, std::move(cut));
  if (cut == nullptr) return Status::internal("GEOS make-valid failed: " + geos.error());
  if (GEOSisEmpty_r(geos.handle(), cut.get()) == 1) return std::vector<double>{};
  return reversed_exterior(geos, cut.get());
}

Status resize_to(ChainState& state, int new_w, int new_h) {
  if (new_w < 1 || new_h < 1)
    return Status::invalid_argument("Resize of a " + std::to_string(state.w) + "x" +
                                    std::to_string(state.h) + " image to " + std::to_string(new_w) +
                                    "x" + std::to_string(new_h) +
                                    ": a side would be empty (the reference's cv2.resize raises)");
  const double sx = static_cast<double>(new_w) / state.w;
  const double sy = static_cast<double>(new_h) / state.h;
  const double box[4] = {0, 0, static_cast<double>(new_w), static_cast<double>(new_h)};
  for (ChainPolygon& p : state.polygons) {
    std::vector<double> scaled(p.xy.size());
    // rescale_polygon: float32 values times the float64 factors, float64 result.
    for (size_t i = 0; i + 1 < p.xy.size(); i += 2) {
      scaled[i] = f32(p.xy[i]) * sx;
      scaled[i + 1] = f32(p.xy[i + 1]) * sy;
    }
    auto cut = crop_polygon(scaled, box);
    if (!cut.ok()) return cut.status();
    if (cut->empty())
      p.xy.assign(p.xy.size(), 0.0);
    else
      p.xy = std::move(*cut);
    p.f32 = true;
  }
  state.h = new_h;
  state.w = new_w;
  PixelOp op;
  op.kind = PixelOp::Kind::kResize;
  op.out_h = new_h;
  op.out_w = new_w;
  state.ops.push_back(op);
  return Status();
}

void rescale_keep_ratio(int w, int h, double long_side, double short_side, int& new_w, int& new_h) {
  const double lo = std::min(long_side, short_side), hi = std::max(long_side, short_side);
  const double factor = std::min(hi / std::max(h, w), lo / std::min(h, w));
  new_w = static_cast<int>(w * factor + kRoundHalf);
  new_h = static_cast<int>(h * factor + kRoundHalf);
}

double round_as(const ChainPolygon& polygon, double value) {
  return polygon.f32 ? f32(value) : value;
}

void random_flip(ChainState& state, ChainStreams& streams, std::string_view step) {
  // np.random.choice(['horizontal', None], p=[0.5, 0.5]): index 0 iff u < 0.5.
  const double u = streams.np_random_sample(step, "direction");
  if (!(u < 0.5)) return;
  for (ChainPolygon& p : state.polygons)
    for (size_t i = 0; i < p.xy.size(); i += 2) p.xy[i] = round_as(p, state.w - p.xy[i]);
  PixelOp op;
  op.kind = PixelOp::Kind::kFlip;
  op.out_h = state.h;
  op.out_w = state.w;
  op.code = 0;
  state.ops.push_back(op);
}

}  // namespace textfeed::augment::mmocr
