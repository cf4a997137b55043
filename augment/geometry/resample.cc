// augment/geometry/resample.h: PIL's weights, the baseline build of the loops and the run-time
// choice of the AVX2 ones.
#include "augment/geometry/resample.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "augment/avx2_builds.h"

namespace textfeed::augment::internal {
namespace baseline {
#include "augment/geometry/resample_kernels.inc"
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

namespace {

// PIL's fixed-point weights: 22 fraction bits (its PRECISION_BITS, 32 - 8 - 2).
constexpr int kWeightFractionBits = 22;
// The AVX2 layout's split of a weight into words: w = hi * 2^11 + lo, both under 2^15.
constexpr int kPackedLowBits = 11;
constexpr int32_t kPackedLowMask = (1 << kPackedLowBits) - 1;
// int16 words per pair of output pixels and group of 4 taps: four vectors of 16.
constexpr size_t kPackedGroupWords = 64;

// PIL's precompute_coeffs (Resample.c) for the bilinear filter: support 1, widened by the
// downscale; centre of output pixel o at (o + 0.5) * scale; window [xmin, xmin + count) clipped
// to the image; weights normalized by their sum; then normalize_coeffs_8bpc's rounding to 22
// bits.
class PilFilter {
 public:
  struct Window {
    int xmin, count;
  };
  PilFilter(int in_size, int out_size)
      : in_size_(in_size),
        scale_(static_cast<double>(in_size) / out_size),
        support_(std::max(scale_, 1.0)),
        ss_(1.0 / support_) {}

  Window window(int o) const {
    const double center = (o + 0.5) * scale_;
    const int xmin = std::max(static_cast<int>(center - support_ + 0.5), 0);
    return {xmin, std::min(static_cast<int>(center + support_ + 0.5), in_size_) - xmin};
  }

  // Output pixel o's fixed-point weights of source pixels win.xmin ... into w[0 .. win.count).
  void weights(int o, const Window& win, int32_t* w) const {
    const double center = (o + 0.5) * scale_;
    double ww = 0;
    for (int x = 0; x < win.count; ++x) ww += triangle(x + win.xmin - center);
    for (int x = 0; x < win.count; ++x) {
      const double v = triangle(x + win.xmin - center);
      const double n = ww != 0.0 ? v / ww : v;
      w[x] = static_cast<int32_t>(n < 0 ? -0.5 + n * (1 << kWeightFractionBits)
                                        : 0.5 + n * (1 << kWeightFractionBits));
    }
  }

 private:
  // The filter's value at source pixel x + 0.5 for an output centre at x = d + centre.
  double triangle(double d) const {
    const double a = std::abs((d + 0.5) * ss_);
    return a < 1.0 ? 1.0 - a : 0.0;
  }

  int in_size_;
  double scale_, support_, ss_;  // support = filterscale (the widened support); ss = its inverse
};

// The horizontal pass's AVX2 layout: output pixels in pairs (2q, 2q + 1), one per 128-bit lane;
// per pair and group of 4 taps, the weights split exactly into w = hi * 2^11 + lo (both < 2^15)
// as four vectors of 16 words: hi of taps 0-1 [hi0 hi1 hi0 hi1 hi0 hi1 0 0 | the same for
// pixel 2q + 1], hi of taps 2-3, lo of taps 0-1, lo of taps 2-3; they multiply pixels laid out
// [R0 R1 G0 G1 B0 B1 0 0 | ...] with pmaddwd. An odd count's last pair has zero weights for its
// second pixel.
void pack_for_avx2(PilTaps& t) {
  const int taps = t.taps, groups = (taps + 3) / 4, count = t.end - t.begin;
  t.packed.assign(static_cast<size_t>((count + 1) / 2) * groups * kPackedGroupWords, 0);
  for (int o = 0; o < count; ++o)
    for (int k = 0; k < taps; ++k) {
      const int32_t w = t.weights[static_cast<size_t>(o) * taps + k];
      int16_t* hi = &t.packed[(static_cast<size_t>(o / 2) * groups + k / 4) * kPackedGroupWords +
                              (k % 4) / 2 * 16 + o % 2 * 8];
      int16_t* lo = hi + kPackedGroupWords / 2;
      for (int c = 0; c < 3; ++c) {
        hi[2 * c + k % 2] = static_cast<int16_t>(w >> kPackedLowBits);
        lo[2 * c + k % 2] = static_cast<int16_t>(w & kPackedLowMask);
      }
    }
}

}  // namespace

void pil_taps(int in_size, int out_size, int begin, int end, bool horizontal, PilTaps& t) {
  const PilFilter f(in_size, out_size);
  // Every output gets the widest window of the range (at most PIL's ksize), so that a pass needs
  // no per-pixel count: usually 3 where PIL allocates 5.
  int taps = 1;
  for (int o = begin; o < end; ++o) taps = std::max(taps, f.window(o).count);
  taps = std::min(taps, in_size);
  t.begin = begin, t.end = end, t.taps = taps;
  t.first.resize(static_cast<size_t>(end - begin));
  t.weights.assign(static_cast<size_t>(end - begin) * taps, 0);
  for (int o = begin; o < end; ++o) {
    // The window moved inwards so that `taps` pixels from `first` stay inside the image.
    const PilFilter::Window win = f.window(o);
    const int first = std::clamp(win.xmin, 0, in_size - taps);
    t.first[static_cast<size_t>(o - begin)] = first;
    f.weights(o, win, &t.weights[static_cast<size_t>(o - begin) * taps] + (win.xmin - first));
  }
  if (horizontal)
    pack_for_avx2(t);
  else
    t.packed.clear();  // a vertical pass reads none of it
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
