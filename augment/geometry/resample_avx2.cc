// augment/geometry/resample.h built for AVX2 (resample_kernels.inc; this file alone is compiled
// with -mavx2, and only resample.cc calls it, after checking the CPU).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "augment/geometry/resample.h"

#if !defined(__AVX2__)
#error "resample_avx2.cc must be built with -mavx2"
#endif

namespace textfeed::augment::internal::avx2 {
#include "augment/geometry/resample_kernels.inc"
}  // namespace textfeed::augment::internal::avx2
