// augment/color_jitter.h built for AVX2: eight pixels at a time through the four ops. Each op is
// written as photometric.cc's loop computes it, operand for operand: std::max(a, b) is
// (a < b ? b : a), which _mm256_max_ps(b, a) returns, std::min(a, b) likewise _mm256_min_ps(b, a),
// and a select is a blend of both values. Built with -mavx2 and -ffp-contract=off (no FMA), as
// photometric.cc is without contraction; only photometric.cc calls it, after checking the CPU.
#include <immintrin.h>

#include "augment/color_jitter.h"

#if !defined(__AVX2__)
#error "color_avx2.cc must be built with -mavx2"
#endif

namespace textfeed::augment::internal::avx2 {
namespace {

inline __m256 std_max(__m256 a, __m256 b) { return _mm256_max_ps(b, a); }
inline __m256 std_min(__m256 a, __m256 b) { return _mm256_min_ps(b, a); }
// c ? a : b, lane by lane (c a comparison's all-ones or zero).
inline __m256 select(__m256 c, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, c); }

inline __m256 clamp255(__m256 v) {
  return std_min(_mm256_set1_ps(255.f), std_max(_mm256_setzero_ps(), v));
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
inline __m256 hue_channel(float o, __m256 h, __m256 mx, __m256 ch) {
  const __m256 six = _mm256_set1_ps(6.f), zero = _mm256_setzero_ps();
  __m256 k = _mm256_add_ps(_mm256_set1_ps(o), h);
  k = _mm256_sub_ps(k, select(_mm256_cmp_ps(k, six, _CMP_GE_OQ), six, zero));
  const __m256 t = std_max(
      zero, std_min(std_min(k, _mm256_sub_ps(_mm256_set1_ps(4.f), k)), _mm256_set1_ps(1.f)));
  return _mm256_sub_ps(mx, _mm256_mul_ps(ch, t));
}

template <int G>
inline void rotate_hue(Px<G>& x, __m256 shift6) {
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.f), six = _mm256_set1_ps(6.f);
  __m256 mx[G], ch[G], h[G];
  for (int k = 0; k < G; ++k) {
    mx[k] = std_max(x.r[k], std_max(x.g[k], x.b[k]));
    ch[k] = _mm256_sub_ps(mx[k], std_min(x.r[k], std_min(x.g[k], x.b[k])));
  }
  for (int k = 0; k < G; ++k) {
    const __m256 positive = _mm256_cmp_ps(ch[k], zero, _CMP_GT_OQ);
    const __m256 inv = select(positive, _mm256_div_ps(one, select(positive, ch[k], one)), zero);
    const __m256 hr = _mm256_mul_ps(_mm256_sub_ps(x.g[k], x.b[k]), inv);
    const __m256 hg =
        _mm256_add_ps(_mm256_set1_ps(2.f), _mm256_mul_ps(_mm256_sub_ps(x.b[k], x.r[k]), inv));
    const __m256 hb =
        _mm256_add_ps(_mm256_set1_ps(4.f), _mm256_mul_ps(_mm256_sub_ps(x.r[k], x.g[k]), inv));
    h[k] = select(_mm256_cmp_ps(mx[k], x.r[k], _CMP_EQ_OQ), hr,
                  select(_mm256_cmp_ps(mx[k], x.g[k], _CMP_EQ_OQ), hg, hb));
  }
  for (int k = 0; k < G; ++k) {
    h[k] = _mm256_add_ps(h[k], shift6);
    h[k] = _mm256_add_ps(h[k], select(_mm256_cmp_ps(h[k], zero, _CMP_LT_OQ), six, zero));
    h[k] = _mm256_sub_ps(h[k], select(_mm256_cmp_ps(h[k], six, _CMP_GE_OQ), six, zero));
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
