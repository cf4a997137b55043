// mmocr's polygon offset and shrink distance (docs/targets.md §9.1): mmocr.utils.offset_polygon
// through Clipper 6.4.2 as pyclipper drives it, shapely's area and length through GEOS, and the
// shrink distance rule of SegBasedModuleLoss._generate_kernels. Shared by the PSENet, PANet and
// mmocr DBNet targets (augment/geometry/text_kernels.h, augment/db/mmocr_targets.h).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "base/status.h"

namespace textfeed::augment {

// What shapely.geometry.Polygon(xy) reports: .area (>= 0) and .length (the ring's perimeter), px.
struct RingMeasure {
  double area = 0;
  double length = 0;
};

// shapely 1.8's Polygon(xy).area and .length for the points `xy` (2 per point, >= 3 points,
// finite), computed by GEOS as shapely does (the ring closed with its first point unless it has 4
// or more points and already ends on it). Errors: kInvalidArgument (fewer than 3 points, a ring
// GEOS refuses), kInternal (GEOS failed). Thread-safety: reentrant (a GEOS context per call).
Result<RingMeasure> shapely_ring_measure(std::span<const double> xy);

// "No cap" for kernel_shrink_distance: mmocr's default max_shrink_dist, sys.maxsize.
inline constexpr int64_t kNoShrinkCap = std::numeric_limits<int64_t>::max();

// The shrink distance of _generate_kernels in px: min(int(A (1 - r^2) / (L + 0.001) + 0.5), cap),
// with A and L of the polygon whose vertices were truncated to int32. An integer; 0 at r = 1.
int64_t kernel_shrink_distance(const RingMeasure& ring, double shrink_ratio, int64_t max_px);

// mmocr.utils.offset_polygon(xy, distance_px) on integer vertices `xy` (2 per point; the reference
// truncates float vertices toward zero first, as pyclipper's conversion does): a Clipper offset
// with round joins of the closed polygon (miter limit 2, arc tolerance 0.25), outward for
// distance_px > 0, inward for < 0; at 0 Clipper still cleans the outline (a zero-area outline
// vanishes, a self-intersecting one keeps the lobes of one orientation). Returns the flat int32 xy
// of the one piece the reference keeps: none (empty) when Clipper returns no piece or pieces of
// different point counts (numpy then builds a ragged object array, which offset_polygon takes for a
// split), otherwise the first piece. Errors: kInternal (Clipper threw). Thread-safety: reentrant.
Result<std::vector<int32_t>> offset_polygon(std::span<const int32_t> xy, double distance_px);

}  // namespace textfeed::augment
