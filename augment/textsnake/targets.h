// TextSnake's training targets as mmocr 1.x's TextSnakeModuleLoss._get_target_single builds them
// (docs/targets.md §9.2), with its constructor's defaults: the text region, the effective mask,
// the text centre region and, on it, the radius, sin and cos maps. The centre line is
// augment/geometry/sidelines.h's, computed in float32 as the reference does.
#pragma once

#include <cstdint>
#include <vector>

#include "augment/geometry/sidelines.h"
#include "augment/geometry/text_kernels.h"
#include "base/image.h"
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

// Where draw_textsnake_targets draws: planes of the caller's, one channel, the words' height x
// width each (uint8 masks, float32 maps, as TextSnakeTargets), borrowed for the call.
struct TextSnakePlanes {
  MutableImageView text_mask, mask, center_region_mask, radius_map, sin_map, cos_map;
  // True when every plane but `mask` already holds 0 (fresh np.zeros arrays): they are then only
  // drawn on, so pages no word reaches stay untouched. False: each is filled with 0 first.
  bool zeroed = false;
};

// Buffers draw_textsnake_targets reuses from call to call; what they hold between calls means
// nothing. Not thread-safe: one per thread.
struct TextSnakeScratch {
  std::vector<int32_t> xy;                // one word's vertices truncated to int32
  std::vector<CurvePoint<float>> points;  // one word's vertices
};

// What make_textsnake_targets refuses before it draws (kInvalidArgument, worded as it words it),
// so that a caller can check the words before it allocates the planes.
Status check_textsnake_words(const TextKernelWords& words);

// make_textsnake_targets drawn into `planes`: each plane filled with its background once (mask 1,
// the others 0 unless zeroed), then drawn on. Errors: make_textsnake_targets's, and
// kInvalidArgument for planes that do not match the canvas; on an error the planes' contents are
// unspecified. Thread-safety: reentrant with one scratch per thread.
Status draw_textsnake_targets(const TextKernelWords& words, const TextSnakePlanes& planes,
                              TextSnakeScratch& scratch);

}  // namespace textfeed::augment
