// The invalid_polygon policy: defects found with plain arithmetic and GEOS's validity test, rings
// repaired with GEOS's make-valid.
#include "augment/geometry/polygon_policy.h"

#include <geos_c.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace textfeed::augment {

struct PolygonPolicy::Geos {
  GEOSContextHandle_t ctx = GEOS_init_r();
  ~Geos() {
    if (ctx) GEOS_finish_r(ctx);
  }
  // A polygon of the ring `xy` (closed here), or null. The caller destroys it.
  GEOSGeometry* polygon(std::span<const double> xy) const {
    const unsigned n = static_cast<unsigned>(xy.size() / 2);
    GEOSCoordSequence* seq = GEOSCoordSeq_create_r(ctx, n + 1, 2);
    if (!seq) return nullptr;
    for (unsigned i = 0; i <= n; ++i) {
      const unsigned k = i % n;
      GEOSCoordSeq_setXY_r(ctx, seq, i, xy[2 * k], xy[2 * k + 1]);
    }
    GEOSGeometry* ring = GEOSGeom_createLinearRing_r(ctx, seq);  // owns seq, even on failure
    if (!ring) return nullptr;
    return GEOSGeom_createPolygon_r(ctx, ring, nullptr, 0);  // owns ring
  }
};

namespace {

bool finite_and_bounded(std::span<const double> xy) {
  for (double v : xy)
    if (!(std::abs(v) <= kMaxPolygonCoordinate)) return false;  // NaN fails too
  return true;
}

// Whether every point lies on the line through the first point and the first point unlike it.
bool collinear(std::span<const double> xy) {
  size_t k = 2;
  while (k + 1 < xy.size() && xy[k] == xy[0] && xy[k + 1] == xy[1]) k += 2;
  if (k + 1 >= xy.size()) return true;
  const double dx = xy[k] - xy[0], dy = xy[k + 1] - xy[1];
  for (size_t i = k + 2; i + 1 < xy.size(); i += 2)
    if (dx * (xy[i + 1] - xy[1]) - dy * (xy[i] - xy[0]) != 0) return false;
  return true;
}

size_t distinct_points(std::span<const double> xy) {
  std::vector<std::pair<double, double>> p;
  p.reserve(xy.size() / 2);
  for (size_t i = 0; i + 1 < xy.size(); i += 2) p.emplace_back(xy[i], xy[i + 1]);
  std::sort(p.begin(), p.end());
  return static_cast<size_t>(std::unique(p.begin(), p.end()) - p.begin());
}

bool misses_image(std::span<const double> xy, int w, int h) {
  double x0 = xy[0], x1 = xy[0], y0 = xy[1], y1 = xy[1];
  for (size_t i = 2; i + 1 < xy.size(); i += 2) {
    x0 = std::min(x0, xy[i]), x1 = std::max(x1, xy[i]);
    y0 = std::min(y0, xy[i + 1]), y1 = std::max(y1, xy[i + 1]);
  }
  return x1 < 0 || y1 < 0 || x0 > w || y0 > h;
}

// Whether segments pq and rs cross at a point inside both (touching and collinear overlaps do not
// count: they cost make-valid little).
bool cross(const double* p, const double* q, const double* r, const double* s) {
  auto side = [](const double* a, const double* b, const double* c) {
    const double v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    return (v > 0) - (v < 0);
  };
  return side(p, q, r) * side(p, q, s) < 0 && side(r, s, p) * side(r, s, q) < 0;
}

// Whether the ring crosses itself more than `cap` times. make-valid's cost grows with the
// arrangement it builds (points plus crossings, squared at worst): a ring of a hundred random
// points takes it seconds, a word's bow-tie microseconds.
bool crosses_more_than(std::span<const double> xy, size_t cap) {
  const size_t n = xy.size() / 2;
  size_t found = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 2; j < n; ++j) {
      if (i == 0 && j == n - 1) continue;  // adjacent through the closing edge
      if (cross(&xy[2 * i], &xy[2 * ((i + 1) % n)], &xy[2 * j], &xy[2 * ((j + 1) % n)]) &&
          ++found > cap)
        return true;
    }
  return false;
}

// The polygon of largest area among `g`'s parts (recursing into collections), or null.
const GEOSGeometry* largest_polygon(GEOSContextHandle_t ctx, const GEOSGeometry* g,
                                    double& best_area) {
  const int type = GEOSGeomTypeId_r(ctx, g);
  if (type == GEOS_POLYGON) {
    double area = 0;
    if (GEOSArea_r(ctx, g, &area) == 1 && area > best_area) {
      best_area = area;
      return g;
    }
    return nullptr;
  }
  if (type != GEOS_MULTIPOLYGON && type != GEOS_GEOMETRYCOLLECTION) return nullptr;
  const GEOSGeometry* best = nullptr;
  const int parts = GEOSGetNumGeometries_r(ctx, g);
  for (int i = 0; i < parts; ++i)
    if (const GEOSGeometry* p = largest_polygon(ctx, GEOSGetGeometryN_r(ctx, g, i), best_area))
      best = p;
  return best;
}

// The exterior ring of `poly` without its closing point, appended to `out`. False if it is not a
// ring of at least 3 points.
bool append_exterior(GEOSContextHandle_t ctx, const GEOSGeometry* poly, std::vector<double>& out) {
  const GEOSGeometry* ring = GEOSGetExteriorRing_r(ctx, poly);
  const GEOSCoordSequence* seq = ring ? GEOSGeom_getCoordSeq_r(ctx, ring) : nullptr;
  unsigned size = 0;
  if (!seq || GEOSCoordSeq_getSize_r(ctx, seq, &size) != 1 || size < 4) return false;
  for (unsigned i = 0; i + 1 < size; ++i) {
    double x = 0, y = 0;
    if (GEOSCoordSeq_getXY_r(ctx, seq, i, &x, &y) != 1) return false;
    out.push_back(x);
    out.push_back(y);
  }
  return true;
}

void count(PolygonDefect d, PolygonCounts& c) {
  switch (d) {
    case PolygonDefect::kNone:
      break;
    case PolygonDefect::kNonFinite:
      ++c.non_finite;
      break;
    case PolygonDefect::kDegenerate:
      ++c.degenerate;
      break;
    case PolygonDefect::kOutOfImage:
      ++c.out_of_image;
      break;
    case PolygonDefect::kSelfIntersecting:
      ++c.self_intersecting;
      break;
  }
}

}  // namespace

PolygonPolicy::PolygonPolicy(InvalidPolygon policy)
    : policy_(policy), geos_(std::make_unique<Geos>()) {
  if (geos_->ctx)
    GEOSContext_setErrorMessageHandler_r(geos_->ctx, nullptr,
                                         nullptr);  // errors come back as codes
}

PolygonPolicy::~PolygonPolicy() = default;

PolygonDefect PolygonPolicy::inspect(std::span<const double> xy, int image_w, int image_h) {
  if (xy.size() < 2 || !finite_and_bounded(xy)) return PolygonDefect::kNonFinite;
  if (xy.size() / 2 > kMaxPolygonPoints)
    return PolygonDefect::kSelfIntersecting;  // not worth GEOS's time
  if (xy.size() < 6 || distinct_points(xy) < 3 || collinear(xy)) return PolygonDefect::kDegenerate;
  if (misses_image(xy, image_w, image_h)) return PolygonDefect::kOutOfImage;
  if (!geos_->ctx) return PolygonDefect::kNone;  // no GEOS context: the targets still cope (keep)
  GEOSGeometry* poly = geos_->polygon(xy);
  const char valid = poly ? GEOSisValid_r(geos_->ctx, poly) : 0;
  if (poly) GEOSGeom_destroy_r(geos_->ctx, poly);
  return valid == 1 ? PolygonDefect::kNone : PolygonDefect::kSelfIntersecting;
}

bool PolygonPolicy::repair(std::span<const double> xy, std::vector<double>& out) {
  GEOSContextHandle_t ctx = geos_->ctx;
  if (xy.size() / 2 > kMaxRepairPoints || crosses_more_than(xy, kMaxRepairCrossings)) return false;
  GEOSGeometry* poly = ctx ? geos_->polygon(xy) : nullptr;
  if (!poly) return false;
  GEOSGeometry* fixed = GEOSMakeValid_r(ctx, poly);
  GEOSGeom_destroy_r(ctx, poly);
  if (!fixed) return false;
  double area = 0;
  const GEOSGeometry* best = largest_polygon(ctx, fixed, area);
  const size_t before = out.size();
  const bool ok = best != nullptr && area > 0 && append_exterior(ctx, best, out);
  if (!ok) out.resize(before);
  GEOSGeom_destroy_r(ctx, fixed);
  return ok;
}

Status PolygonPolicy::apply(PolygonSet& words, int image_w, int image_h, PolygonCounts& counts) {
  const size_t n = words.ends.size();
  if (words.labels.size() != n || (n > 0 && words.xy.size() != 2 * size_t{words.ends.back()}))
    return Status::invalid_argument("invalid_polygon: " + std::to_string(n) + " words, " +
                                    std::to_string(words.labels.size()) + " labels and " +
                                    std::to_string(words.xy.size()) + " coordinates do not match");
  out_.xy.clear(), out_.ends.clear(), out_.labels.clear();
  uint32_t first = 0;
  for (size_t k = 0; k < n; ++k) {
    if (words.ends[k] < first)
      return Status::invalid_argument("invalid_polygon: word ends decrease");
    const std::span<const double> xy(words.xy.data() + 2 * size_t{first},
                                     2 * size_t{words.ends[k] - first});
    first = words.ends[k];
    const PolygonDefect defect = inspect(xy, image_w, image_h);
    count(defect, counts);
    unsigned char label = words.labels[k];
    if (defect == PolygonDefect::kNonFinite) {
      ++counts.ignored;  // dropped: nothing can be computed from it
      continue;
    }
    const size_t start = out_.xy.size();
    if (policy_ == InvalidPolygon::kRepair && defect == PolygonDefect::kSelfIntersecting &&
        repair(xy, out_.xy)) {
      ++counts.repaired;
      // The largest piece may itself miss the image (or be a sliver): then it is ignored too.
      const std::span<const double> fixed(out_.xy.data() + start, out_.xy.size() - start);
      if (label != 0 && inspect(fixed, image_w, image_h) != PolygonDefect::kNone) {
        label = 0;
        ++counts.ignored;
      }
    } else {
      out_.xy.insert(out_.xy.end(), xy.begin(), xy.end());
      if (defect != PolygonDefect::kNone && policy_ != InvalidPolygon::kKeep && label != 0) {
        label = 0;
        ++counts.ignored;
      }
    }
    out_.ends.push_back(static_cast<uint32_t>(out_.xy.size() / 2));
    out_.labels.push_back(label);
  }
  std::swap(words, out_);
  return Status();
}

}  // namespace textfeed::augment
