// The textsnake family: mmocr's TextSnake training chain (augment/mmocr/family_chain.h) and a
// builder that draws the TextSnake targets straight into the batch rows.
#include "augment/textsnake/family.h"

#include <memory>
#include <span>
#include <vector>

#include "augment/mmocr/family_support.h"
#include "augment/textsnake/targets.h"

namespace textfeed::augment {
namespace {

class TextSnakeTargetBuilder final : public TargetBuilder {
 public:
  std::vector<TargetTensor> tensors(int side) const override {
    return {{"gt_text_mask", DType::kU8, 1, side},          {"gt_mask", DType::kU8, 1, side},
            {"gt_center_region_mask", DType::kU8, 1, side}, {"gt_radius_map", DType::kF32, 1, side},
            {"gt_sin_map", DType::kF32, 1, side},           {"gt_cos_map", DType::kF32, 1, side}};
  }

  Status build(std::span<const MutableImageView> out, const PolygonsView& words,
               std::span<const unsigned char> labels, int side) override {
    TF_RETURN_IF_ERROR(mmocr::check_target_views(out, tensors(side)));
    // The slot holds the previous batch's values: every plane is filled before it is drawn on.
    const TextSnakePlanes planes{out[0],          out[1], out[2], out[3], out[4], out[5],
                                 /*zeroed=*/false};
    return draw_textsnake_targets(scratch_.words(words, labels, side), planes, snake_scratch_);
  }

 private:
  mmocr::WordsScratch scratch_;
  TextSnakeScratch snake_scratch_;
};

std::unique_ptr<TargetBuilder> make_builder(const AugmentOptions&) {
  return std::make_unique<TextSnakeTargetBuilder>();
}

constexpr Profile kProfile = Profile::kTextsnake;

}  // namespace

const Family& textsnake_family() {
  static const mmocr::MmocrFamily family("textsnake", &kProfile, mmocr::ChainKind::kTextsnake,
                                         make_builder);
  return family;
}

}  // namespace textfeed::augment
