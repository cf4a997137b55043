// The psenet family: mmocr's PSENet training chain (augment/mmocr/family_chain.h) and a builder
// that draws the PSENet targets straight into the batch rows.
#include "augment/psenet/family.h"

#include <array>
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
    std::array<MutableImageView, kPseKernels> kernels;
    for (int k = 0; k < kPseKernels; ++k) kernels[k] = mmocr::view_rows(out[0], k * side, side);
    // The slot holds the previous batch's values: every plane is filled before it is drawn on.
    const TextKernelPlanes planes{kernels, out[1], /*kernels_zeroed=*/false};
    return draw_pse_targets(scratch_.words(words, labels, side), planes, kernel_scratch_);
  }

 private:
  mmocr::WordsScratch scratch_;
  TextKernelScratch kernel_scratch_;
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
