// FCENet's training targets as mmocr 1.x's FCEModuleLoss._get_target_single builds them
// (docs/targets.md §9.2), with fourier_degree 5 and the constructor's other defaults: three
// levels (strides 8, 16, 32), each taking the words whose size proportion falls in its range,
// each with a text region, a centre region, an effective mask and the Fourier coefficients of
// every word over its pixels. The centre region is augment/geometry/sidelines.h's, in float64.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include "augment/geometry/sidelines.h"
#include "augment/geometry/text_kernels.h"
#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment {

// FCEModuleLoss's defaults and the FCENet configs' fourier_degree.
inline constexpr int kFceFourierDegree = 5;
inline constexpr int kFceCoefficients = 2 * kFceFourierDegree + 1;  // c_-5 .. c_5
inline constexpr int kFceLevelChannels = 3 + 2 * kFceCoefficients;  // 25
inline constexpr int kFceLevels = 3;
inline constexpr std::array<int, kFceLevels> kFceLevelStrides = {8, 16, 32};
// A word goes to each level whose open range holds max(box w, box h) / canvas height.
inline constexpr std::array<std::array<double, 2>, kFceLevels> kFceLevelProportionRanges = {
    {{0.0, 0.4}, {0.3, 0.7}, {0.6, 1.0}}};
// The outline is resampled to about this many points before the Fourier transform.
inline constexpr int kFceOutlineSamples = 400;
// The start point is the highest of this many points closest in x to the outline's mean.
inline constexpr int kFceStartCandidates = 8;

// One word's Fourier fit at one level: c_k for k = -5..5 after the orientation fix, and what led
// to it (the goldens' debug fields).
struct FceFourierFit {
  std::array<std::complex<double>, kFceCoefficients> coeff{};
  int32_t resampled_n = 0;  // points the outline resampling made
  int32_t start_index = 0;  // which of them became the start point
  bool start_tie = false;   // the start depends on the order argsort gives equal keys
  double cw_margin = 0;     // (|c_1| - |c_-1|) / max(|c_1|, |c_-1|) before the fix
};

// What one level drew: its shape and the goldens' lvlL_* fields, one entry per word it drew.
struct FceLevelInfo {
  int stride = 0;
  int height = 0;  // canvas height / stride, rounded down
  int width = 0;
  std::vector<int32_t> text_index;    // the input words drawn, in drawing order
  std::vector<int32_t> ignore_index;  // the input words masked as ignored
  std::vector<FceFourierFit> fits;    // one per text_index entry
};

// One level: `maps` (25, height, width) float32 row-major. Channel 0: text region; 1: centre
// region; 2: effective mask (0 on the level's ignored words); 3 + j and 14 + j: Re and Im of
// c_(j-5), except that channels 8 and 19 (k = 0) hold Re(c_0) - x and Im(c_0) - y at pixel
// (x, y).
struct FceLevelTargets : FceLevelInfo {
  std::vector<float> maps;
};

struct FceTargets {
  std::array<FceLevelTargets, kFceLevels> levels;
};

// Where draw_fce_targets draws: per level, a float32 one-channel view of (25 * height) rows of
// width values (the channels of FceLevelTargets::maps stacked as rows; height and width the
// canvas's / the level's stride, rounded down), borrowed for the call.
struct FcePlanes {
  std::array<MutableImageView, kFceLevels> maps;
  // True when the maps already hold 0 (fresh np.zeros arrays): they are then only drawn on.
  // False: every channel but the mask is filled with 0 first.
  bool zeroed = false;
};

// Buffers draw_fce_targets reuses from call to call, so that a worker allocates only when a sample
// has more words or points than any before; what they hold between calls means nothing. Not
// thread-safe: one per thread.
struct FceScratch {
  std::vector<int32_t> ints;   // every word's vertices truncated, (x, y)
  std::vector<size_t> starts;  // where each word starts in ints, and the end
  std::vector<std::vector<CurvePoint<double>>> outlines;  // a level's words in level px
  std::vector<int32_t> fill;                              // one outline truncated to int32
  std::vector<int32_t> boxes;                             // a level's centre quads, 8 values each
  std::vector<double> edge_len;                           // one outline's edge lengths
  std::vector<CurvePoint<double>> resampled;              // one outline resampled
  std::vector<double> key, dy;                            // the start point's sort keys and heights
  std::vector<std::vector<double>> cos_by_n, sin_by_n;    // DFT twiddles, by point count
};

// The Fourier fit of one outline (vertices in level pixels): resampled to about 400 points by
// edge length, started at the rule's point (numpy 1.24's argsort order on ties), transformed
// (c = DFT / n, k = -5..5) and reversed where |c_1| < |c_-1|. Errors: kInvalidArgument when the
// resampling makes fewer than 6 points (the reference then fails with IndexError: an outline of
// zero length, or one of hundreds of edges too short to get a point each). Thread-safety:
// reentrant.
Result<FceFourierFit> fce_fourier_fit(std::span<const CurvePoint<double>> outline);

// Errors: kInvalidArgument, naming the polygon and the reason: what check_text_kernel_words
// refuses; a canvas side under 32 px (a level with no rows, where cv2.fillPoly raises; the
// reference accepts a narrow canvas, refused here too); a word with fewer than 4 vertices at a
// level (AssertionError there); what fce_fourier_fit refuses. Thread-safety: reentrant.
Result<FceTargets> make_fce_targets(const TextKernelWords& words);

// What make_fce_targets refuses before it draws (kInvalidArgument, worded as it words it), so that
// a caller can check the words before it allocates the planes.
Status check_fce_words(const TextKernelWords& words);

// make_fce_targets drawn into `planes`, each channel written once (the mask filled with 1, the
// others with 0 unless zeroed, then drawn on); `levels` receives what each level drew (its
// vectors reused). Errors: make_fce_targets's, and kInvalidArgument for planes that do not match
// the canvas; on an error the planes' and levels' contents are unspecified. Thread-safety:
// reentrant with one scratch per thread.
Status draw_fce_targets(const TextKernelWords& words, const FcePlanes& planes,
                        std::array<FceLevelInfo, kFceLevels>& levels, FceScratch& scratch);

}  // namespace textfeed::augment
