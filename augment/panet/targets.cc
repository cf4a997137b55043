// PANet targets: the text kernels at PANModuleLoss's ratios (targets.h).
#include "augment/panet/targets.h"

#include <utility>

namespace textfeed::augment {
namespace {

constexpr std::string_view kWho = "PANet targets";

}  // namespace

Result<PanTargets> make_pan_targets(const TextKernelWords& words) {
  Result<TextKernels> k = make_text_kernels(words, kPanShrinkRatios, kPanMaxShrinkDistPx);
  if (!k.ok()) return k.status().with_context(kWho);
  return PanTargets{std::move(*k)};
}

Status check_pan_words(const TextKernelWords& words) {
  return check_text_kernel_args(words, kPanShrinkRatios, kPanMaxShrinkDistPx).with_context(kWho);
}

Status draw_pan_targets(const TextKernelWords& words, const TextKernelPlanes& planes,
                        TextKernelScratch& scratch) {
  return draw_text_kernels(words, kPanShrinkRatios, kPanMaxShrinkDistPx, planes, scratch)
      .with_context(kWho);
}

}  // namespace textfeed::augment
