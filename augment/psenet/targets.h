// PSENet's training targets as mmocr 1.x's PSEModuleLoss._get_target_single builds them
// (docs/targets.md §9.1): the text kernels at shrink ratios 1.0, 0.9, ..., 0.4 with the shrink
// distance capped at 20 px, and the effective mask. The kernels are
// augment/geometry/text_kernels.h's.
#pragma once

#include <array>
#include <cstdint>

#include "augment/geometry/text_kernels.h"
#include "base/status.h"

namespace textfeed::augment {

// PSEModuleLoss's defaults: shrink_ratio and max_shrink_dist.
inline constexpr std::array<double, 7> kPseShrinkRatios = {1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4};
inline constexpr int64_t kPseMaxShrinkDistPx = 20;

// gt_kernels (7, H, W) and gt_mask (H, W), float32 (TextKernels). The kernels hold 1 + the word
// index; PSEModuleLoss binarises them (> 0.5) before its losses. Errors: kInvalidArgument (what
// check_text_kernel_words refuses, naming the polygon), kInternal (Clipper or GEOS failed).
// Thread-safety: reentrant.
Result<TextKernels> make_pse_targets(const TextKernelWords& words);

// What make_pse_targets refuses before it draws (kInvalidArgument, worded as it words it), so that
// a caller can check the words before it allocates the planes.
Status check_pse_words(const TextKernelWords& words);

// make_pse_targets drawn into the caller's planes (draw_text_kernels: 7 kernel planes and the
// mask, each written once). Errors: make_pse_targets's, and kInvalidArgument for planes that do
// not match. Thread-safety: reentrant with one scratch per thread.
Status draw_pse_targets(const TextKernelWords& words, const TextKernelPlanes& planes,
                        TextKernelScratch& scratch);

}  // namespace textfeed::augment
