// The db profile's evaluation preprocessing (augment/inference.h InferenceStyle; docs/targets.md
// §7).
#pragma once

#include "augment/inference.h"

namespace textfeed::augment {

// PaddleOCR's DetResizeForTest with limit_type 'max' and limit_side_len = canvas, as its
// predict_det runs it: an image whose sides add up to less than 64 padded with zeros to at least
// 32 x 32 first; the longer side limited to the canvas (ratio canvas / longer side when it is
// longer, else 1), each side truncated to an int, then rounded to the nearest multiple of 32 (half
// to even, at least 32); OpenCV's bilinear resize; the rest of the canvas black; the ImageNet mean
// and std in BGR plane order (the order PaddleOCR's OpenCV decode gives). The canvas must be a
// multiple of 32 (the profile's evaluation rule, augment/db/profiles.cc).
const InferenceStyle& paddle_det_inference();

}  // namespace textfeed::augment
