// The db profile's defaults and evaluation rules (docs/targets.md §7-8).
#include "augment/db/profiles.h"

#include <algorithm>
#include <string>

namespace textfeed::augment {
namespace {

// PaddleOCR det_*_db.yml: IaaAugment, EastRandomCropData(640, max_tries 50), MakeBorderMap,
// MakeShrinkMap, NormalizeImage on the BGR image as decoded.
void db_defaults(AugmentOptions& o) {
  o.image_size = 0;
  o.crop_size = 640;
  o.map_scale = 1;
  o.height_jitter = 0;
  o.rotate_deg = 10;
  o.crop_max_tries = 50;
  o.color_jitter_p = 0;
  o.channel_order = ChannelOrder::kBgr;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
  std::copy(mean, mean + 3, o.mean);
  std::copy(std, std + 3, o.std);
}

// PaddleOCR's inference (augment/inference.h) rounds each side to a multiple of 32 and renders
// BGR planes: a model trained on RGB planes would be scored on input it never saw.
Status db_eval_rule(const AugmentOptions& o) {
  if (o.image_size % 32 != 0)
    return Status::invalid_argument(
        "mode=eval with profile db needs image_size a multiple of 32 (PaddleOCR rounds "
        "each side to one), got " +
        std::to_string(o.image_size));
  if (o.channel_order != ChannelOrder::kBgr)
    return Status::invalid_argument(
        "mode=eval with profile db renders PaddleOCR's BGR planes; channel_order=rgb "
        "is not available in eval");
  return Status();
}

constexpr ProfileEntry kProfiles[] = {
    {.name = "db",
     .profile = Profile::kDb,
     .set_defaults = db_defaults,
     .validate_eval = db_eval_rule,
     .doc = "PaddleOCR's DB detection chain: threshold and shrink maps (--set total_epochs=N grows "
            "the shrink ratio)",
     .maps_without_channel_axis = true},
};

using O = AugmentOptions;

// The fields only the DB chain reads (it also reads crop_size, rotate_deg and crop_max_tries).
constexpr EnumName kInvalidPolygonNames[] = {{"keep", static_cast<int>(InvalidPolygon::kKeep)},
                                             {"repair", static_cast<int>(InvalidPolygon::kRepair)},
                                             {"ignore", static_cast<int>(InvalidPolygon::kIgnore)}};
constexpr RecipeField kFields[] = {
    double_field("flip_p", &O::flip_p, {0, 1}, "probability of a horizontal flip", "db"),
    range_field("resize", FieldKind::kFactor, &O::resize, {0, 16, true},
                "the resize factor ~ U[lo, hi]", "db"),
    // The crop search divides by it: 0 is refused here, not per sample.
    double_field("min_crop_side", &O::min_crop_side, {0, 1, true},
                 "the crop search's smallest crop side, as a share of the image side", "db"),
    double_field("shrink_ratio", &O::shrink_ratio, {0, 1, true, true},
                 "the text kernel's shrink ratio (Vatti offset)", "db"),
    double_field("thresh_min", &O::thresh_min, {0, 1}, "the threshold map's low value", "db"),
    double_field("thresh_max", &O::thresh_max, {0, 1},
                 "the threshold map's high value; thresh_min <= thresh_max", "db"),
    int_field("min_text_size", &O::min_text_size, {0, 16384},
              "px; words whose shorter side is smaller are ignored", "db"),
    int_field("total_epochs", &O::total_epochs, {0, 1 << 30},
              "> 0: the shrink ratio grows by 0.2 * epoch / total_epochs (PaddleOCR)", "db"),
    enum_field<&O::invalid_polygon>("invalid_polygon", kInvalidPolygonNames,
                                    "what a polygon that is not a valid ring becomes", "db"),
};

}  // namespace

FamilyEntry db_entry() { return {"db", kProfiles, kFields}; }

}  // namespace textfeed::augment
