// The fused colour ops of apply_photometric on one row of three float planes (color_kernels.inc),
// with the run-time choice of its AVX2 build. Internal to augment.
#pragma once

#include "augment/photometric.h"

namespace textfeed::augment::internal {

// A ColorParams as the row loop uses it, in float.
struct JitterFactors {
  float brightness = 1, contrast = 1, contrast_add = 0, saturation = 1;
  float shift6 = 0;  // hue shift in sixths of a turn
};

// ops[0 .. count) applied to pixels 0 .. n of the planes r, g, b, in place. Thread-safe.
void jitter_row(float* r, float* g, float* b, int n, const ColorOp* ops, int count,
                const JitterFactors& p);

namespace baseline {
// The build for the baseline instruction set, which jitter_row runs where the CPU has no AVX2
// (tests compare the two).
void jitter_row(float* r, float* g, float* b, int n, const ColorOp* ops, int count,
                const JitterFactors& p);
}  // namespace baseline

}  // namespace textfeed::augment::internal
