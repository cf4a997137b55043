// The fcenet family: mmocr's FCENet training chain (augment/mmocr/family_chain.h) and a builder
// that writes make_fce_targets's planes into the batch rows.
#include "augment/fcenet/family.h"

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
    auto t = make_fce_targets(scratch_.words(words, labels, side));
    if (!t.ok()) return t.status();
    for (size_t l = 0; l < t->levels.size(); ++l) {
      const FceLevelTargets& level = t->levels[l];
      mmocr::copy_plane<float>(out[l], 0, std::span<const float>(level.maps),
                               kFceMapChannels * level.height, level.width);
    }
    return Status();
  }

 private:
  mmocr::WordsScratch scratch_;
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
