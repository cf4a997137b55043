// shapely's Polygon through GEOS's C API and the per-thread context (shapely_geos.h).
#include "augment/geometry/shapely_geos.h"

#include <cstddef>

namespace textfeed::augment {

GeosContext::GeosContext() : handle_(GEOS_init_r()) {
  if (handle_ != nullptr)
    GEOSContext_setErrorMessageHandler_r(
        handle_,
        [](const char* message, void* self) { static_cast<GeosContext*>(self)->error_ = message; },
        this);
}

GeosContext::~GeosContext() {
  if (handle_ != nullptr) GEOS_finish_r(handle_);
}

GeosContext& thread_geos() {
  thread_local GeosContext geos;
  geos.clear_error();
  return geos;
}

GEOSGeometry* shapely_polygon(const GeosContext& geos, std::span<const double> xy) {
  const size_t n = xy.size() / 2;
  if (n < 3) return nullptr;
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

}  // namespace textfeed::augment
