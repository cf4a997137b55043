// The EAST profiles' defaults (docs/targets.md §2, §5): upstage is AugmentOptions{} itself.
#include "augment/east/profiles.h"

namespace textfeed::augment {
namespace {

void upstage_defaults(AugmentOptions&) {}

// SakuraRiven/EAST: ICDAR-2015, no resize, crop 512, maps at 0.25, ignored map.
void sakura_defaults(AugmentOptions& o) {
  o.image_size = 0;
  o.crop_size = 512;
  o.map_scale = 0.25;
  o.vertices_f32 = false;
  o.int_vertices = true;
  o.color_jitter_p = 1.0;
  o.mask = MaskKind::kIgnored;
  o.angle_error = AngleError::kSr;
  o.ignored_targets = IgnoredTargets::kNone;
}

// albumentations 1.4.12 ColorJitter(): its __init__ defaults (not its schema's 0.2), p = 0.5.
void bc7_defaults(AugmentOptions& o) {
  o.brightness = o.contrast = o.saturation = {0.8, 1.0};
  o.hue = {-0.5, 0.5};
  o.color_math = ColorMath::kAlbumentations1412;
}

// Every EAST profile evaluates on any image_size > 0.
Status no_eval_rule(const AugmentOptions&) { return Status(); }

constexpr ProfileEntry kProfiles[] = {
    {.name = "upstage",
     .profile = Profile::kUpstage,
     .set_defaults = upstage_defaults,
     .validate_eval = no_eval_rule,
     .doc = "the Upstage/boostcamp EAST baseline (6th generation)"},
    {.name = "sakura",
     .profile = Profile::kSakura,
     .set_defaults = sakura_defaults,
     .validate_eval = no_eval_rule,
     .doc = "SakuraRiven/EAST on ICDAR-2015"},
    // The 7th-generation baseline reads neither 'illegibility' nor 'tags' of a UFO word.
    {.name = "bc7",
     .profile = Profile::kBc7,
     .set_defaults = bc7_defaults,
     .validate_eval = no_eval_rule,
     .reads_ufo_flags = false,
     .doc = "boostcamp 7th generation: upstage with albumentations 1.4.12 ColorJitter()"},
};

}  // namespace

// EAST reads only the common rows of the recipe (augment/recipe_fields.cc).
FamilyEntry east_entry() { return {"east", kProfiles, {}}; }

}  // namespace textfeed::augment
