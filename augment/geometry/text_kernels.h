// mmocr's shrunk text kernels and effective mask (SegBasedModuleLoss._generate_kernels and
// _generate_effective_mask; docs/targets.md §9.1): the targets of PSENet and PANet
// (augment/psenet/targets.h, augment/panet/targets.h) and the shrink map of mmocr's DBNet
// (augment/db/mmocr_targets.h).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace textfeed::augment {

// Bounds on what the mmocr targets accept (a clear kInvalidArgument beyond them): points per
// polygon, |coordinate| in px (inside int32 and float32's exact integers, so every conversion the
// reference makes is defined and exact), canvas side in px.
inline constexpr size_t kMaxTextKernelPolygonPoints = 1024;
inline constexpr double kMaxTextKernelCoordinate = 1e6;
inline constexpr int kMaxTextKernelCanvasSide = 16384;

// The words of one sample as mmocr's data samples hold them; borrowed for the call.
struct TextKernelWords {
  std::span<const float> xy;         // 2 per point (x right, y down, px), polygon after polygon
  std::span<const int32_t> npts;     // points of each polygon (>= 3)
  std::span<const uint8_t> ignored;  // one per polygon, 1 = ignored ('###')
  int height = 0;                    // the canvas (px)
  int width = 0;
};

// Checks `words` (sizes that agree, >= 3 and <= kMaxTextKernelPolygonPoints points per polygon,
// finite coordinates within kMaxTextKernelCoordinate, a canvas of 1..kMaxTextKernelCanvasSide
// per side). Errors: kInvalidArgument, prefixed with `who` and naming the polygon and the reason.
Status check_text_kernel_words(const TextKernelWords& words, std::string_view who);

// Text kernels: `kernels` (K, H, W) float32 row-major, kernel k drawn at shrink ratio k; a pixel
// holds 1 + the index of the last word (input order) whose kernel covers it, else 0 (these are
// the instance ids PANet's embedding loss reads). `mask` (H, W) float32: 0 inside every ignored
// word (vertices truncated to int32), 1 elsewhere.
struct TextKernels {
  int num_kernels = 0;
  int height = 0;
  int width = 0;
  std::vector<float> kernels;
  std::vector<float> mask;
};

// The kernels of every word, ignored ones included (mmocr passes no flags to this step; the mask
// takes them out of training), at each ratio of `shrink_ratios` (each in (0, 1]) with the shrink
// distance capped at max_shrink_dist_px (>= 0), and the effective mask. Errors: kInvalidArgument
// (check_text_kernel_words, a ratio or cap out of range), kInternal (Clipper or GEOS failed).
// Thread-safety: reentrant.
Result<TextKernels> make_text_kernels(const TextKernelWords& words,
                                      std::span<const double> shrink_ratios,
                                      int64_t max_shrink_dist_px);

// One _generate_kernels call drawn into `plane` (H x W float32, row-major, as the caller left it):
// each word with skip[i] == 0 is truncated to int32, shrunk by kernel_shrink_distance(ratio,
// max_shrink_dist_px) (augment/geometry/offset.h) and, if offset_polygon keeps a piece, filled with
// i + 1, later words over earlier ones; drawn[i] tells whether word i was. `words` must have
// passed check_text_kernel_words; skip and drawn hold one entry per word. Errors: kInternal.
Status draw_text_kernel(const TextKernelWords& words, double shrink_ratio,
                        int64_t max_shrink_dist_px, std::span<const uint8_t> skip,
                        std::span<float> plane, std::span<uint8_t> drawn);

// _generate_effective_mask: fills 0 into `plane` (H x W float32, row-major) inside each word i
// with flags[i] != 0, its vertices truncated to int32. `words` must have passed
// check_text_kernel_words.
void fill_ignored_words(const TextKernelWords& words, std::span<const uint8_t> flags,
                        std::span<float> plane);

}  // namespace textfeed::augment
