// Whether the *_avx2.cc files of augment (color_avx2.cc, db_band_avx2.cc, normalize_avx2.cc,
// resample_avx2.cc: the same loops built with -mavx2) are in this build and this CPU runs them.
// CMakeLists defines TEXTFEED_AUGMENT_AVX2 for augment's sources on x86-64, where those files are
// built. Internal to augment.
#pragma once

namespace textfeed::augment::internal {

// Thread-safety: safe to call from any thread (a fact of the CPU, read once).
inline bool avx2_builds_run() {
#if defined(TEXTFEED_AUGMENT_AVX2)
  static const bool avx2 = __builtin_cpu_supports("avx2") != 0;
  return avx2;
#else
  return false;
#endif
}

}  // namespace textfeed::augment::internal
