// mmocr's offset_polygon, shapely's area and length, and the kernel shrink distance (offset.h).
// Clipper and GEOS are the reference's own engines (pyclipper 1.2.1 wraps Clipper 6.4.2, shapely
// 1.8.5 wraps GEOS); their exceptions and error messages stop here and become Status.
#include "augment/geometry/offset.h"

#include <geos_c.h>

#include <cstddef>
#include <exception>
#include <polyclipping/clipper.hpp>
#include <string>

namespace textfeed::augment {
namespace {

// pyclipper's PyclipperOffset() defaults.
constexpr double kMiterLimit = 2.0;
constexpr double kArcTolerance = 0.25;
// _generate_kernels' guard against a zero perimeter, and its rounding of the distance.
constexpr double kPerimeterGuardPx = 0.001;
constexpr double kRoundHalf = 0.5;
constexpr size_t kMinRingPoints = 3;

// A GEOS reentrant context that keeps the last error message.
class GeosContext {
 public:
  GeosContext() : handle_(GEOS_init_r()) {
    if (handle_ != nullptr)
      GEOSContext_setErrorMessageHandler_r(
          handle_,
          [](const char* message, void* self) {
            static_cast<GeosContext*>(self)->error_ = message;
          },
          this);
  }
  ~GeosContext() {
    if (handle_ != nullptr) GEOS_finish_r(handle_);
  }
  GeosContext(const GeosContext&) = delete;
  GeosContext& operator=(const GeosContext&) = delete;

  GEOSContextHandle_t handle() const { return handle_; }
  const std::string& error() const { return error_; }
  void clear_error() { error_.clear(); }

 private:
  GEOSContextHandle_t handle_;
  std::string error_;
};

// The polygon of `xy` as shapely builds it: the ring is closed with its first point unless it has
// 4 or more points and already ends on it (a 3-point ring is closed even then). Null on error.
GEOSGeometry* shapely_polygon(const GeosContext& geos, std::span<const double> xy) {
  const size_t n = xy.size() / 2;
  const bool closed = n >= 4 && xy[0] == xy[2 * n - 2] && xy[1] == xy[2 * n - 1];
  const size_t m = closed ? n : n + 1;
  GEOSCoordSequence* seq = GEOSCoordSeq_create_r(geos.handle(), static_cast<unsigned>(m), 2);
  if (seq == nullptr) return nullptr;
  for (size_t i = 0; i < m; ++i) {
    const size_t j = i % n;
    GEOSCoordSeq_setXY_r(geos.handle(), seq, static_cast<unsigned>(i), xy[2 * j], xy[2 * j + 1]);
  }
  GEOSGeometry* ring = GEOSGeom_createLinearRing_r(geos.handle(), seq);  // owns seq
  if (ring == nullptr) return nullptr;
  return GEOSGeom_createPolygon_r(geos.handle(), ring, nullptr, 0);  // owns ring
}

}  // namespace

Result<RingMeasure> shapely_ring_measure(std::span<const double> xy) {
  if (xy.size() % 2 != 0 || xy.size() / 2 < kMinRingPoints)
    return Status::invalid_argument("polygon of " + std::to_string(xy.size() / 2) +
                                    " points: shapely needs at least 3");
  // One context per thread, made on its first word, not one per word: GEOS_init_r allocates.
  thread_local GeosContext geos;
  if (geos.handle() == nullptr) return Status::internal("GEOS_init_r failed");
  geos.clear_error();
  GEOSGeometry* poly = shapely_polygon(geos, xy);
  if (poly == nullptr)
    return Status::invalid_argument("not a ring GEOS accepts (" + geos.error() + ")");
  RingMeasure m;
  const bool ok = GEOSArea_r(geos.handle(), poly, &m.area) == 1 &&
                  GEOSLength_r(geos.handle(), poly, &m.length) == 1;
  GEOSGeom_destroy_r(geos.handle(), poly);
  if (!ok) return Status::internal("GEOS area/length failed: " + geos.error());
  return m;
}

int64_t kernel_shrink_distance(const RingMeasure& ring, double shrink_ratio, int64_t max_px) {
  // Python's int() truncates toward zero; the value is >= 0.5 here (area >= 0).
  const double d =
      ring.area * (1 - shrink_ratio * shrink_ratio) / (ring.length + kPerimeterGuardPx) +
      kRoundHalf;
  const int64_t distance = static_cast<int64_t>(d);
  return distance < max_px ? distance : max_px;
}

Result<std::vector<int32_t>> offset_polygon(std::span<const int32_t> xy, double distance_px) {
  ClipperLib::Path path;
  path.reserve(xy.size() / 2);
  for (size_t i = 0; i + 1 < xy.size(); i += 2) path.emplace_back(xy[i], xy[i + 1]);
  ClipperLib::Paths pieces;
  try {
    ClipperLib::ClipperOffset co(kMiterLimit, kArcTolerance);
    co.AddPath(path, ClipperLib::jtRound, ClipperLib::etClosedPolygon);
    co.Execute(pieces, distance_px);
  } catch (const std::exception& e) {
    return Status::internal(std::string("Clipper offset failed: ") + e.what());
  }
  std::vector<int32_t> out;
  if (pieces.empty()) return out;
  // offset_polygon puts the pieces into np.array(..., dtype=object): equal point counts make a
  // 3-d array whose first row is kept; different counts make a 1-d array of lists, which it
  // takes for a split polygon and drops.
  for (const ClipperLib::Path& piece : pieces)
    if (piece.size() != pieces[0].size()) return out;
  out.reserve(2 * pieces[0].size());
  for (const ClipperLib::IntPoint& p : pieces[0]) {
    // The reference goes through float32 (its result array) and back to int32 (fillPoly);
    // exact for the coordinates the callers accept (|c| < 2^24).
    out.push_back(static_cast<int32_t>(static_cast<float>(p.X)));
    out.push_back(static_cast<int32_t>(static_cast<float>(p.Y)));
  }
  return out;
}

}  // namespace textfeed::augment
