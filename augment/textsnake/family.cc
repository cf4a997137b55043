// The textsnake family: mmocr's TextSnake training chain (augment/mmocr/family_chain.h) and a
// builder that writes make_textsnake_targets's planes into the batch rows.
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
    auto t = make_textsnake_targets(scratch_.words(words, labels, side));
    if (!t.ok()) return t.status();
    const auto u8 = [](const std::vector<uint8_t>& v) { return std::span<const uint8_t>(v); };
    const auto f32 = [](const std::vector<float>& v) { return std::span<const float>(v); };
    mmocr::copy_plane<uint8_t>(out[0], 0, u8(t->text_mask), side, side);
    mmocr::copy_plane<uint8_t>(out[1], 0, u8(t->mask), side, side);
    mmocr::copy_plane<uint8_t>(out[2], 0, u8(t->center_region_mask), side, side);
    mmocr::copy_plane<float>(out[3], 0, f32(t->radius_map), side, side);
    mmocr::copy_plane<float>(out[4], 0, f32(t->sin_map), side, side);
    mmocr::copy_plane<float>(out[5], 0, f32(t->cos_map), side, side);
    return Status();
  }

 private:
  mmocr::WordsScratch scratch_;
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
