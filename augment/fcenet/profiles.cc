// The fcenet profile: mmocr 1.x's FCENet configuration (docs/targets.md §9.4).
#include "augment/fcenet/profiles.h"

#include "augment/mmocr/profile_defaults.h"

namespace textfeed::augment {
namespace {

// The chain ends with 800 x 800 images; the test pipeline's resize fits a 2272 px canvas.
Status fcenet_side(const AugmentOptions& o) { return mmocr::mmocr_side_rule(o, 800); }

void fcenet_defaults(AugmentOptions& o) { mmocr::set_mmocr_defaults(o, 800, true, 2272); }

constexpr ProfileEntry kProfiles[] = {
    {.name = "fcenet",
     .profile = Profile::kFcenet,
     .set_defaults = fcenet_defaults,
     .validate_eval = mmocr::mmocr_eval_rule,
     .doc = "mmocr 1.x's FCENet training chain: per level (strides 8, 16, 32) text and centre "
            "regions, mask and Fourier coefficients",
     .maps_without_channel_axis = true,
     .trains_at_image_size = false,
     .validate_recipe = fcenet_side},
};

}  // namespace

FamilyEntry fcenet_entry() { return {"fcenet", kProfiles, {}}; }

}  // namespace textfeed::augment
