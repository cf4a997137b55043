// The EAST profiles' evaluation preprocessing (augment/inference.h InferenceStyle; docs/targets.md
// §7): the Boostcamp baseline's detect() for upstage and bc7, SakuraRiven's resize_img for sakura.
#pragma once

#include "augment/inference.h"

namespace textfeed::augment {

// The Boostcamp baseline's detect() (both generations: the 7th's inference.py calls the same
// function): the longer side resized to the canvas with OpenCV's bilinear resize, sides rounded
// half to even as Python's round() (unless the scale is exactly 1, where the reference skips the
// resize); the rest of the canvas mirrors the image (OpenCV's BORDER_REFLECT_101, the padding its
// PadIfNeeded applies by default); the ImageNet mean and std (its Normalize() defaults).
const InferenceStyle& baseline_detect_inference();

// SakuraRiven/EAST detect.py resize_img + load_pil: each side floored to a multiple of 32 and the
// image resampled to that size with PIL's bilinear filter (its support widened by the downscale
// factor), the rest of the canvas black, mean 0.5 and std 0.5. The reference runs one image at a
// time at its own size; an image larger than the canvas after flooring is refused, never resized
// further.
const InferenceStyle& sakura_inference();

}  // namespace textfeed::augment
