// The psenet family: mmocr's PSENet training chain (augment/mmocr/family_chain.h) and a builder
// that writes make_pse_targets's planes into the batch rows.
#include "augment/psenet/family.h"

#include <memory>
#include <span>
#include <vector>

#include "augment/mmocr/family_support.h"
#include "augment/psenet/targets.h"

namespace textfeed::augment {
namespace {

constexpr int kPseKernels = 7;

class PSENetTargetBuilder final : public TargetBuilder {
 public:
  std::vector<TargetTensor> tensors(int side) const override {
    return {{"gt_kernels", DType::kF32, kPseKernels, side}, {"gt_mask", DType::kF32, 1, side}};
  }

  Status build(std::span<const MutableImageView> out, const PolygonsView& words,
               std::span<const unsigned char> labels, int side) override {
    TF_RETURN_IF_ERROR(mmocr::check_target_views(out, tensors(side)));
    auto t = make_pse_targets(scratch_.words(words, labels, side));
    if (!t.ok()) return t.status();
    const size_t plane = static_cast<size_t>(side) * side;
    const std::span<const float> kernels(t->kernels);
    for (int k = 0; k < kPseKernels; ++k)
      mmocr::copy_plane<float>(out[0], k * side, kernels.subspan(k * plane, plane), side, side);
    mmocr::copy_plane<float>(out[1], 0, std::span<const float>(t->mask), side, side);
    return Status();
  }

 private:
  mmocr::WordsScratch scratch_;
};

std::unique_ptr<TargetBuilder> make_builder(const AugmentOptions&) {
  return std::make_unique<PSENetTargetBuilder>();
}

constexpr Profile kProfile = Profile::kPsenet;

}  // namespace

const Family& psenet_family() {
  static const mmocr::MmocrFamily family("psenet", &kProfile, mmocr::ChainKind::kPsenet,
                                         make_builder);
  return family;
}

}  // namespace textfeed::augment
