// augment/colour/color_jitter.h built for AVX2: eight pixels at a time through the four ops, giving
// the portable loops' floats bit for bit. Arithmetic is the same IEEE operation on the same
// operands (built with -ffp-contract=off, as photometric.cc). Comparisons, min and max are done on
// the floats' bit patterns as signed 32-bit integers where that gives the same result: the integer
// ops run on all four of Zen 3's vector pipes, the float ones on two, which the multiplies need.
// Why it is exact: no value here is NaN, and a pixel value is never -0 (bytes convert to +0, every
// op ends in max(0, .) or in the hue's mx - ch t >= mx - ch >= +0). Among floats >= +0 the integer
// order is the float order; every negative float and -0 is a negative integer, below them all.
// This assumes the default MXCSR, which does not read denormals as zero (with DAZ set, a float
// compare would see a denormal as 0 and the integer one would not).
// Only photometric.cc calls it, after checking the CPU.
#include <immintrin.h>

#include <cmath>

#include "augment/colour/color_jitter.h"

#if !defined(__AVX2__)
#error "color_avx2.cc must be built with -mavx2"
#endif

namespace textfeed::augment::internal::avx2 {
namespace {

inline __m256i bits(__m256 a) { return _mm256_castps_si256(a); }
inline __m256 as_float(__m256i a) { return _mm256_castsi256_ps(a); }
// std::max(a, b) and std::min(a, b) where both are >= +0, or where only whether the result is
// negative matters (max(0, .) follows); all-ones lanes where a > b, for a and b >= +0.
inline __m256 max_bits(__m256 a, __m256 b) { return as_float(_mm256_max_epi32(bits(a), bits(b))); }
inline __m256 min_bits(__m256 a, __m256 b) { return as_float(_mm256_min_epi32(bits(a), bits(b))); }
inline __m256 greater_bits(__m256 a, __m256i b) { return as_float(_mm256_cmpgt_epi32(bits(a), b)); }
// c ? a : b, lane by lane (c a comparison's all-ones or zero).
inline __m256 select(__m256 c, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, c); }
// c ? a : +0.
inline __m256 select_or_zero(__m256 c, __m256 a) { return _mm256_and_ps(c, a); }

// The float 6 minus one ulp: v >= 6 is v > this, on bits, for v >= +0. (A function: a vector
// constant at namespace scope would be built at start-up, on CPUs without AVX2 too.)
inline __m256i below_six() { return _mm256_set1_epi32(0x40BFFFFF); }

// min(255, max(0, v)): max(0, v) is +0 for every v < 0 and for -0 either way; then both are >= +0.
inline __m256 clamp255(__m256 v) {
  return min_bits(_mm256_set1_ps(255.f), max_bits(_mm256_setzero_ps(), v));
}

// G groups of 8 pixels, each op's steps taken for every group in turn: the groups' dependency
// chains (a division and some forty dependent operations in the hue) overlap.
template <int G>
struct Px {
  __m256 r[G], g[G], b[G];
};

template <int G>
inline void scale_clamp(Px<G>& x, __m256 f, __m256 add) {
  for (int k = 0; k < G; ++k) {
    x.r[k] = clamp255(_mm256_add_ps(_mm256_mul_ps(x.r[k], f), add));
    x.g[k] = clamp255(_mm256_add_ps(_mm256_mul_ps(x.g[k], f), add));
    x.b[k] = clamp255(_mm256_add_ps(_mm256_mul_ps(x.b[k], f), add));
  }
}

template <int G>
inline void saturate(Px<G>& x, __m256 f, __m256 one_minus_f) {
  __m256 y[G];
  for (int k = 0; k < G; ++k) {
    const __m256 grey = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(0.299f), x.r[k]),
                                                    _mm256_mul_ps(_mm256_set1_ps(0.587f), x.g[k])),
                                      _mm256_mul_ps(_mm256_set1_ps(0.114f), x.b[k]));
    y[k] = _mm256_mul_ps(grey, one_minus_f);
  }
  for (int k = 0; k < G; ++k) {
    x.r[k] = clamp255(_mm256_add_ps(_mm256_mul_ps(x.r[k], f), y[k]));
    x.g[k] = clamp255(_mm256_add_ps(_mm256_mul_ps(x.g[k], f), y[k]));
    x.b[k] = clamp255(_mm256_add_ps(_mm256_mul_ps(x.b[k], f), y[k]));
  }
}

// One channel of the hue rotation: mx - ch * max(0, min(min(k, 4 - k), 1)), k = o + h mod 6.
// For hue shifts within the profile's half turn, h is in [0, 6) and k >= o >= 1; 4 - k may be
// negative or +0, and then so is the inner min whichever order compares it, and the outer max gives
// +0 (the exactness argument at the top of the file). Beyond that range k may be negative too:
// both compares of k with 6 are then false, and the min is negative both ways.
inline __m256 hue_channel(float o, __m256 h, __m256 mx, __m256 ch) {
  __m256 k = _mm256_add_ps(_mm256_set1_ps(o), h);
  k = _mm256_sub_ps(k, select_or_zero(greater_bits(k, below_six()), _mm256_set1_ps(6.f)));
  const __m256 t =
      max_bits(_mm256_setzero_ps(),
               min_bits(min_bits(k, _mm256_sub_ps(_mm256_set1_ps(4.f), k)), _mm256_set1_ps(1.f)));
  return _mm256_sub_ps(mx, _mm256_mul_ps(ch, t));
}

template <int G>
inline void rotate_hue(Px<G>& x, __m256 shift6) {
  const __m256 one = _mm256_set1_ps(1.f), six = _mm256_set1_ps(6.f);
  const __m256i zero = _mm256_setzero_si256();
  __m256 mx[G], ch[G], h[G];
  for (int k = 0; k < G; ++k) {
    mx[k] = max_bits(x.r[k], max_bits(x.g[k], x.b[k]));
    ch[k] = _mm256_sub_ps(mx[k], min_bits(x.r[k], min_bits(x.g[k], x.b[k])));  // >= +0
  }
  for (int k = 0; k < G; ++k) {
    // 1 / ch where ch > 0, else +0 (the portable loop divides 1 by 1 there and then selects +0).
    const __m256 positive = greater_bits(ch[k], zero);
    const __m256 inv = select_or_zero(positive, _mm256_div_ps(one, ch[k]));
    const __m256 hr = _mm256_mul_ps(_mm256_sub_ps(x.g[k], x.b[k]), inv);
    const __m256 hg =
        _mm256_add_ps(_mm256_set1_ps(2.f), _mm256_mul_ps(_mm256_sub_ps(x.b[k], x.r[k]), inv));
    const __m256 hb =
        _mm256_add_ps(_mm256_set1_ps(4.f), _mm256_mul_ps(_mm256_sub_ps(x.r[k], x.g[k]), inv));
    // Equal floats, neither -0 nor NaN, have equal bits.
    h[k] = select(as_float(_mm256_cmpeq_epi32(bits(mx[k]), bits(x.r[k]))), hr,
                  select(as_float(_mm256_cmpeq_epi32(bits(mx[k]), bits(x.g[k]))), hg, hb));
  }
  for (int k = 0; k < G; ++k) {
    h[k] = _mm256_add_ps(h[k], shift6);
    // h < 0 on bits also holds for h = -0: then 6 is added and taken away again below, where the
    // portable loop adds +0; both give k = o + (+0) (the only use of h).
    h[k] = _mm256_add_ps(h[k], select_or_zero(as_float(_mm256_cmpgt_epi32(zero, bits(h[k]))), six));
    // h >= +0 here for shifts within the profile's range (else negative h is not >= 6 either way).
    h[k] = _mm256_sub_ps(h[k], select_or_zero(greater_bits(h[k], below_six()), six));
  }
  for (int k = 0; k < G; ++k) {
    x.r[k] = hue_channel(5.f, h[k], mx[k], ch[k]);
    x.g[k] = hue_channel(3.f, h[k], mx[k], ch[k]);
    x.b[k] = hue_channel(1.f, h[k], mx[k], ch[k]);
  }
}

struct Consts {
  __m256 brightness, zero, contrast, contrast_add, saturation, one_minus_s, hue6;
};

// Pixels [i, i + 8 G).
template <int G>
inline void jitter_groups(float* r, float* g, float* b, int i, const JitterSteps& s,
                          const Consts& c) {
  Px<G> x;
  for (int k = 0; k < G; ++k) {
    x.r[k] = _mm256_loadu_ps(r + i + 8 * k);
    x.g[k] = _mm256_loadu_ps(g + i + 8 * k);
    x.b[k] = _mm256_loadu_ps(b + i + 8 * k);
  }
  for (const ColorOp op : s.order) {
    switch (op) {
      case ColorOp::kBrightness:
        scale_clamp(x, c.brightness, c.zero);
        break;
      case ColorOp::kContrast:
        scale_clamp(x, c.contrast, c.contrast_add);
        break;
      case ColorOp::kSaturation:
        saturate(x, c.saturation, c.one_minus_s);
        break;
      case ColorOp::kHue:
        rotate_hue(x, c.hue6);
        break;
    }
  }
  for (int k = 0; k < G; ++k) {
    _mm256_storeu_ps(r + i + 8 * k, x.r[k]);
    _mm256_storeu_ps(g + i + 8 * k, x.g[k]);
    _mm256_storeu_ps(b + i + 8 * k, x.b[k]);
  }
}

}  // namespace

int jitter_row(float* r, float* g, float* b, int n, const JitterSteps& s) {
  // Finite steps keep every value finite (no NaN from inf - inf), as the exactness needs; the
  // profile bounds the factors, this is for any other caller (the portable loops do the row).
  for (const float v : {s.brightness, s.contrast, s.contrast_add, s.saturation, s.hue6})
    if (!(std::abs(v) <= 1e6f)) return 0;
  const Consts c{_mm256_set1_ps(s.brightness), _mm256_setzero_ps(),
                 _mm256_set1_ps(s.contrast),   _mm256_set1_ps(s.contrast_add),
                 _mm256_set1_ps(s.saturation), _mm256_set1_ps(1 - s.saturation),
                 _mm256_set1_ps(s.hue6)};
  constexpr int kGroups = 3;
  int i = 0;
  for (; i + 8 * kGroups <= n; i += 8 * kGroups) jitter_groups<kGroups>(r, g, b, i, s, c);
  for (; i + 8 <= n; i += 8) jitter_groups<1>(r, g, b, i, s, c);
  return i;
}

}  // namespace textfeed::augment::internal::avx2
