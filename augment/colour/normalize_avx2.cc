// augment/colour/normalize.h built for AVX2 (normalize_kernels.inc; this file alone is compiled
// with -mavx2, and only normalize.cc calls it, after checking the CPU).
#include <immintrin.h>

#include <cstdint>

#include "augment/colour/normalize.h"
#include "base/stream_store.h"

#if !defined(__AVX2__)
#error "normalize_avx2.cc must be built with -mavx2"
#endif

namespace textfeed::augment::avx2 {
#include "augment/colour/normalize_kernels.inc"
}  // namespace textfeed::augment::avx2
