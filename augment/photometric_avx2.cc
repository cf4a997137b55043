// augment/color_jitter.h built for AVX2 (color_kernels.inc; this file alone is compiled with
// -mavx2, and only photometric.cc calls it, after checking the CPU).
#include <cstring>

#include "augment/color_jitter.h"

#if !defined(__AVX2__)
#error "photometric_avx2.cc must be built with -mavx2"
#endif

namespace textfeed::augment::internal::avx2 {
#include "augment/color_kernels.inc"
}  // namespace textfeed::augment::internal::avx2
