// The fused colour jitter of augment/colour/photometric.cc on one row held as three float planes:
// the four ops in the sample's order, each pixel's values kept in registers from the first op to
// the last. An AVX2 build of the loop is chosen at run time where the CPU has it; both builds give
// the same floats (the same IEEE operations in the same order, no contraction). Internal to
// augment.
#pragma once

#include "augment/colour/photometric.h"

namespace textfeed::augment::internal {

// The ops' constants in float, as the ops use them.
struct JitterSteps {
  ColorOp order[4];
  float brightness;    // v * brightness + 0, clamped to [0, 255]
  float contrast;      // v * contrast + contrast_add, clamped
  float contrast_add;  // grey mean * (1 - contrast)
  float saturation;    // v * s + grey * (1 - s), clamped
  float hue6;          // the hue shift in sixths of a turn, |hue6| <= 3
};

// Pixels [0, n) of the planes r, g, b, in place. Thread-safety: reentrant.
void jitter_row(float* r, float* g, float* b, int n, const JitterSteps& s);

namespace baseline {
// The portable loops alone, whatever the CPU (for tests that compare the builds).
void jitter_row(float* r, float* g, float* b, int n, const JitterSteps& s);
}  // namespace baseline

#if defined(TEXTFEED_AUGMENT_AVX2)
namespace avx2 {
// color_avx2.cc: the first n - n % 8 pixels; returns how many it did.
int jitter_row(float* r, float* g, float* b, int n, const JitterSteps& s);
}  // namespace avx2
#endif

}  // namespace textfeed::augment::internal
