// The panet profile: mmocr 1.x's PANet configuration (docs/targets.md §9.4).
#include "augment/panet/profiles.h"

#include "augment/mmocr/profile_defaults.h"

namespace textfeed::augment {
namespace {

// The chain ends with 736 x 736 images; the test pipeline's resize fits a 1344 px canvas.
Status panet_side(const AugmentOptions& o) { return mmocr::mmocr_side_rule(o, 736); }

void panet_defaults(AugmentOptions& o) { mmocr::set_mmocr_defaults(o, 736, false, 1344); }

constexpr ProfileEntry kProfiles[] = {
    {.name = "panet",
     .profile = Profile::kPanet,
     .set_defaults = panet_defaults,
     .validate_eval = mmocr::mmocr_eval_rule,
     .doc =
         "mmocr 1.x's PANet training chain: text and kernel instance maps and the effective mask",
     .maps_without_channel_axis = true,
     .trains_at_image_size = false,
     .validate_recipe = panet_side},
};

}  // namespace

FamilyEntry panet_entry() { return {"panet", kProfiles, {}}; }

}  // namespace textfeed::augment
