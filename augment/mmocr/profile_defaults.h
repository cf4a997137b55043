// The recipe defaults the four mmocr profiles share (mmocr 1.x's configs), in the light half of
// their registration (augment/<family>/profiles.cc; no OpenCV).
#pragma once

#include <span>

#include "augment/profile.h"

namespace textfeed::augment::mmocr {

// mmocr's configs for a chain ending with side x side images: colour jitter always (torchvision's
// ColorJitter has no probability), brightness 32/255, saturation 0.5, contrast 0.5 only where
// `contrast` (FCENet), no hue; ImageNet mean and std on RGB planes (the data preprocessor's
// bgr_to_rgb); targets at full size; the evaluation canvas `eval_canvas` px.
void set_mmocr_defaults(AugmentOptions& o, int side, bool contrast, int eval_canvas);

// The recipe rows the mmocr families read (compact_masks), registered once by the first of them.
std::span<const RecipeField> mmocr_fields();

// validate_eval of the mmocr profiles: image_size a multiple of 32 (the data preprocessor pads the
// batch to one). Errors: kInvalidArgument.
Status mmocr_eval_rule(const AugmentOptions& o);

// validate_recipe of the mmocr profiles: crop_size equal to `side`, the size the chain ends with
// (its pads, crops and resizes are mmocr's constants). Errors: kInvalidArgument.
Status mmocr_side_rule(const AugmentOptions& o, int side);

}  // namespace textfeed::augment::mmocr
