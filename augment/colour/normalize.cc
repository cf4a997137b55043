// augment/colour/normalize.h: the baseline build of the loops and the run-time choice of the AVX2
// ones.
#include "augment/colour/normalize.h"

#include <cstdint>

#include "augment/avx2_builds.h"
#include "base/stream_store.h"

namespace textfeed::augment {
namespace baseline {
namespace {
#include "augment/colour/normalize_kernels.inc"
}  // namespace
}  // namespace baseline

#if defined(TEXTFEED_AUGMENT_AVX2)
namespace avx2 {
// normalize_avx2.cc.
void normalize_all(const MutableImageView& out, const ImageView& src, const NormalizePlanes& p);
void split_row(const uint8_t* src, int n, float* const dst[3]);
}  // namespace avx2
#endif

void normalize_to_planes(const MutableImageView& out, const ImageView& src,
                         const NormalizePlanes& p) {
#if defined(TEXTFEED_AUGMENT_AVX2)
  if (internal::avx2_builds_run()) return avx2::normalize_all(out, src, p);
#endif
  baseline::normalize_all(out, src, p);
}

void split_channels(const uint8_t* src, int n, float* const dst[3]) {
#if defined(TEXTFEED_AUGMENT_AVX2)
  if (internal::avx2_builds_run()) return avx2::split_row(src, n, dst);
#endif
  baseline::split_row(src, n, dst);
}

}  // namespace textfeed::augment
