// DBNet's training targets as mmocr 1.x's DBModuleLoss._get_target_single builds them
// (docs/targets.md §9.1, "mmocr's DBNet"), with its constructor's defaults. Not PaddleOCR's
// MakeBorderMap + MakeShrinkMap (augment/db/targets.h): mmocr judges a word by its minimum-area
// rectangle, shrinks it with mmocr's integer kernel rule (augment/geometry/text_kernels.h), draws
// the threshold map only for the words that survive the shrink, and computes its distances with a
// guarded, clipped formula partly in float32.
#pragma once

#include <cstdint>
#include <vector>

#include "augment/geometry/text_kernels.h"
#include "base/status.h"

namespace textfeed::augment {

// DBModuleLoss's defaults: shrink_ratio, thr_min, thr_max, min_sidelength (px).
inline constexpr double kMmocrDbShrinkRatio = 0.4;
inline constexpr double kMmocrDbThrMin = 0.3;
inline constexpr double kMmocrDbThrMax = 0.7;
inline constexpr double kMmocrDbMinSidelengthPx = 8;

// The targets, each plane (1, H, W) float32 row-major:
//   shrink:      1 on the union of the shrunk kernels of the words kept, else 0 (gt_shrink).
//   shrink_mask: 0 inside every ignored word (given, invalid or failed to shrink), else 1.
//   thr:         0.3 away from text, up to 0.7 on the borders of the words kept (gt_thr).
//   thr_mask:    1 inside the expanded polygons of the words kept, else 0 (gt_thr_mask).
//   ignored:     (N,) 0/1, the ignore flags after the function (ignored_out).
struct DbMmocrTargets {
  int height = 0;
  int width = 0;
  std::vector<float> shrink;
  std::vector<float> shrink_mask;
  std::vector<float> thr;
  std::vector<float> thr_mask;
  std::vector<uint8_t> ignored;
};

// Errors: kInvalidArgument (what check_text_kernel_words refuses; a kept word whose threshold box
// starts exactly at x = W or y = H, or at least its own width or height beyond it, where the
// reference's slicing raises ValueError), each naming the polygon and the reason; kInternal
// (Clipper or GEOS failed). Thread-safety: reentrant.
Result<DbMmocrTargets> make_db_mmocr_targets(const TextKernelWords& words);

}  // namespace textfeed::augment
