// The psenet profile: mmocr 1.x's PSENet configuration (docs/targets.md §9.4).
#include "augment/psenet/profiles.h"

#include "augment/mmocr/profile_defaults.h"

namespace textfeed::augment {
namespace {

// The chain ends with 736 x 736 images; the test pipeline's resize fits a 2240 px canvas.
Status psenet_side(const AugmentOptions& o) { return mmocr::mmocr_side_rule(o, 736); }

void psenet_defaults(AugmentOptions& o) { mmocr::set_mmocr_defaults(o, 736, false, 2240); }

constexpr ProfileEntry kProfiles[] = {
    {.name = "psenet",
     .profile = Profile::kPsenet,
     .set_defaults = psenet_defaults,
     .validate_eval = mmocr::mmocr_eval_rule,
     .doc = "mmocr 1.x's PSENet training chain: text kernels at shrink ratios 1.0 to 0.4 and the "
            "effective mask",
     .maps_without_channel_axis = true,
     .trains_at_image_size = false,
     .validate_recipe = psenet_side},
};

}  // namespace

// psenet registers the rows every mmocr family reads (they are listed once).
FamilyEntry psenet_entry() { return {"psenet", kProfiles, mmocr::mmocr_fields()}; }

}  // namespace textfeed::augment
