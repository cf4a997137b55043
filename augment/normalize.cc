// augment/normalize.h: the baseline build of the loop and the run-time choice of the AVX2 one.
#include "augment/normalize.h"

#include <cstdint>

#include "base/stream_store.h"

namespace textfeed::augment {
namespace baseline {
namespace {
#include "augment/normalize_kernels.inc"
}  // namespace
}  // namespace baseline

#if defined(TEXTFEED_NORMALIZE_AVX2)
namespace avx2 {
// normalize_avx2.cc.
void normalize_all(const MutableImageView& out, const ImageView& src, const NormalizePlanes& p);
}  // namespace avx2
#endif

void normalize_to_planes(const MutableImageView& out, const ImageView& src,
                         const NormalizePlanes& p) {
#if defined(TEXTFEED_NORMALIZE_AVX2)
  static const bool avx2 = __builtin_cpu_supports("avx2") != 0;  // a fact of the CPU
  if (avx2) return avx2::normalize_all(out, src, p);
#endif
  baseline::normalize_all(out, src, p);
}

}  // namespace textfeed::augment
