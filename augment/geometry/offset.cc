// mmocr's offset_polygon, shapely's area and length, and the kernel shrink distance (offset.h).
// Clipper and GEOS are the reference's own engines (pyclipper 1.2.1 wraps Clipper 6.4.2, shapely
// 1.8.5 wraps GEOS); their exceptions and error messages stop here and become Status.
#include "augment/geometry/offset.h"

#include <geos_c.h>

#include <cstddef>
#include <exception>
#include <polyclipping/clipper.hpp>
#include <string>

#include "augment/geometry/shapely_geos.h"

namespace textfeed::augment {
namespace {

// pyclipper's PyclipperOffset() defaults.
constexpr double kMiterLimit = 2.0;
constexpr double kArcTolerance = 0.25;
// _generate_kernels' guard against a zero perimeter, and its rounding of the distance.
constexpr double kPerimeterGuardPx = 0.001;
constexpr double kRoundHalf = 0.5;
constexpr size_t kMinRingPoints = 3;

}  // namespace

Result<RingMeasure> shapely_ring_measure(std::span<const double> xy) {
  if (xy.size() % 2 != 0 || xy.size() / 2 < kMinRingPoints)
    return Status::invalid_argument("polygon of " + std::to_string(xy.size() / 2) +
                                    " points: shapely needs at least 3");
  GeosContext& geos = thread_geos();
  if (geos.handle() == nullptr) return Status::internal("GEOS_init_r failed");
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
