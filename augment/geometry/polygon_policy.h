// The invalid_polygon policy (docs/targets.md §4.5): what a word whose polygon is not a simple,
// finite ring inside the image becomes before the geometry and the targets see it. Readers keep
// every polygon they can parse; this is the one place that judges their shape, so a
// self-intersecting, degenerate, out-of-image or non-finite polygon never reaches a library that
// could crash or hang on it, and every one is counted.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "augment/profile.h"
#include "base/status.h"
#include "base/tensor.h"

namespace textfeed::augment {

// What is wrong with a polygon, the first that applies in this order (PolygonCounts, base/tensor.h,
// counts each).
enum class PolygonDefect : unsigned char {
  kNone,
  kNonFinite,         // a NaN or infinite coordinate (or one beyond kMaxPolygonCoordinate)
  kDegenerate,        // fewer than 3 distinct points, or every point on one line
  kOutOfImage,        // no point of it is inside the image (its bounding box misses the image)
  kSelfIntersecting,  // edges cross or touch other than at shared corners (GEOS: not valid)
};

// Coordinates beyond this many px are treated as non-finite: no image is that large, and every
// later integer conversion stays defined.
inline constexpr double kMaxPolygonCoordinate = 1e6;

// Bounds on GEOS's work per word, so that a hostile ring costs milliseconds, not minutes: a ring of
// more points is judged self-intersecting without asking GEOS (the targets refuse such rings
// anyway), and kRepair repairs only rings of at most kMaxRepairPoints points that cross themselves
// at most kMaxRepairCrossings times (a word's bow-tie or twisted corner); others it ignores.
inline constexpr size_t kMaxPolygonPoints = 1024;
inline constexpr size_t kMaxRepairPoints = 256;
inline constexpr size_t kMaxRepairCrossings = 16;

// A sample's words as flat polygons: word k's points are xy[2 * first .. 2 * ends[k]), where first
// is ends[k - 1] (0 for k = 0); labels: 0 = ignored, anything else = valid.
struct PolygonSet {
  std::vector<double> xy;
  std::vector<uint32_t> ends;
  std::vector<unsigned char> labels;
};

// Applies `policy` to `words` of an image_w x image_h image, in place, adding what it found and
// did to `counts`:
//   kKeep:   only non-finite words change: they are dropped (no reference computes anything for
//            them; the count says so in `ignored`). The others stay as they are, for the targets
//            to compute as the reference does.
//   kIgnore: every defective word becomes an ignored word; non-finite ones are dropped.
//   kRepair: a self-intersecting word becomes the exterior ring of the largest polygon of GEOS's
//            make-valid (ignored if that leaves no area, if the ring is past the bounds above, or
//            if the new ring has a defect of its own, e.g. it misses the image); other defective
//            words as kIgnore.
// A resource type holding a GEOS context; not thread-safe (one per worker thread).
class PolygonPolicy {
 public:
  explicit PolygonPolicy(InvalidPolygon policy);
  ~PolygonPolicy();
  PolygonPolicy(const PolygonPolicy&) = delete;
  PolygonPolicy& operator=(const PolygonPolicy&) = delete;

  // The defect of one polygon (2 * n coordinates) in an image_w x image_h image.
  PolygonDefect inspect(std::span<const double> xy, int image_w, int image_h);

  // Errors: kInvalidArgument (ends/labels that do not describe xy); kInternal (GEOS failed).
  Status apply(PolygonSet& words, int image_w, int image_h, PolygonCounts& counts);

 private:
  struct Geos;
  // Appends the repaired ring of xy to `out`; false (out unchanged) if GEOS leaves no polygon.
  bool repair(std::span<const double> xy, std::vector<double>& out);

  InvalidPolygon policy_;
  std::unique_ptr<Geos> geos_;
  PolygonSet out_;  // reused between calls
};

}  // namespace textfeed::augment
