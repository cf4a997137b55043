// Inference preprocessing: what a reference does to an image before its model sees it at
// evaluation time, with no random draw (docs/targets.md §7 "Evaluation preprocessing"): the image
// resized by the reference's rule, placed at the top left of a canvas x canvas square (a batch
// needs one shape), the rest padded as the reference pads, and normalized. Each family folder
// defines the styles its profiles use (augment/east/inference.cc: the Boostcamp baseline's
// detect() and SakuraRiven's resize_img; augment/db/inference.cc: PaddleOCR's DetResizeForTest),
// and its Family says which profile uses which (augment/family.h Family::inference_style). This
// file holds what they share: the plan, the checks, the planes and PIL's resize.
// Pure per-sample math: no I/O, no threads, no globals; scratch is the caller's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "augment/geometry/resample.h"
#include "augment/profile.h"
#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment {

// Where an image of the source size lands on the canvas. A value type.
struct InferencePlan {
  int canvas = 0;                   // the square's side, px
  int width = 0, height = 0;        // the resized image, at the canvas's top left, px
  double scale_x = 1, scale_y = 1;  // canvas px per source px along x and y (width / source width)
};

// Buffers a worker reuses from image to image. Not thread-safe.
struct InferenceScratch {
  Image resized;              // the resized image (HWC uint8)
  Image canvas;               // the padded canvas (HWC uint8)
  std::vector<uint8_t> pass;  // PIL's resize: the horizontal pass's output
  internal::PilTaps taps;     // PIL's resize: the weights of one pass
};

// The size a style gives an image: the resized image's sides, and the size its scales are of
// (the source's, or the source's after a padding the reference adds first), px.
struct InferenceSize {
  int width = 0, height = 0;
  int base_width = 0, base_height = 0;
};

// The ImageNet mean and std of x / 255 (albumentations' Normalize() and PaddleOCR's NormalizeImage
// defaults), per RGB channel.
inline constexpr float kImageNetMean[3] = {0.485f, 0.456f, 0.406f};
inline constexpr float kImageNetStd[3] = {0.229f, 0.224f, 0.225f};

// How one reference prepares an image for its model at evaluation time. A family folder defines
// one per preprocessing its profiles use, as a constant; the functions are pure, so a style is
// shared by every thread.
struct InferenceStyle {
  // The size of a src_width x src_height image (both >= 1) on a canvas of `canvas` px (>= 1).
  // plan_inference() refuses a size with an empty side or larger than the canvas.
  InferenceSize (*size)(int src_width, int src_height, int canvas);
  // Writes scratch.canvas, allocated to plan.canvas^2 x 3: `src` (HWC RGB uint8, the plan's source
  // size) resized to the plan's width x height at the top left, the rest padded as the reference
  // pads. scratch.resized is allocated to the plan's size for it to use. May throw what OpenCV or
  // the allocator throws (render_inference() turns it into kInternal).
  void (*fill_canvas)(const ImageView& src, const InferencePlan& plan, InferenceScratch& scratch);
  // The normalization of x / 255, per output plane (mean[0] is plane 0's).
  float mean[3] = {0.5f, 0.5f, 0.5f};
  float std[3] = {0.5f, 0.5f, 0.5f};
  // The order of the output planes: kBgr puts the source's blue channel in plane 0.
  ChannelOrder planes = ChannelOrder::kRgb;
  // Whether size() keeps the image's own size whatever the canvas (the reference runs each image
  // at its size): an image can then be too large for the canvas, and a stream checks every image
  // before its first batch (loader/pipeline/eval_scan.h).
  bool keeps_size = false;
  // For plan_inference()'s message on an image larger than the canvas: the step that made the
  // size ("rounding to multiples of 32"), and what fixes it given the larger side of the size
  // (null: "raise image_size to at least" that side).
  std::string_view size_rule;
  std::string (*oversize_fix)(int needed_side) = nullptr;
};

// The style `profile` evaluates with (its family's; augment/family.h). `profile` must be valid.
const InferenceStyle& inference_style(Profile profile);

// Errors: kInvalidArgument naming the sizes (an empty image or canvas, a side that resizes to
// 0 px, a size larger than the canvas: a sakura image wider or taller than the canvas after
// flooring to a multiple of 32, a db image whose rounded sides pass a canvas that is not a
// multiple of 32).
Result<InferencePlan> plan_inference(Profile profile, int src_width, int src_height, int canvas);

// Whether plan_inference() can refuse an image for its size alone (the style keeps each image's
// size, so an image larger than the canvas does not fit); the other profiles fit any size.
bool inference_keeps_size(Profile profile);
// The smallest canvas an image of the source size fits on (0: any canvas).
int inference_canvas_needed(Profile profile, int src_width, int src_height);

// The mean and std (per output plane, of x / 255) that `profile`'s reference inference
// normalizes with.
void inference_normalization(Profile profile, float mean[3], float std[3]);

// Resizes and pads `src` (HWC RGB uint8, plan's source size) as `profile`'s reference does and
// writes the canvas into `out`: 3 planes stacked (height 3 * canvas, width canvas, 1 channel),
// in the style's plane order, float32 normalized as inference_normalization() says, or uint8 (not
// normalized). Errors: kInvalidArgument (shapes or dtypes that do not match the plan), kInternal
// (a library failed).
Status render_inference(const MutableImageView& out, const ImageView& src,
                        const InferencePlan& plan, Profile profile, InferenceScratch& scratch);

// PIL's bilinear resampling of an 8-bit HWC image (Image.resize(..., BILINEAR), no reducing gap):
// separable, horizontal pass first, triangle filter whose support grows with the downscale, 22-bit
// fixed-point weights, each pass rounded and clamped to 0..255. A dimension that does not change
// skips its pass. 3 channels; `out` must be out_w x out_h. Exposed for tests.
void pil_bilinear_resize(const ImageView& src, const MutableImageView& out,
                         InferenceScratch& scratch);

}  // namespace textfeed::augment
