// The border band of one polygon for the DB threshold map: MakeBorderMap._distance of every pixel
// near one edge, divided by the band width, clipped to [0, 1], stored as float32 and folded into
// the per-pixel min over the polygon's edges with NaN propagating as NumPy's min does
// (docs/targets.md §4.1). Two formulas: kReference repeats the reference's float64 steps bit for
// bit; kFast takes the same branch (decided by the same float64 sign) and computes the distance to
// the line from the cross product, then the root and the division in float32, within a few float32
// ulps of the reference (its own cancellation included). Whichever kernel runs, a formula gives the
// same bits: the kernels differ only in how many pixels share one instruction. Internal to augment
// (db_targets.cc and its tests).
#pragma once

namespace textfeed::augment::internal {

// One edge p1 -> p2 in the band frame (px), sd = |p1 - p2|^2 as the reference computes it, and
// the band width (px, > 0).
struct DbEdge {
  double p1x, p1y, p2x, p2y, sd, width;
};

// A window of one polygon's band: columns [x0, x1], rows [y0, y1] in the band frame; `band` holds
// its values row-major (x1 - x0 + 1 per row), borrowed for the call.
struct DbBandRegion {
  long x0, y0, x1, y1;
  float* band;
};

// How many pixels one instruction computes: kScalar 1, kSse2 2 (kReference only; kFast runs
// kScalar there), kAvx2 4. Chosen at run time; the results are identical.
enum class DbBandKernel { kScalar, kSse2, kAvx2 };

enum class DbBandFormula { kFast, kReference };

// Whether this CPU (and build) runs `kernel`; kScalar always.
bool db_band_kernel_supported(DbBandKernel kernel);

// The widest supported kernel.
DbBandKernel best_db_band_kernel();

// Folds edge `e` into `r`: each pixel within e.width + 1 px of the segment gets
// min(band, float32(clip(distance / width, 0, 1))) with NaN kept; a pixel farther away would get 1
// and is not visited. `kernel` must be supported. Thread-safety: reentrant.
void fold_db_edge(const DbBandRegion& r, const DbEdge& e, DbBandFormula formula,
                  DbBandKernel kernel);

}  // namespace textfeed::augment::internal
