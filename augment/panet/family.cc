// The panet family: mmocr's PANet training chain (augment/mmocr/family_chain.h) and a builder
// that draws the PANet targets straight into the batch rows.
#include "augment/panet/family.h"

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "augment/mmocr/family_support.h"
#include "augment/panet/targets.h"

namespace textfeed::augment {
namespace {

// compact_masks: gt_mask uint8; the kernels stay float32 (they hold the instance ids the
// embedding loss reads).
class PANetTargetBuilder final : public TargetBuilder {
 public:
  explicit PANetTargetBuilder(bool compact) : mask_(compact ? DType::kU8 : DType::kF32) {}

  std::vector<TargetTensor> tensors(int side) const override {
    return {{"gt_kernels", DType::kF32, 2, side}, {"gt_mask", mask_, 1, side}};
  }

  Status build(std::span<const MutableImageView> out, const PolygonsView& words,
               std::span<const unsigned char> labels, int side) override {
    TF_RETURN_IF_ERROR(mmocr::check_target_views(out, tensors(side)));
    const std::array<MutableImageView, 2> kernels = {mmocr::view_rows(out[0], 0, side),
                                                     mmocr::view_rows(out[0], side, side)};
    // The slot holds the previous batch's values: every plane is filled before it is drawn on.
    const TextKernelPlanes planes{kernels, out[1], /*kernels_zeroed=*/false};
    return draw_pan_targets(scratch_.words(words, labels, side), planes, kernel_scratch_);
  }

 private:
  DType mask_;
  mmocr::WordsScratch scratch_;
  TextKernelScratch kernel_scratch_;
};

std::unique_ptr<TargetBuilder> make_builder(const AugmentOptions& o) {
  return std::make_unique<PANetTargetBuilder>(o.compact_masks);
}

constexpr Profile kProfile = Profile::kPanet;

}  // namespace

const Family& panet_family() {
  static const mmocr::MmocrFamily family("panet", &kProfile, mmocr::ChainKind::kPanet,
                                         make_builder);
  return family;
}

}  // namespace textfeed::augment
