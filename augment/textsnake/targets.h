// TextSnake's training targets as mmocr 1.x's TextSnakeModuleLoss._get_target_single builds them
// (docs/targets.md §9.2), with its constructor's defaults: the text region, the effective mask,
// the text centre region and, on it, the radius, sin and cos maps. The centre line is
// augment/geometry/sidelines.h's, computed in float32 as the reference does.
#pragma once

#include <cstdint>
#include <vector>

#include "augment/geometry/text_kernels.h"
#include "base/status.h"

namespace textfeed::augment {

// The targets, each plane (H, W) row-major:
//   text_mask:          uint8, 1 inside every non-ignored word (vertices truncated to int32).
//   mask:               uint8, 0 inside every ignored word, 1 elsewhere (gt_mask).
//   center_region_mask: uint8, 1 on the centre-region quads of the non-ignored words.
//   radius_map:         float32, half the local text height (px) on those quads, else 0.
//   sin_map, cos_map:   float32, the local reading direction (y down) on those quads, else 0.
// Later words and later quads overwrite earlier ones.
struct TextSnakeTargets {
  int height = 0;
  int width = 0;
  std::vector<uint8_t> text_mask;
  std::vector<uint8_t> mask;
  std::vector<uint8_t> center_region_mask;
  std::vector<float> radius_map;
  std::vector<float> sin_map;
  std::vector<float> cos_map;
};

// Errors: kInvalidArgument, naming the polygon and the reason: what check_text_kernel_words
// refuses; a non-ignored word with fewer than 4 vertices once those within 1e-5 px of the next
// are dropped (mmocr raises AssertionError there: zero_area_repeated); a word whose sidelines
// would resample to more than 4M points. Thread-safety: reentrant.
Result<TextSnakeTargets> make_textsnake_targets(const TextKernelWords& words);

}  // namespace textfeed::augment
