// mmocr's shrunk text kernels and effective mask (SegBasedModuleLoss._generate_kernels and
// _generate_effective_mask; docs/targets.md §9.1): the targets of PSENet and PANet
// (augment/psenet/targets.h, augment/panet/targets.h) and the shrink map of mmocr's DBNet
// (augment/db/mmocr_targets.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "augment/geometry/offset.h"
#include "base/image.h"
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

// A one-channel view of `height` x `width` densely packed values at `data` (borrowed): how the
// Result-returning target functions hand their own planes to the drawing ones.
inline MutableImageView dense_plane(float* data, int height, int width) {
  return {reinterpret_cast<uint8_t*>(data),
          height,
          width,
          1,
          static_cast<ptrdiff_t>(width) * static_cast<ptrdiff_t>(sizeof(float)),
          DType::kF32};
}
inline MutableImageView dense_plane(uint8_t* data, int height, int width) {
  return {data, height, width, 1, static_cast<ptrdiff_t>(width), DType::kU8};
}

// Where draw_text_kernels draws: planes of the caller's (one channel, the words' height x width,
// rows stride_bytes apart), borrowed for the call. Each is float32 (kF32) or, for the 0/1 tensors
// of the compact_masks option, uint8 (kU8): the kernel planes all of one dtype, the mask of its
// own. A uint8 kernel plane holds 1 where a word's kernel covers it (the binarised instance ids).
struct TextKernelPlanes {
  std::span<const MutableImageView> kernels;  // one per shrink ratio
  MutableImageView mask;
  // True when every kernel plane already holds 0 (a fresh np.zeros array): it is then only drawn
  // on, so pages no word reaches stay untouched. False: each is filled with 0 first.
  bool kernels_zeroed = false;
};

// Where one word's shrunk outline at one shrink distance lies in TextKernelScratch::pieces.
struct KernelPiece {
  int64_t distance_px = 0;
  size_t begin = 0;  // in int32 values
  size_t size = 0;   // 0: offset_polygon kept no piece
};

// Buffers the kernel functions reuse from call to call, so that a worker allocates only when a
// sample has more words or points than any before. What they hold between calls means nothing.
// Not thread-safe: one per thread.
struct TextKernelScratch {
  std::vector<int32_t> xy;         // every word's vertices truncated to int32, back to back
  std::vector<size_t> starts;      // where each word starts in xy, and one past the last
  std::vector<double> ring_xy;     // one word's vertices in float64 (the shapely measures)
  std::vector<RingMeasure> rings;  // each word's area and perimeter
  std::vector<int32_t> pieces;     // the shrunk outlines made in this call, back to back
  std::vector<KernelPiece> memo;   // per word, the distances shrunk so far (one slot per ratio)
  std::vector<uint8_t> none;       // one 0 per word: no word skipped
  std::vector<uint8_t> drawn;
};

// What make_text_kernels and draw_text_kernels refuse before they draw (kInvalidArgument, worded
// as they word it), so that a caller can check the arguments before it allocates the planes.
Status check_text_kernel_args(const TextKernelWords& words, std::span<const double> shrink_ratios,
                              int64_t max_shrink_dist_px);

// make_text_kernels drawn into `planes` (one kernel plane per ratio): the kernels as TextKernels
// describes them, the mask filled with 1 and then the ignored words with 0. Every plane is
// written, none read (except that zeroed kernel planes are taken to hold 0). A word whose shrink
// distance repeats at another ratio is offset once. Errors: those of make_text_kernels, and
// kInvalidArgument for planes that do not match the words' canvas or the ratios; on an error the
// planes' contents are unspecified. Thread-safety: reentrant with one scratch per thread.
Status draw_text_kernels(const TextKernelWords& words, std::span<const double> shrink_ratios,
                         int64_t max_shrink_dist_px, const TextKernelPlanes& planes,
                         TextKernelScratch& scratch);

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
