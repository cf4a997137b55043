// Inference preprocessing: what each reference does to an image before its model sees it at
// evaluation time, with no random draw (docs/targets.md §7 "Evaluation preprocessing"):
//   kUpstage (both boostcamp generations' detect()): the longer side resized to `canvas` with
//     OpenCV's bilinear resize, sides rounded half to even as Python's round(); the image placed at
//     the top left of a canvas x canvas square whose rest mirrors the image (OpenCV's
//     BORDER_REFLECT_101, the padding the reference's PadIfNeeded applies by default); then
//     normalized with the ImageNet mean and std (its Normalize() defaults).
//   kSakura (SakuraRiven/EAST detect.py resize_img + load_pil): each side floored to a multiple
//     of 32 and the image resampled to that size with PIL's bilinear filter (its support widened by
//     the downscale factor); placed at the top left of a canvas x canvas square, the rest black;
//     normalized with mean 0.5, std 0.5. The reference runs one image at a time at its own size;
//     the square canvas is what a batch needs, and an image larger than the canvas after flooring
//     is an error, never resized further.
//   kDb (PaddleOCR's DetResizeForTest with limit_type 'max' and limit_side_len = canvas, as its
//     predict_det runs it): the longer side limited to the canvas (ratio canvas / longer side when
//     it is longer, else 1), each side truncated to an int, then rounded to the nearest multiple
//     of 32 (half to even, at least 32); OpenCV's bilinear resize; placed at the top left of the
//     square, the rest black; normalized with the ImageNet mean and std in BGR plane order (the
//     order PaddleOCR's OpenCV decode gives). The canvas must be a multiple of 32.
// Pure per-sample math: no I/O, no threads, no globals; scratch is the caller's.
#pragma once

#include <cstdint>
#include <vector>

#include "augment/profile.h"
#include "augment/resample.h"
#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment {

// Where an image of the source size lands on the canvas. A value type.
struct InferencePlan {
  int canvas = 0;                   // the square's side, px
  int width = 0, height = 0;        // the resized image, at the canvas's top left, px
  double scale_x = 1, scale_y = 1;  // canvas px per source px along x and y (width / source width)
};

// Errors: kInvalidArgument naming the sizes (an empty image, a side that resizes to 0 px, a
// sakura image wider or taller than the canvas after flooring to a multiple of 32, a db image
// whose rounded sides pass a canvas that is not a multiple of 32).
Result<InferencePlan> plan_inference(Profile profile, int src_width, int src_height, int canvas);

// Buffers a worker reuses from image to image. Not thread-safe.
struct InferenceScratch {
  Image resized;              // the resized image (HWC uint8)
  Image canvas;               // the padded canvas (HWC uint8)
  std::vector<uint8_t> pass;  // sakura: the horizontal pass's output
  internal::PilTaps taps;     // sakura: the weights of one pass
};

// Whether plan_inference() can refuse an image for its size alone (sakura keeps each image's
// size, so an image larger than the canvas does not fit); the other profiles fit any size.
bool inference_keeps_size(Profile profile);
// The smallest canvas an image of the source size fits on (0: any canvas).
int inference_canvas_needed(Profile profile, int src_width, int src_height);

// The mean and std (per output plane, of x / 255) that `profile`'s reference inference
// normalizes with.
void inference_normalization(Profile profile, float mean[3], float std[3]);

// Resizes and pads `src` (HWC RGB uint8, plan's source size) as `profile`'s reference does and
// writes the canvas into `out`: 3 planes stacked (height 3 * canvas, width canvas, 1 channel),
// float32 normalized as inference_normalization() says, or uint8 (not normalized).
// Errors: kInvalidArgument (shapes or dtypes that do not match the plan).
Status render_inference(const MutableImageView& out, const ImageView& src,
                        const InferencePlan& plan, Profile profile, InferenceScratch& scratch);

// PIL's bilinear resampling of an 8-bit HWC image (Image.resize(..., BILINEAR), no reducing gap):
// separable, horizontal pass first, triangle filter whose support grows with the downscale, 22-bit
// fixed-point weights, each pass rounded and clamped to 0..255. A dimension that does not change
// skips its pass. 3 channels; `out` must be out_w x out_h. Exposed for tests.
void pil_bilinear_resize(const ImageView& src, const MutableImageView& out,
                         InferenceScratch& scratch);

}  // namespace textfeed::augment
