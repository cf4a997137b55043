// The panet family: mmocr's PANet training chain (augment/mmocr/family_chain.h) and a builder
// that writes make_pan_targets's planes into the batch rows.
#include "augment/panet/family.h"

#include <memory>
#include <span>
#include <vector>

#include "augment/mmocr/family_support.h"
#include "augment/panet/targets.h"

namespace textfeed::augment {
namespace {

class PANetTargetBuilder final : public TargetBuilder {
 public:
  std::vector<TargetTensor> tensors(int side) const override {
    return {{"gt_kernels", DType::kF32, 2, side}, {"gt_mask", DType::kF32, 1, side}};
  }

  Status build(std::span<const MutableImageView> out, const PolygonsView& words,
               std::span<const unsigned char> labels, int side) override {
    TF_RETURN_IF_ERROR(mmocr::check_target_views(out, tensors(side)));
    auto t = make_pan_targets(scratch_.words(words, labels, side));
    if (!t.ok()) return t.status();
    mmocr::copy_plane<float>(out[0], 0, t->text_instances(), side, side);
    mmocr::copy_plane<float>(out[0], side, t->kernel_instances(), side, side);
    mmocr::copy_plane<float>(out[1], 0, std::span<const float>(t->kernels.mask), side, side);
    return Status();
  }

 private:
  mmocr::WordsScratch scratch_;
};

std::unique_ptr<TargetBuilder> make_builder(const AugmentOptions&) {
  return std::make_unique<PANetTargetBuilder>();
}

constexpr Profile kProfile = Profile::kPanet;

}  // namespace

const Family& panet_family() {
  static const mmocr::MmocrFamily family("panet", &kProfile, mmocr::ChainKind::kPanet,
                                         make_builder);
  return family;
}

}  // namespace textfeed::augment
