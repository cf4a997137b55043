// The DB border band (db_band.h): the kernels of the build's baseline instruction set, and the
// run-time choice between them and db_band_avx2.cc's.
#include "augment/db/band.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "augment/avx2_builds.h"

namespace textfeed::augment::internal {
namespace baseline {
namespace {
#include "augment/db/band_kernels.inc"
}  // namespace

void fold(const DbBandRegion& r, const DbEdge& e, DbBandFormula formula, DbBandKernel kernel) {
  fold_edge(r, e, formula, kernel);
}
}  // namespace baseline

#if defined(TEXTFEED_AUGMENT_AVX2)
namespace avx2 {
// db_band_avx2.cc: the same walk and kernels built for AVX2, kAvx2 among them.
void fold(const DbBandRegion& r, const DbEdge& e, DbBandFormula formula, DbBandKernel kernel);
}  // namespace avx2
#endif

bool db_band_kernel_supported(DbBandKernel kernel) {
  switch (kernel) {
    case DbBandKernel::kScalar:
      return true;
    case DbBandKernel::kSse2:
#if defined(__SSE2__)
      return true;
#else
      return false;
#endif
    case DbBandKernel::kAvx2:
      return avx2_builds_run();
  }
  return false;
}

DbBandKernel best_db_band_kernel() {
  for (DbBandKernel k : {DbBandKernel::kAvx2, DbBandKernel::kSse2})
    if (db_band_kernel_supported(k)) return k;
  return DbBandKernel::kScalar;
}

void fold_db_edge(const DbBandRegion& r, const DbEdge& e, DbBandFormula formula,
                  DbBandKernel kernel) {
#if defined(TEXTFEED_AUGMENT_AVX2)
  if (kernel == DbBandKernel::kAvx2) return avx2::fold(r, e, formula, kernel);
#endif
  baseline::fold(r, e, formula, kernel);
}

}  // namespace textfeed::augment::internal
