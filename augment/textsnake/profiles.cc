// The textsnake profile: mmocr 1.x's TextSnake configuration (docs/targets.md §9.4).
#include "augment/textsnake/profiles.h"

#include "augment/mmocr/profile_defaults.h"

namespace textfeed::augment {
namespace {

// The chain ends with 800 x 800 images; the test pipeline's resize fits a 1344 px canvas.
Status textsnake_side(const AugmentOptions& o) { return mmocr::mmocr_side_rule(o, 800); }

void textsnake_defaults(AugmentOptions& o) { mmocr::set_mmocr_defaults(o, 800, false, 1344); }

constexpr ProfileEntry kProfiles[] = {
    {.name = "textsnake",
     .profile = Profile::kTextsnake,
     .set_defaults = textsnake_defaults,
     .validate_eval = mmocr::mmocr_eval_rule,
     .doc = "mmocr 1.x's TextSnake training chain: text and centre-line regions, mask, radius, sin "
            "and cos maps",
     .maps_without_channel_axis = true,
     .trains_at_image_size = false,
     .validate_recipe = textsnake_side},
};

}  // namespace

FamilyEntry textsnake_entry() { return {"textsnake", kProfiles, {}}; }

}  // namespace textfeed::augment
