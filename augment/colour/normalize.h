// An interleaved 3-channel uint8 image into three float32 planes, normalized: plane k holds
// float(channel[k] of each pixel) * scale[k] + bias[k], rounded after the product and after the
// sum (no fused multiply-add), written with streaming stores (base/stream_store.h), fenced. The
// colour-jitter-free path of augment/colour/photometric.cc; an AVX2 build of the loop is chosen at
// run time where the CPU has it, with the same values.
#pragma once

#include "base/image.h"

namespace textfeed::augment {

// The planes' layout: `out` is 3 * src.height rows of src.width float32 (plane k's row y at
// k * src.height + y), as apply_photometric's output. channel[k] in 0..2; the caller checks shapes.
struct NormalizePlanes {
  int channel[3];
  float scale[3];
  float bias[3];
};

// Thread-safety: reentrant.
void normalize_to_planes(const MutableImageView& out, const ImageView& src,
                         const NormalizePlanes& p);

// The channels of one interleaved 3-channel row of n pixels as floats: dst[k][i] = src[3 i + k].
// Thread-safety: reentrant.
void split_channels(const uint8_t* src, int n, float* const dst[3]);

}  // namespace textfeed::augment
