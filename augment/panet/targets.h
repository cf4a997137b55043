// PANet's training targets as mmocr 1.x's PANModuleLoss._get_target_single builds them
// (docs/targets.md §9.1): the text region and the kernel at shrink ratios 1.0 and 0.5 with the
// shrink distance capped at 20 px, and the effective mask. The kernels are
// augment/geometry/text_kernels.h's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "augment/geometry/text_kernels.h"
#include "base/status.h"

namespace textfeed::augment {

// PANModuleLoss's defaults: shrink_ratio and max_shrink_dist.
inline constexpr std::array<double, 2> kPanShrinkRatios = {1.0, 0.5};
inline constexpr int64_t kPanMaxShrinkDistPx = 20;

// gt_kernels (2, H, W) and gt_mask (H, W), float32. Both kernels are instance maps: a pixel holds
// the instance id 1 + the index of the last word (input order) covering it, 0 for background.
// PANModuleLoss hands them as they are to its embedding loss (text instances, kernel instances)
// and binarises them (> 0.5) for the text and kernel losses.
struct PanTargets {
  TextKernels kernels;

  // Channel 0 (the text instances) and channel 1 (the kernel instances), H x W row-major; valid
  // while this object lives.
  std::span<const float> text_instances() const { return channel(0); }
  std::span<const float> kernel_instances() const { return channel(1); }

 private:
  std::span<const float> channel(size_t c) const {
    const size_t plane = static_cast<size_t>(kernels.height) * static_cast<size_t>(kernels.width);
    return std::span<const float>(kernels.kernels).subspan(c * plane, plane);
  }
};

// Errors: kInvalidArgument (what check_text_kernel_words refuses, naming the polygon), kInternal
// (Clipper or GEOS failed). Thread-safety: reentrant.
Result<PanTargets> make_pan_targets(const TextKernelWords& words);

// What make_pan_targets refuses before it draws (kInvalidArgument, worded as it words it), so that
// a caller can check the words before it allocates the planes.
Status check_pan_words(const TextKernelWords& words);

// make_pan_targets drawn into the caller's planes (draw_text_kernels: the text and kernel instance
// planes and the mask, each written once). Errors: make_pan_targets's, and kInvalidArgument for
// planes that do not match. Thread-safety: reentrant with one scratch per thread.
Status draw_pan_targets(const TextKernelWords& words, const TextKernelPlanes& planes,
                        TextKernelScratch& scratch);

}  // namespace textfeed::augment
