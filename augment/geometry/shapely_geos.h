// shapely 1.8's geometry as GEOS's C API builds it, for the mmocr steps that measure or clip
// polygons through shapely (augment/geometry/offset.cc, augment/mmocr/): a reentrant GEOS context
// per thread that keeps the last error, an owning geometry handle, and Polygon(xy) with shapely's
// closing rule.
#pragma once

#include <geos_c.h>

#include <memory>
#include <span>
#include <string>

namespace textfeed::augment {

// A GEOS reentrant context that keeps the last error message. Not copyable.
class GeosContext {
 public:
  GeosContext();
  ~GeosContext();
  GeosContext(const GeosContext&) = delete;
  GeosContext& operator=(const GeosContext&) = delete;

  GEOSContextHandle_t handle() const { return handle_; }
  const std::string& error() const { return error_; }
  void clear_error() { error_.clear(); }

 private:
  GEOSContextHandle_t handle_;
  std::string error_;
};

// This thread's context, made on first use (GEOS_init_r allocates, so not one per polygon); its
// error is cleared on every call. Its handle is null if GEOS could not start.
GeosContext& thread_geos();

// An owning handle of a geometry of `context`.
struct GeosDeleter {
  GEOSContextHandle_t handle;
  void operator()(GEOSGeometry* g) const {
    if (g != nullptr) GEOSGeom_destroy_r(handle, g);
  }
};
using GeosGeometry = std::unique_ptr<GEOSGeometry, GeosDeleter>;
inline GeosGeometry own(const GeosContext& context, GEOSGeometry* g) {
  return GeosGeometry(g, GeosDeleter{context.handle()});
}

// shapely.geometry.Polygon(xy) for points `xy` (2 per point, at least 3): the ring is closed with
// its first point unless it has 4 or more points and already ends on it (a 3-point ring is closed
// even then). Null on error (the context's error says why).
GEOSGeometry* shapely_polygon(const GeosContext& geos, std::span<const double> xy);

}  // namespace textfeed::augment
