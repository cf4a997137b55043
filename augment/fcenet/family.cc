// The fcenet family: mmocr's FCENet training chain (augment/mmocr/family_chain.h) and a builder
// that draws the FCENet targets straight into the batch rows.
#include "augment/fcenet/family.h"

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "augment/fcenet/targets.h"
#include "augment/mmocr/family_support.h"

namespace textfeed::augment {
namespace {

constexpr int kFceMapChannels = 25;

class FCENetTargetBuilder final : public TargetBuilder {
 public:
  std::vector<TargetTensor> tensors(int side) const override {
    return {{"p3_map", DType::kF32, kFceMapChannels, side / 8},
            {"p4_map", DType::kF32, kFceMapChannels, side / 16},
            {"p5_map", DType::kF32, kFceMapChannels, side / 32}};
  }

  Status build(std::span<const MutableImageView> out, const PolygonsView& words,
               std::span<const unsigned char> labels, int side) override {
    TF_RETURN_IF_ERROR(mmocr::check_target_views(out, tensors(side)));
    // The slot holds the previous batch's values: every channel is filled before it is drawn on.
    const FcePlanes planes{{out[0], out[1], out[2]}, /*zeroed=*/false};
    return draw_fce_targets(scratch_.words(words, labels, side), planes, levels_, fce_scratch_);
  }

 private:
  mmocr::WordsScratch scratch_;
  FceScratch fce_scratch_;
  std::array<FceLevelInfo, kFceLevels> levels_;  // what the last sample drew (unused here)
};

std::unique_ptr<TargetBuilder> make_builder(const AugmentOptions&) {
  return std::make_unique<FCENetTargetBuilder>();
}

constexpr Profile kProfile = Profile::kFcenet;

}  // namespace

const Family& fcenet_family() {
  static const mmocr::MmocrFamily family("fcenet", &kProfile, mmocr::ChainKind::kFcenet,
                                         make_builder);
  return family;
}

}  // namespace textfeed::augment
