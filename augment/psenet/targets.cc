// PSENet targets: the text kernels at PSEModuleLoss's ratios (targets.h).
#include "augment/psenet/targets.h"

namespace textfeed::augment {
namespace {

constexpr std::string_view kWho = "PSENet targets";

}  // namespace

Result<TextKernels> make_pse_targets(const TextKernelWords& words) {
  Result<TextKernels> out = make_text_kernels(words, kPseShrinkRatios, kPseMaxShrinkDistPx);
  if (!out.ok()) return out.status().with_context(kWho);
  return out;
}

Status check_pse_words(const TextKernelWords& words) {
  return check_text_kernel_args(words, kPseShrinkRatios, kPseMaxShrinkDistPx).with_context(kWho);
}

Status draw_pse_targets(const TextKernelWords& words, const TextKernelPlanes& planes,
                        TextKernelScratch& scratch) {
  return draw_text_kernels(words, kPseShrinkRatios, kPseMaxShrinkDistPx, planes, scratch)
      .with_context(kWho);
}

}  // namespace textfeed::augment
