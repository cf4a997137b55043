// PSENet targets: the text kernels at PSEModuleLoss's ratios (targets.h).
#include "augment/psenet/targets.h"

namespace textfeed::augment {

Result<TextKernels> make_pse_targets(const TextKernelWords& words) {
  Result<TextKernels> out = make_text_kernels(words, kPseShrinkRatios, kPseMaxShrinkDistPx);
  if (!out.ok()) return out.status().with_context("PSENet targets");
  return out;
}

}  // namespace textfeed::augment
