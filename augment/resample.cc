// augment/resample.h: PIL's weights, the baseline build of the loops and the run-time choice of the
// AVX2 ones.
#include "augment/resample.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "augment/avx2_builds.h"

namespace textfeed::augment::internal {
namespace baseline {
#include "augment/resample_kernels.inc"
}  // namespace baseline

#if defined(TEXTFEED_AUGMENT_AVX2)
namespace avx2 {
// resample_avx2.cc.
void pil_horizontal(const uint8_t* in, ptrdiff_t in_stride, int in_col0, int rows, const PilTaps& t,
                    uint8_t* out, ptrdiff_t out_stride);
void pil_vertical(const uint8_t* in, ptrdiff_t in_stride, int in_row0, int bytes, const PilTaps& t,
                  uint8_t* out, ptrdiff_t out_stride, int from, int to, const int32_t* spans);
void bilinear_rows(const BilinearJob& job, int y_begin, int y_end);
}  // namespace avx2
#endif

void pil_taps(int in_size, int out_size, int begin, int end, bool horizontal, PilTaps& t) {
  // PIL's precompute_coeffs (Resample.c) for the bilinear filter: support 1, widened by the
  // downscale; centre of output pixel o at (o + 0.5) * scale; window [xmin, xmax) clipped to the
  // image; weights normalized by their sum; then normalize_coeffs_8bpc's rounding to 22 bits.
  const double scale = static_cast<double>(in_size) / out_size;
  const double filterscale = std::max(scale, 1.0), support = filterscale, ss = 1.0 / filterscale;
  auto window = [&](int o, int& xmin, int& count) {
    const double center = (o + 0.5) * scale;
    xmin = std::max(static_cast<int>(center - support + 0.5), 0);
    count = std::min(static_cast<int>(center + support + 0.5), in_size) - xmin;
  };
  // Every output gets the widest window of the range (at most PIL's ksize), so that a pass needs
  // no per-pixel count: usually 3 where PIL allocates 5.
  int taps = 1;
  for (int o = begin; o < end; ++o) {
    int xmin, count;
    window(o, xmin, count);
    taps = std::max(taps, count);
  }
  taps = std::min(taps, in_size);
  t.begin = begin, t.end = end, t.taps = taps;
  t.first.resize(static_cast<size_t>(end - begin));
  t.weights.assign(static_cast<size_t>(end - begin) * taps, 0);
  for (int o = begin; o < end; ++o) {
    const double center = (o + 0.5) * scale;
    int xmin, count;
    window(o, xmin, count);
    double ww = 0;
    for (int x = 0; x < count; ++x) {
      const double d = std::abs((x + xmin - center + 0.5) * ss);
      ww += d < 1.0 ? 1.0 - d : 0.0;
    }
    // The window moved inwards so that `taps` pixels from `first` stay inside the image.
    const int first = std::clamp(xmin, 0, in_size - taps);
    t.first[static_cast<size_t>(o - begin)] = first;
    int32_t* w = &t.weights[static_cast<size_t>(o - begin) * taps];
    for (int x = 0; x < count; ++x) {
      const double d = std::abs((x + xmin - center + 0.5) * ss);
      const double v = d < 1.0 ? 1.0 - d : 0.0;
      const double n = ww != 0.0 ? v / ww : v;
      w[xmin - first + x] =
          static_cast<int32_t>(n < 0 ? -0.5 + n * (1 << 22) : 0.5 + n * (1 << 22));
    }
  }
  // The horizontal pass's AVX2 layout: output pixels in pairs (2q, 2q + 1), one per 128-bit lane;
  // per pair and group of 4 taps, the weights split exactly into w = hi * 2^11 + lo (both < 2^15)
  // as four vectors of 16 words: hi of taps 0-1 [hi0 hi1 hi0 hi1 hi0 hi1 0 0 | the same for
  // pixel 2q + 1], hi of taps 2-3, lo of taps 0-1, lo of taps 2-3; they multiply pixels laid out
  // [R0 R1 G0 G1 B0 B1 0 0 | ...] with pmaddwd. An odd count's last pair has zero weights for its
  // second pixel. A vertical pass reads none of it.
  if (!horizontal) {
    t.packed.clear();
    return;
  }
  const int groups = (taps + 3) / 4, count = end - begin;
  t.packed.assign(static_cast<size_t>((count + 1) / 2) * groups * 64, 0);
  for (int o = 0; o < count; ++o)
    for (int k = 0; k < taps; ++k) {
      const int32_t w = t.weights[static_cast<size_t>(o) * taps + k];
      int16_t* hi = &t.packed[(static_cast<size_t>(o / 2) * groups + k / 4) * 64 +
                              (k % 4) / 2 * 16 + o % 2 * 8];
      int16_t* lo = hi + 32;
      for (int c = 0; c < 3; ++c) {
        hi[2 * c + k % 2] = static_cast<int16_t>(w >> 11);
        lo[2 * c + k % 2] = static_cast<int16_t>(w & 2047);
      }
    }
}

void pil_horizontal(const uint8_t* in, ptrdiff_t in_stride, int in_col0, int rows, const PilTaps& t,
                    uint8_t* out, ptrdiff_t out_stride) {
#if defined(TEXTFEED_AUGMENT_AVX2)
  if (avx2_builds_run())
    return avx2::pil_horizontal(in, in_stride, in_col0, rows, t, out, out_stride);
#endif
  baseline::pil_horizontal(in, in_stride, in_col0, rows, t, out, out_stride);
}

void pil_vertical(const uint8_t* in, ptrdiff_t in_stride, int in_row0, int bytes, const PilTaps& t,
                  uint8_t* out, ptrdiff_t out_stride, int from, int to, const int32_t* spans) {
#if defined(TEXTFEED_AUGMENT_AVX2)
  if (avx2_builds_run())
    return avx2::pil_vertical(in, in_stride, in_row0, bytes, t, out, out_stride, from, to, spans);
#endif
  baseline::pil_vertical(in, in_stride, in_row0, bytes, t, out, out_stride, from, to, spans);
}

void bilinear_warp(const BilinearJob& job) { bilinear_warp_rows(job, 0, job.dst_h); }

void bilinear_warp_rows(const BilinearJob& job, int y_begin, int y_end) {
#if defined(TEXTFEED_AUGMENT_AVX2)
  if (avx2_builds_run()) return avx2::bilinear_rows(job, y_begin, y_end);
#endif
  baseline::bilinear_rows(job, y_begin, y_end);
}

}  // namespace textfeed::augment::internal
