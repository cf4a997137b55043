// The mmocr profiles' shared defaults (profile_defaults.h).
#include "augment/mmocr/profile_defaults.h"

#include <algorithm>
#include <string>

namespace textfeed::augment::mmocr {
namespace {

// torchvision ColorJitter(brightness=32 / 255, saturation=0.5[, contrast=0.5]).
constexpr double kBrightness = 32.0 / 255;
constexpr double kHalf = 0.5;
constexpr float kMean[3] = {123.675f / 255, 116.28f / 255, 103.53f / 255};
constexpr float kStd[3] = {58.395f / 255, 57.12f / 255, 57.375f / 255};
constexpr int kPadDivisor = 32;

constexpr RecipeField kFields[] = {
    bool_field("compact_masks", &AugmentOptions::compact_masks,
               "0/1 targets as uint8, not float32 (psenet gt_kernels binarised, gt_mask; panet "
               "gt_mask)",
               "psenet, panet"),
};

}  // namespace

std::span<const RecipeField> mmocr_fields() { return kFields; }

void set_mmocr_defaults(AugmentOptions& o, int side, bool contrast, int eval_canvas) {
  o.image_size = eval_canvas;
  o.crop_size = side;
  o.map_scale = 1;
  o.color_jitter_p = 1;
  o.color_math = ColorMath::kFused;
  o.brightness = {1 - kBrightness, 1 + kBrightness};
  o.contrast = contrast ? UniformRange{1 - kHalf, 1 + kHalf} : UniformRange{1, 1};
  o.saturation = {1 - kHalf, 1 + kHalf};
  o.hue = {0, 0};
  o.channel_order = ChannelOrder::kRgb;
  std::copy(kMean, kMean + 3, o.mean);
  std::copy(kStd, kStd + 3, o.std);
}

Status mmocr_eval_rule(const AugmentOptions& o) {
  if (o.image_size % kPadDivisor != 0)
    return Status::invalid_argument(
        "mode=eval with an mmocr profile needs image_size a multiple of 32 (mmocr pads each batch "
        "to one), got " +
        std::to_string(o.image_size));
  return Status();
}

Status mmocr_side_rule(const AugmentOptions& o, int side) {
  if (o.crop_size == side) return Status();
  return Status::invalid_argument(
      "profile " + std::string(profile_name(o.profile)) + " ends with " + std::to_string(side) +
      "x" + std::to_string(side) + " images (mmocr's chain): crop_size must be " +
      std::to_string(side) + ", got " + std::to_string(o.crop_size));
}

}  // namespace textfeed::augment::mmocr
