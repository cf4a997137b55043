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

// compact_masks: both tensors uint8, the kernels binarised (PSEModuleLoss binarises them, > 0.5,
// before its losses).
class PSENetTargetBuilder final : public TargetBuilder {
 public:
  explicit PSENetTargetBuilder(bool compact) : dtype_(compact ? DType::kU8 : DType::kF32) {}

  std::vector<TargetTensor> tensors(int side) const override {
    return {{"gt_kernels", dtype_, kPseKernels, side}, {"gt_mask", dtype_, 1, side}};
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
  DType dtype_;
  mmocr::WordsScratch scratch_;
  TextKernelScratch kernel_scratch_;
};

std::unique_ptr<TargetBuilder> make_builder(const AugmentOptions& o) {
  return std::make_unique<PSENetTargetBuilder>(o.compact_masks);
}

constexpr Profile kProfile = Profile::kPsenet;

}  // namespace

const Family& psenet_family() {
  static const mmocr::MmocrFamily family("psenet", &kProfile, mmocr::ChainKind::kPsenet,
                                         make_builder);
  return family;
}

}  // namespace textfeed::augment
