// Fused colour jitter + normalize.
#include "augment/photometric.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace textfeed::augment {
namespace {

// The whole chain (up to 4 ops, their order fixed at compile time) and normalize run in one loop
// per row, straight from the interleaved uint8 crop to the output planes, with every value held in
// registers: one pass over the crop. There is one instantiation per order (24, plus the empty
// chain), each cloned for AVX2 with a run-time dispatch (x86-64 baseline code stays the fallback).
// The loop body is branch-free so that the compiler vectorizes it; GCC if-converts the selects of
// the hue op only without trapping-math (its compares could raise FP exceptions, which finite
// pixel values never do), hence the pragma. Plain ternaries stand in for std::min/max, which would
// not inline into functions with different optimize settings.
#if defined(__x86_64__) && defined(__GNUC__)
#define TF_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TF_VECTOR_CLONES
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif

struct Factors {
  float brightness = 1, contrast = 1, contrast_add = 0, saturation = 1, hue6 = 0;  // hue6: sixths of a turn
  float scale[3] = {1, 1, 1}, bias[3] = {0, 0, 0};                               // normalize
};

inline float fmax2(float a, float b) { return a > b ? a : b; }
inline float fmin2(float a, float b) { return a < b ? a : b; }
inline float clamp255(float v) { return fmin2(255.f, fmax2(0.f, v)); }

template <ColorOp Op>
inline void color_op(float& r, float& g, float& b, const Factors& f) {
  if constexpr (Op == ColorOp::kBrightness) {  // blend with black
    r = clamp255(r * f.brightness), g = clamp255(g * f.brightness), b = clamp255(b * f.brightness);
  } else if constexpr (Op == ColorOp::kContrast) {  // blend with the grey mean
    r = clamp255(r * f.contrast + f.contrast_add), g = clamp255(g * f.contrast + f.contrast_add);
    b = clamp255(b * f.contrast + f.contrast_add);
  } else if constexpr (Op == ColorOp::kSaturation) {  // blend with the pixel's grey
    const float y = (0.299f * r + 0.587f * g + 0.114f * b) * (1 - f.saturation);
    r = clamp255(r * f.saturation + y), g = clamp255(g * f.saturation + y), b = clamp255(b * f.saturation + y);
  } else {  // HSV hue rotation; value (max) and chroma (max - min) are kept, so no clamp is needed
    const float mx = fmax2(r, fmax2(g, b)), mn = fmin2(r, fmin2(g, b));
    const float ch = mx - mn;
    const float inv = 1.f / fmax2(ch, 1e-6f);  // ch = 0: every difference below is 0 too
    const float hr = (g - b) * inv, hg = 2.f + (b - r) * inv, hb = 4.f + (r - g) * inv;
    float h = mx == g ? hg : hb;
    h = mx == r ? hr : h;
    h += f.hue6;  // h in [-2.5, 6.5]
    h = h < 0 ? h + 6.f : h;
    h = h >= 6 ? h - 6.f : h;
    float kr = 5.f + h, kg = 3.f + h, kb = 1.f + h;
    kr = kr >= 6 ? kr - 6.f : kr;
    kg = kg >= 6 ? kg - 6.f : kg;
    kb = kb >= 6 ? kb - 6.f : kb;
    r = mx - ch * fmax2(0.f, fmin2(fmin2(kr, 4.f - kr), 1.f));
    g = mx - ch * fmax2(0.f, fmin2(fmin2(kg, 4.f - kg), 1.f));
    b = mx - ch * fmax2(0.f, fmin2(fmin2(kb, 4.f - kb), 1.f));
  }
}

// One row: `n` RGB pixels from `s` -> three planes. F32: (v * scale + bias) as float; else uint8.
template <bool F32, ColorOp... Ops>
TF_VECTOR_CLONES void fused_row(const uint8_t* __restrict s, int n, const Factors& fa, uint8_t* __restrict d0,
                                uint8_t* __restrict d1, uint8_t* __restrict d2) {
  const Factors f = fa;
  float* __restrict o0 = reinterpret_cast<float*>(d0);
  float* __restrict o1 = reinterpret_cast<float*>(d1);
  float* __restrict o2 = reinterpret_cast<float*>(d2);
  for (int i = 0; i < n; ++i) {
    float r = s[3 * i], g = s[3 * i + 1], b = s[3 * i + 2];
    (color_op<Ops>(r, g, b, f), ...);
    if constexpr (F32) {
      o0[i] = r * f.scale[0] + f.bias[0];
      o1[i] = g * f.scale[1] + f.bias[1];
      o2[i] = b * f.scale[2] + f.bias[2];
    } else {
      d0[i] = static_cast<uint8_t>(r + 0.5f);
      d1[i] = static_cast<uint8_t>(g + 0.5f);
      d2[i] = static_cast<uint8_t>(b + 0.5f);
    }
  }
}

// Sum of the grey value (0.299, 0.587, 0.114) of `n` pixels `stride_px` apart, after the ops
// that come before contrast in the chain.
template <ColorOp... Ops>
double grey_before_contrast(const uint8_t* s, int stride_px, int n, const Factors& f) {
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const uint8_t* p = s + static_cast<ptrdiff_t>(stride_px) * i;
    float r = p[0], g = p[1], b = p[2];
    bool before = true;
    ((before = before && Ops != ColorOp::kContrast, before ? color_op<Ops>(r, g, b, f) : void()), ...);
    sum += 0.299f * r + 0.587f * g + 0.114f * b;
  }
  return sum;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

using RowFn = void (*)(const uint8_t*, int, const Factors&, uint8_t*, uint8_t*, uint8_t*);
using GreyFn = double (*)(const uint8_t*, int, int, const Factors&);

struct Chain {
  int code;  // the order as base-4 digits, first op most significant
  RowFn f32, u8;
  GreyFn grey;
};

constexpr ColorOp op_at(int code, int k) { return static_cast<ColorOp>((code >> (2 * (3 - k))) & 3); }

constexpr std::array<int, 24> permutation_codes() {
  std::array<int, 24> codes{};
  int n = 0;
  for (int code = 0; code < 256; ++code) {
    int seen = 0;
    for (int k = 0; k < 4; ++k) seen |= 1 << static_cast<int>(op_at(code, k));
    if (seen == 15) codes[n++] = code;
  }
  return codes;
}
constexpr std::array<int, 24> kCodes = permutation_codes();

template <int Code>
Chain chain_for() {
  constexpr ColorOp a = op_at(Code, 0), b = op_at(Code, 1), c = op_at(Code, 2), d = op_at(Code, 3);
  return {Code, &fused_row<true, a, b, c, d>, &fused_row<false, a, b, c, d>, &grey_before_contrast<a, b, c, d>};
}
template <size_t... I>
std::array<Chain, 24> make_chains(std::index_sequence<I...>) {
  return {chain_for<kCodes[I]>()...};
}

const Chain& chain_of(const ColorOp order[4]) {
  static const std::array<Chain, 24> chains = make_chains(std::make_index_sequence<24>());
  int code = 0;
  for (int k = 0; k < 4; ++k) code = code * 4 + static_cast<int>(order[k]);
  return *std::find_if(chains.begin(), chains.end(), [code](const Chain& c) { return c.code == code; });
}

}  // namespace

ColorParams draw_color_params(const AugmentOptions& o, Rng& rng) {
  ColorParams p;
  p.applied = rng.uniform() < o.color_jitter_p;
  p.brightness = rng.uniform(1 - o.brightness, 1 + o.brightness);
  p.contrast = rng.uniform(1 - o.contrast, 1 + o.contrast);
  p.saturation = rng.uniform(1 - o.saturation, 1 + o.saturation);
  p.hue = rng.uniform(-o.hue, o.hue);
  for (int i = 3; i > 0; --i) std::swap(p.order[i], p.order[rng.below(static_cast<uint32_t>(i + 1))]);
  return p;
}

Status apply_photometric(const MutableImageView& out, const ImageView& crop, const ColorParams& p,
                         const AugmentOptions& o) {
  const int c = crop.width, h = crop.height;
  const bool f32 = o.dtype == OutputDType::kF32;
  if (crop.channels != 3 || crop.dtype != DType::kU8 || out.width != c || out.height != 3 * h ||
      out.dtype != (f32 ? DType::kF32 : DType::kU8))
    return Status::invalid_argument("photometric: output must be 3 planes of the crop's size in the output dtype");
  bool valid_order = true;
  int seen = 0;
  for (ColorOp op : p.order) {
    valid_order &= static_cast<int>(op) < 4;
    seen |= 1 << (static_cast<int>(op) & 3);
  }
  if (p.applied && (!valid_order || seen != 15))
    return Status::invalid_argument("photometric: the order must be a permutation of the 4 colour ops");
  Factors f;
  f.brightness = static_cast<float>(p.brightness);
  f.contrast = static_cast<float>(p.contrast);
  f.saturation = static_cast<float>(p.saturation);
  f.hue6 = static_cast<float>(p.hue * 6);
  for (int k = 0; k < 3; ++k) {
    f.scale[k] = f32 ? 1.f / (255.f * o.std[k]) : 1.f;
    f.bias[k] = f32 ? -o.mean[k] / o.std[k] : 0.f;
  }
  RowFn row = f32 ? &fused_row<true> : &fused_row<false>;
  if (p.applied) {
    const Chain& chain = chain_of(p.order);
    row = f32 ? chain.f32 : chain.u8;
    // Contrast blends with the grey mean of the image as it is when contrast runs: estimated on
    // the pixels x = 1, 5, 9, ... of rows y = 1, 5, 9, ... after the ops that come before it.
    const int per_row = c > 1 ? (c - 2) / 4 + 1 : 0;
    double sum = 0;
    size_t count = 0;
    for (int y = 1; y < h && per_row > 0; y += 4) {
      sum += chain.grey(crop.row(y) + 3, 4, per_row, f);
      count += static_cast<size_t>(per_row);
    }
    const float mean = count ? static_cast<float>(sum / count) : 0.f;
    f.contrast_add = mean * (1 - f.contrast);
  }
  for (int y = 0; y < h; ++y)
    row(crop.row(y), c, f, out.row(y), out.row(h + y), out.row(2 * h + y));
  return Status();
}

}  // namespace textfeed::augment
