// Photometric: colour jitter (brightness, contrast, saturation, hue in a random order, applied
// with probability color_jitter_p) and normalize, written as CHW planes into the caller's view.
// ColorMath::kFused does both in one pass over the crop (plus a sparse pass for contrast's grey
// mean); the albumentations arithmetics jitter a uint8 copy of the crop, op by op, then normalize.
#pragma once

#include "augment/profile.h"
#include "base/compact_row.h"
#include "base/image.h"
#include "base/rng.h"
#include "base/status.h"

namespace textfeed::augment {

// Draws after the geometric draws, always the same count: u < p decides `applied`; then
// brightness, contrast, saturation and hue ~ U[lo, hi] of their AugmentOptions ranges; then a
// uniform permutation of the 4 ops (Fisher-Yates with Rng::below).
ColorParams draw_color_params(const AugmentOptions& options, Rng& rng);

// `crop`: uint8 HWC RGB. `out`: 3 planes stacked (height 3*C, width C, 1 channel) in
// options.channel_order (R G B, or B G R): float32 (x/255 - mean[k])/std[k] for plane k with
// DType::kF32, or uint8 (jittered, not normalized) for kU8.
// kFused: ops clamp to [0, 255] in between, like PIL/torchvision on uint8 images (without their
// intermediate rounding). kAlbumentations131/1412: each op on uint8 pixels exactly as that
// albumentations version computes it (docs/targets.md §2.6). Thread-safe: scratch is per thread.
// Errors: kInvalidArgument (shapes or dtypes); kInternal (OpenCV failed, e.g. out of memory).
Status apply_photometric(const MutableImageView& out, const ImageView& crop,
                         const ColorParams& params, const AugmentOptions& options);

}  // namespace textfeed::augment
