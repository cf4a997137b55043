// The recipe's common rows: name, member, bound, doc (docs/targets.md §2, §5 for the semantics).
#include "augment/recipe_fields.h"

namespace textfeed::augment {
namespace {

using O = AugmentOptions;

constexpr RecipeField kCommon[] = {
    // Geometry (docs/targets.md §2.1-2.2).
    int_field("image_size", &O::image_size, {32, 32768, false, false, true},
              "longer side after the resize; 0 = no resize (eval: the canvas side)"),
    int_field("crop_size", &O::crop_size, {8, 16384}, "square crop side, px"),
    double_field("map_scale", &O::map_scale, {0, 1, true},
                 "target map side = int(crop_size * map_scale); 1 / map_scale an integer"),
    double_field("height_jitter", &O::height_jitter, {0, 1, false, true},
                 "adjust_height ratio in [1 - j, 1 + j)"),
    double_field("rotate_deg", &O::rotate_deg, {0, 180}, "rotation angle in [-r, r) degrees"),
    int_field("crop_max_tries", &O::crop_max_tries, {1, 10000},
              "crop positions tried before the fallback"),
    double_field("cut_low", &O::cut_low, {0, 1},
                 "a crop try is rejected if cut_low <= a valid word's kept fraction <= cut_high"),
    double_field("cut_high", &O::cut_high, {0, 1}, "see cut_low; cut_low <= cut_high"),
    bool_field("vertices_f32", &O::vertices_f32,
               "float32 vertex arithmetic in resize and adjust_height (Upstage)"),
    bool_field("int_vertices", &O::int_vertices,
               "truncate y to integers after adjust_height (SakuraRiven)"),
    enum_field<&O::crop_fallback>("crop_fallback", kCropFallbackNames,
                                  "what a crop search that never succeeds keeps"),
    // Photometric, then normalize: (x / 255 - mean) / std.
    double_field("color_jitter_p", &O::color_jitter_p, {0, 1},
                 "probability that the colour jitter runs at all"),
    range_field("brightness", FieldKind::kFactor, &O::brightness, {0, kMaxJitterFactor},
                "brightness factor ~ U[lo, hi]; 1 = identity"),
    range_field("contrast", FieldKind::kFactor, &O::contrast, {0, kMaxJitterFactor},
                "contrast factor ~ U[lo, hi]; 1 = identity"),
    range_field("saturation", FieldKind::kFactor, &O::saturation, {0, kMaxJitterFactor},
                "saturation factor ~ U[lo, hi]; 1 = identity"),
    range_field("hue", FieldKind::kShift, &O::hue, {-0.5, 0.5},
                "hue shift in turns ~ U[lo, hi]; 0 = identity"),
    enum_field<&O::color_math>(
        "color_math", kColorMathNames,
        "the colour operations' arithmetic (fused float, or albumentations')"),
    triple_field("mean", &O::mean, {-1000, 1000}, "normalize's mean per image plane"),
    triple_field("std", &O::std, {1e-6, 1000}, "normalize's std per image plane"),
    enum_field<&O::dtype>("dtype", kDTypeNames,
                          "image tensor type; uint8 leaves normalize to the GPU"),
    enum_field<&O::channel_order>("channel_order", kChannelOrderNames,
                                  "the order of the image tensor's planes"),
    // The EAST targets' switches (docs/targets.md §3, §5).
    enum_field<&O::mask>("mask", kMaskNames, "roi (1 = valid, Upstage) or ignored (1 = ignore)"),
    enum_field<&O::angle_error>("angle_error", kAngleErrorNames,
                                "the angle search's error metric (§5 #11)"),
    enum_field<&O::fill_rule>("fill_rule", kFillRuleNames, "how overlapping words fill (§5 #1)"),
    enum_field<&O::overlap>("overlap", kOverlapNames,
                            "what overlapping words write to the geometry (§5 #2)"),
    enum_field<&O::ignored_targets>("ignored_targets", kIgnoredTargetsNames,
                                    "whether ignored words keep score and geometry (§5 #6)"),
    enum_field<&O::roi_resize>("roi_resize", kRoiResizeNames,
                               "how the ROI mask reaches the map size (§5 #13)"),
    bool_field("fix_orientation", &O::fix_orientation,
               "reorder quads clockwise from the top-left first (§5 #10)"),
    double_field("clamp_geo", &O::clamp_geo, {0, 65536},
                 "clamp the geometry distances to this many px; 0 = off (§5 #17)"),
};

}  // namespace

std::span<const RecipeField> common_fields() { return kCommon; }

}  // namespace textfeed::augment
