// Fused colour jitter + normalize.
#include "augment/photometric.h"

#include <algorithm>
#include <cmath>

namespace textfeed::augment {
namespace {

inline float clamp255(float v) { return std::min(255.f, std::max(0.f, v)); }
inline float gray(float r, float g, float b) { return 0.299f * r + 0.587f * g + 0.114f * b; }

// Hue rotation in HSV: value and chroma are kept, the hue angle moves by `shift` sixths.
inline void rotate_hue(float& r, float& g, float& b, float shift6) {
  const float mx = std::max(r, std::max(g, b)), mn = std::min(r, std::min(g, b));
  const float chroma = mx - mn;
  if (chroma <= 0) return;
  float h;
  if (mx == r) {
    h = (g - b) / chroma;
  } else if (mx == g) {
    h = 2 + (b - r) / chroma;
  } else {
    h = 4 + (r - g) / chroma;
  }
  h += shift6;
  h -= 6.f * std::floor(h / 6.f);
  auto channel = [&](float n) {
    const float k = std::fmod(n + h, 6.f);
    return mx - chroma * std::max(0.f, std::min(std::min(k, 4.f - k), 1.f));
  };
  r = channel(5);
  g = channel(3);
  b = channel(1);
}

struct Pixel {
  float r, g, b;
};

inline void apply_op(ColorOp op, const ColorParams& p, float contrast_mean, Pixel& x) {
  switch (op) {
    case ColorOp::kBrightness: {
      const float f = static_cast<float>(p.brightness);
      x = {clamp255(x.r * f), clamp255(x.g * f), clamp255(x.b * f)};
      break;
    }
    case ColorOp::kContrast: {
      const float f = static_cast<float>(p.contrast), add = contrast_mean * (1 - f);
      x = {clamp255(x.r * f + add), clamp255(x.g * f + add), clamp255(x.b * f + add)};
      break;
    }
    case ColorOp::kSaturation: {
      const float f = static_cast<float>(p.saturation), y = gray(x.r, x.g, x.b) * (1 - f);
      x = {clamp255(x.r * f + y), clamp255(x.g * f + y), clamp255(x.b * f + y)};
      break;
    }
    case ColorOp::kHue:
      rotate_hue(x.r, x.g, x.b, static_cast<float>(p.hue * 6));
      break;
  }
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
  float scale[3], bias[3];
  for (int k = 0; k < 3; ++k) {
    scale[k] = f32 ? 1.f / (255.f * o.std[k]) : 1.f;
    bias[k] = f32 ? -o.mean[k] / o.std[k] : 0.f;
  }
  auto plane_row = [&](int k, int y) { return out.data + (static_cast<ptrdiff_t>(k) * h + y) * out.stride_bytes; };

  if (!p.applied) {
    for (int y = 0; y < h; ++y) {
      const uint8_t* s = crop.row(y);
      if (f32) {
        float* d[3] = {reinterpret_cast<float*>(plane_row(0, y)), reinterpret_cast<float*>(plane_row(1, y)),
                       reinterpret_cast<float*>(plane_row(2, y))};
        for (int x = 0; x < c; ++x)
          for (int k = 0; k < 3; ++k) d[k][x] = s[3 * x + k] * scale[k] + bias[k];
      } else {
        for (int k = 0; k < 3; ++k) {
          uint8_t* d = plane_row(k, y);
          for (int x = 0; x < c; ++x) d[x] = s[3 * x + k];
        }
      }
    }
    return Status();
  }

  // Contrast blends with the grey mean of the image as it is when contrast runs: estimate it on a
  // 4x4-subsampled grid after the ops that come before it.
  float contrast_mean = 0;
  int contrast_at = 0;
  while (p.order[contrast_at] != ColorOp::kContrast) ++contrast_at;
  {
    double sum = 0;
    size_t count = 0;
    for (int y = 1; y < h; y += 4) {
      const uint8_t* s = crop.row(y);
      for (int x = 1; x < c; x += 4) {
        Pixel px{float(s[3 * x]), float(s[3 * x + 1]), float(s[3 * x + 2])};
        for (int i = 0; i < contrast_at; ++i) apply_op(p.order[i], p, 0, px);
        sum += gray(px.r, px.g, px.b);
        ++count;
      }
    }
    contrast_mean = count ? static_cast<float>(sum / count) : 0.f;
  }
  for (int y = 0; y < h; ++y) {
    const uint8_t* s = crop.row(y);
    for (int x = 0; x < c; ++x) {
      Pixel px{float(s[3 * x]), float(s[3 * x + 1]), float(s[3 * x + 2])};
      for (ColorOp op : p.order) apply_op(op, p, contrast_mean, px);
      const float v[3] = {px.r, px.g, px.b};
      for (int k = 0; k < 3; ++k) {
        if (f32) {
          reinterpret_cast<float*>(plane_row(k, y))[x] = v[k] * scale[k] + bias[k];
        } else {
          plane_row(k, y)[x] = static_cast<uint8_t>(v[k] + 0.5f);
        }
      }
    }
  }
  return Status();
}

}  // namespace textfeed::augment
