// The pixel side of mmocr's chains (docs/targets.md §9.4): the PixelOps a chain's transforms
// recorded (augment/mmocr/chain_state.h), applied in order to a uint8 HWC image with OpenCV as the
// reference's transforms do (cv2 bilinear resizes, flips, warps with black borders, crops, pads,
// the fill patches of the canvas rotation and of SourceImagePad).
#pragma once

#include <span>
#include <vector>

#include "augment/mmocr/chain_state.h"
#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment::mmocr {

// Two images a render alternates between (the result of an op and the image before it, which the
// fill patches read). Not thread-safe; reused from sample to sample.
struct PixelScratch {
  Image a, b, patch, mask;
  Image zeros;  // a black image of the last canvas rotation's input size, kept black
};

// Applies `ops` to `image` (uint8 HWC, 3 channels; the chain's input size at ops[0]) and returns a
// view of the result (in `scratch`, or `image` itself when ops is empty), of the size the last op
// gives. Errors: kInvalidArgument (an op whose rectangle leaves its image, a size that does not
// agree), kInternal (OpenCV failed).
Result<ImageView> apply_pixel_ops(const ImageView& image, std::span<const PixelOp> ops,
                                  PixelScratch& scratch);

// The longest prefix of `ops` one warp can do (resizes, flips, warps, crops and pads, not an op a
// fill patch follows, which needs the image before it), for an input of w x h: the matrix from
// input pixels to the prefix's output (pixel centres at integers, as warp_to_crop takes it; a
// resize maps as cv2.resize does, centre to centre), its size, and how many ops it holds.
struct FoldedOps {
  double matrix[6] = {1, 0, 0, 0, 1, 0};
  int out_w = 0, out_h = 0;
  size_t count = 0;
};
FoldedOps fold_warp_prefix(std::span<const PixelOp> ops, int w, int h);

}  // namespace textfeed::augment::mmocr
