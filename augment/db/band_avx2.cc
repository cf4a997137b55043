// The DB border band built for AVX2 (db/band_kernels.inc; this file alone is compiled with -mavx2,
// and only db_band.cc calls it, after checking the CPU).
#include <immintrin.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "augment/db/band.h"

#if !defined(__AVX2__)
#error "db_band_avx2.cc must be built with -mavx2"
#endif

namespace textfeed::augment::internal::avx2 {
namespace {
#include "augment/db/band_kernels.inc"
}  // namespace

void fold(const DbBandRegion& r, const DbEdge& e, DbBandFormula formula, DbBandKernel kernel) {
  fold_edge(r, e, formula, kernel);
}

}  // namespace textfeed::augment::internal::avx2
