// Fused colour jitter + normalize.
#include "augment/photometric.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace textfeed::augment {
namespace {

// One row as three float planes; every op is a tight loop over them that the compiler vectorizes,
// cloned for AVX2 with a run-time dispatch (x86-64 baseline code stays the fallback).
#if defined(__x86_64__) && defined(__GNUC__)
#define TF_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TF_VECTOR_CLONES
#endif
struct Row {
  float* r;
  float* g;
  float* b;
  int n;
};

inline float clamp255(float v) { return std::min(255.f, std::max(0.f, v)); }

TF_VECTOR_CLONES void scale_clamp(Row x, float f, float add) {
  for (int i = 0; i < x.n; ++i) {
    x.r[i] = clamp255(x.r[i] * f + add);
    x.g[i] = clamp255(x.g[i] * f + add);
    x.b[i] = clamp255(x.b[i] * f + add);
  }
}

TF_VECTOR_CLONES void saturate(Row x, float f) {
  for (int i = 0; i < x.n; ++i) {
    const float y = (0.299f * x.r[i] + 0.587f * x.g[i] + 0.114f * x.b[i]) * (1 - f);
    x.r[i] = clamp255(x.r[i] * f + y);
    x.g[i] = clamp255(x.g[i] * f + y);
    x.b[i] = clamp255(x.b[i] * f + y);
  }
}

// HSV hue rotation by `shift6` sixths of a turn; value and chroma are kept. Branch-free.
TF_VECTOR_CLONES void rotate_hue(Row x, float shift6) {
  for (int i = 0; i < x.n; ++i) {
    const float r = x.r[i], g = x.g[i], b = x.b[i];
    const float mx = std::max(r, std::max(g, b)), mn = std::min(r, std::min(g, b));
    const float ch = mx - mn;
    const float inv = ch > 0 ? 1.f / ch : 0.f;
    float h = mx == r ? (g - b) * inv : (mx == g ? 2.f + (b - r) * inv : 4.f + (r - g) * inv);
    h += shift6;  // h in [-2.5, 6.5]
    h += h < 0 ? 6.f : 0.f;
    h -= h >= 6 ? 6.f : 0.f;
    float k;
    k = 5.f + h;
    k -= k >= 6 ? 6.f : 0.f;
    x.r[i] = mx - ch * std::max(0.f, std::min(std::min(k, 4.f - k), 1.f));
    k = 3.f + h;
    k -= k >= 6 ? 6.f : 0.f;
    x.g[i] = mx - ch * std::max(0.f, std::min(std::min(k, 4.f - k), 1.f));
    k = 1.f + h;
    k -= k >= 6 ? 6.f : 0.f;
    x.b[i] = mx - ch * std::max(0.f, std::min(std::min(k, 4.f - k), 1.f));
  }
}

void apply_op(ColorOp op, const ColorParams& p, float contrast_mean, Row x) {
  switch (op) {
    case ColorOp::kBrightness:
      scale_clamp(x, static_cast<float>(p.brightness), 0.f);
      break;
    case ColorOp::kContrast:
      scale_clamp(x, static_cast<float>(p.contrast), contrast_mean * (1 - static_cast<float>(p.contrast)));
      break;
    case ColorOp::kSaturation:
      saturate(x, static_cast<float>(p.saturation));
      break;
    case ColorOp::kHue:
      rotate_hue(x, static_cast<float>(p.hue * 6));
      break;
  }
}

TF_VECTOR_CLONES void load_row(const uint8_t* s, int stride_px, Row x) {
  for (int i = 0; i < x.n; ++i) {
    x.r[i] = s[stride_px * i];
    x.g[i] = s[stride_px * i + 1];
    x.b[i] = s[stride_px * i + 2];
  }
}

TF_VECTOR_CLONES void store_normalized(float* d, const float* v, int n, float scale, float bias) {
  for (int i = 0; i < n; ++i) d[i] = v[i] * scale + bias;
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
  const bool f32 = o.dtype == DType::kF32;
  if (crop.channels != 3 || crop.dtype != DType::kU8 || out.width != c || out.height != 3 * h ||
      out.dtype != (f32 ? DType::kF32 : DType::kU8))
    return Status::invalid_argument("photometric: output must be 3 planes of the crop's size in the output dtype");
  float scale[3], bias[3];
  for (int k = 0; k < 3; ++k) {
    scale[k] = f32 ? 1.f / (255.f * o.std[k]) : 1.f;
    bias[k] = f32 ? -o.mean[k] / o.std[k] : 0.f;
  }
  // Contrast blends with the grey mean of the image as it is when contrast runs: estimate it on a
  // 4x4-subsampled grid after the ops that come before it.
  float contrast_mean = 0;
  thread_local std::vector<float> buf;  // one row as 3 planes; reused, no per-sample allocation
  buf.resize(3 * static_cast<size_t>(c));
  if (p.applied) {
    int contrast_at = 0;
    while (p.order[contrast_at] != ColorOp::kContrast) ++contrast_at;
    // Pixels x = 1, 5, 9, ... of rows y = 1, 5, 9, ...
    const Row sub{buf.data(), buf.data() + c, buf.data() + 2 * c, c > 1 ? (c - 2) / 4 + 1 : 0};
    double sum = 0;
    size_t count = 0;
    for (int y = 1; y < h && sub.n > 0; y += 4) {
      load_row(crop.row(y) + 3, 12, sub);
      for (int i = 0; i < contrast_at; ++i) apply_op(p.order[i], p, 0, sub);
      for (int i = 0; i < sub.n; ++i) sum += 0.299f * sub.r[i] + 0.587f * sub.g[i] + 0.114f * sub.b[i];
      count += static_cast<size_t>(sub.n);
    }
    contrast_mean = count ? static_cast<float>(sum / count) : 0.f;
  }
  const Row x{buf.data(), buf.data() + c, buf.data() + 2 * c, c};
  float* planes[3] = {x.r, x.g, x.b};
  for (int y = 0; y < h; ++y) {
    load_row(crop.row(y), 3, x);
    if (p.applied)
      for (ColorOp op : p.order) apply_op(op, p, contrast_mean, x);
    for (int k = 0; k < 3; ++k) {
      uint8_t* dst = out.data + (static_cast<ptrdiff_t>(k) * h + y) * out.stride_bytes;
      const float* v = planes[k];
      if (f32) {
        store_normalized(reinterpret_cast<float*>(dst), v, c, scale[k], bias[k]);
      } else {
        for (int i = 0; i < c; ++i) dst[i] = static_cast<uint8_t>(v[i] + 0.5f);
      }
    }
  }
  return Status();
}

}  // namespace textfeed::augment
