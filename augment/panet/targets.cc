// PANet targets: the text kernels at PANModuleLoss's ratios (targets.h).
#include "augment/panet/targets.h"

#include <utility>

namespace textfeed::augment {

Result<PanTargets> make_pan_targets(const TextKernelWords& words) {
  Result<TextKernels> k = make_text_kernels(words, kPanShrinkRatios, kPanMaxShrinkDistPx);
  if (!k.ok()) return k.status().with_context("PANet targets");
  return PanTargets{std::move(*k)};
}

}  // namespace textfeed::augment
