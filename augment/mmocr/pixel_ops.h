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
};

// Applies `ops` to `image` (uint8 HWC, 3 channels; the chain's input size at ops[0]) and returns a
// view of the result (in `scratch`, or `image` itself when ops is empty), of the size the last op
// gives. Errors: kInvalidArgument (an op whose rectangle leaves its image, a size that does not
// agree), kInternal (OpenCV failed).
Result<ImageView> apply_pixel_ops(const ImageView& image, std::span<const PixelOp> ops,
                                  PixelScratch& scratch);

}  // namespace textfeed::augment::mmocr
