// Colour jitter + normalize: fused in float, or albumentations' uint8 arithmetic then normalize.
#include "augment/colour/photometric.h"

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "augment/avx2_builds.h"
#include "augment/colour/color_jitter.h"
#include "augment/colour/normalize.h"
#include "base/stream_store.h"

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
    // Every candidate computed, then selected (no division under a branch): with
    // -fno-trapping-math (CMakeLists) the loop vectorizes, and each pixel gets the same
    // operations as the branching form.
    const float q = 1.f / (ch > 0 ? ch : 1.f);
    const float inv = ch > 0 ? q : 0.f;
    const float hr = (g - b) * inv, hg = 2.f + (b - r) * inv, hb = 4.f + (r - g) * inv;
    float h = mx == r ? hr : (mx == g ? hg : hb);
    h += shift6;  // h in [-4, 9]: |shift6| <= 3 (hue within half a turn either way)
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

void apply_op(ColorOp op, const internal::JitterSteps& s, Row x) {
  switch (op) {
    case ColorOp::kBrightness:
      scale_clamp(x, s.brightness, 0.f);
      break;
    case ColorOp::kContrast:
      scale_clamp(x, s.contrast, s.contrast_add);
      break;
    case ColorOp::kSaturation:
      saturate(x, s.saturation);
      break;
    case ColorOp::kHue:
      rotate_hue(x, s.hue6);
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

// ---- albumentations' uint8 arithmetic (ColorMath::kAlbumentations*, docs/targets.md §2.6) ----

// np.clip(v, 0, 255).astype(np.uint8): clamp, then truncate toward zero.
inline uint8_t clip_trunc(double v) {
  return static_cast<uint8_t>(std::min(255.0, std::max(0.0, v)));
}

// The table x -> clip_trunc(x * factor + add), in float64 (1.3.1: an int64 range times Python
// floats) or in float32 (albucore 0.0.13: a float32 range; NumPy 1.x casts the scalars to float32
// and rounds after the product and after the sum; this file is built without FP contraction).
void scale_table(double factor, double add, bool f32, cv::Mat& lut) {
  lut.create(1, 256, CV_8U);
  for (int i = 0; i < 256; ++i) {
    const double v = f32 ? static_cast<double>(static_cast<float>(static_cast<float>(i) *
                                                                  static_cast<float>(factor)) +
                                               static_cast<float>(add))
                         : i * factor + add;
    lut.at<uint8_t>(i) = clip_trunc(v);
  }
}

// Hue: OpenCV's 8-bit HSV (H in [0, 180)), H -> np.mod(H + 180 * shift, 180) in float64, truncated.
void hue_table(double shift, cv::Mat& lut) {
  lut.create(1, 256, CV_8U);
  for (int i = 0; i < 256; ++i) {
    double m = std::fmod(i + 180 * shift, 180.0);
    if (m < 0) m += 180;  // numpy's remainder takes the divisor's sign
    lut.at<uint8_t>(i) = static_cast<uint8_t>(m);
  }
}

// Scratch for one thread: the image as it goes through the ops, intermediates and the table;
// allocated on first use at a crop size, then reused (no per-sample allocation).
struct AlbuScratch {
  cv::Mat img, tmp, grey, grey3, lut;
};

void albu_op(ColorOp op, const ColorParams& p, bool f32, AlbuScratch& s) {
  switch (op) {
    case ColorOp::kBrightness:
      if (p.brightness == 1) return;
      if (p.brightness == 0) return void(s.img.setTo(cv::Scalar::all(0)));
      scale_table(p.brightness, 0, f32, s.lut);
      cv::LUT(s.img, s.lut, s.tmp);
      break;
    case ColorOp::kContrast: {
      if (p.contrast == 1) return;
      cv::cvtColor(s.img, s.grey, cv::COLOR_RGB2GRAY);
      const double mean =
          cv::sum(s.grey)[0] / static_cast<double>(s.grey.total());  // an exact sum, as numpy's
      if (p.contrast == 0) return void(s.img.setTo(cv::Scalar::all(static_cast<int>(mean + 0.5))));
      scale_table(p.contrast, mean * (1 - p.contrast), f32, s.lut);
      cv::LUT(s.img, s.lut, s.tmp);
      break;
    }
    case ColorOp::kSaturation:
      if (p.saturation == 1) return;
      cv::cvtColor(s.img, s.grey, cv::COLOR_RGB2GRAY);
      cv::cvtColor(s.grey, s.grey3, cv::COLOR_GRAY2RGB);
      if (p.saturation == 0) return void(s.grey3.copyTo(s.img));
      cv::addWeighted(s.img, p.saturation, s.grey3, 1 - p.saturation, 0, s.tmp);
      break;
    case ColorOp::kHue: {
      if (p.hue == 0) return;
      cv::cvtColor(s.img, s.tmp, cv::COLOR_RGB2HSV);
      hue_table(p.hue, s.lut);
      const uint8_t* lut = s.lut.ptr<uint8_t>();
      for (int y = 0; y < s.tmp.rows; ++y) {
        uint8_t* px = s.tmp.ptr<uint8_t>(y);
        for (int i = 0; i < s.tmp.cols; ++i) px[3 * i] = lut[px[3 * i]];
      }
      cv::cvtColor(s.tmp, s.img, cv::COLOR_HSV2RGB);
      return;
    }
  }
  cv::swap(s.img, s.tmp);
}

// The crop after albumentations' ColorJitter, in the thread's scratch (valid until its next call).
const cv::Mat& albu_jitter(const ImageView& crop, const ColorParams& p, ColorMath math) {
  thread_local AlbuScratch s;
  const cv::Mat view(crop.height, crop.width, CV_8UC3, const_cast<uint8_t*>(crop.data),
                     static_cast<size_t>(crop.stride_bytes));
  view.copyTo(s.img);
  for (ColorOp op : p.order) albu_op(op, p, math == ColorMath::kAlbumentations1412, s);
  return s.img;
}

}  // namespace

namespace internal {

void baseline::jitter_row(float* r, float* g, float* b, int n, const JitterSteps& s) {
  for (const ColorOp op : s.order) apply_op(op, s, Row{r, g, b, n});
}

void jitter_row(float* r, float* g, float* b, int n, const JitterSteps& s) {
  int done = 0;
#if defined(TEXTFEED_AUGMENT_AVX2)
  if (avx2_builds_run()) done = avx2::jitter_row(r, g, b, n, s);
#endif
  if (done < n) baseline::jitter_row(r + done, g + done, b + done, n - done, s);
}

}  // namespace internal

ColorParams draw_color_params(const AugmentOptions& o, Rng& rng) {
  ColorParams p;
  p.applied = rng.uniform() < o.color_jitter_p;
  p.brightness = rng.uniform(o.brightness.lo, o.brightness.hi);
  p.contrast = rng.uniform(o.contrast.lo, o.contrast.hi);
  p.saturation = rng.uniform(o.saturation.lo, o.saturation.hi);
  p.hue = rng.uniform(o.hue.lo, o.hue.hi);
  for (int i = 3; i > 0; --i)
    std::swap(p.order[i], p.order[rng.below(static_cast<uint32_t>(i + 1))]);
  return p;
}

namespace {

// Contrast blends with the grey mean of the image as it is when contrast runs: kFused estimates it
// on a 4x4-subsampled grid (pixels x = 1, 5, 9, ... of rows y = 1, 5, 9, ...) after the ops that
// come before it. `buf` holds at least 3 * crop.width floats.
float fused_contrast_mean(const ImageView& crop, const internal::JitterSteps& p, float* buf) {
  const int c = crop.width, h = crop.height;
  int contrast_at = 0;
  while (p.order[contrast_at] != ColorOp::kContrast) ++contrast_at;
  const Row sub{buf, buf + c, buf + 2 * c, c > 1 ? (c - 2) / 4 + 1 : 0};
  double sum = 0;
  size_t count = 0;
  for (int y = 1; y < h && sub.n > 0; y += 4) {
    load_row(crop.row(y) + 3, 12, sub);
    for (int i = 0; i < contrast_at; ++i) apply_op(p.order[i], p, sub);
    for (int i = 0; i < sub.n; ++i)
      sum += 0.299f * sub.r[i] + 0.587f * sub.g[i] + 0.114f * sub.b[i];
    count += static_cast<size_t>(sub.n);
  }
  return count ? static_cast<float>(sum / count) : 0.f;
}

// How the three planes of the output are laid out and scaled: plane k holds channel k of RGB (of
// BGR, reversed, when `bgr`), as v * scale[k] + bias[k] (normalization in float32, the identity
// for uint8); mean[k] and std[k] are plane k's.
struct PlaneOutput {
  bool f32, bgr;
  float scale[3], bias[3];
};

PlaneOutput plane_output(const AugmentOptions& o) {
  PlaneOutput p;
  p.f32 = o.dtype == DType::kF32;
  p.bgr = o.channel_order == ChannelOrder::kBgr;
  for (int k = 0; k < 3; ++k) {
    p.scale[k] = p.f32 ? 1.f / (255.f * o.std[k]) : 1.f;
    p.bias[k] = p.f32 ? -o.mean[k] / o.std[k] : 0.f;
  }
  return p;
}

// The jitter's factors as the fused row kernel takes them; contrast's add is set once the mean is
// known.
internal::JitterSteps jitter_steps(const ColorParams& p) {
  return {{p.order[0], p.order[1], p.order[2], p.order[3]},
          static_cast<float>(p.brightness),
          static_cast<float>(p.contrast),
          0.f,
          static_cast<float>(p.saturation),
          static_cast<float>(p.hue * 6)};
}

// Writes every row of `src` into the three planes of `out`, jittered row by row first when
// `fused` is given. `buf` holds 3 * src.width floats. `o` is a copy, which the uint8 stores into
// `out` cannot alias: its scales stay in registers.
void write_planes(const MutableImageView& out, const ImageView& src,
                  const internal::JitterSteps* fused, PlaneOutput o, float* buf) {
  const int c = src.width, h = src.height;
  const Row x{buf, buf + c, buf + 2 * c, c};
  float* planes[3] = {o.bgr ? x.b : x.r, x.g, o.bgr ? x.r : x.b};
  for (int y = 0; y < h; ++y) {
    float* const channels[3] = {x.r, x.g, x.b};
    split_channels(src.row(y), c, channels);
    if (fused) internal::jitter_row(x.r, x.g, x.b, c, *fused);
    for (int k = 0; k < 3; ++k) {
      uint8_t* dst = out.data + (static_cast<ptrdiff_t>(k) * h + y) * out.stride_bytes;
      const float* v = planes[k];
      if (o.f32) {
        // The output is a slot of a batch: streaming stores (base/stream_store.h), same values.
        stream_scale_bias_f32(reinterpret_cast<float*>(dst), v, static_cast<size_t>(c), o.scale[k],
                              o.bias[k]);
      } else {
        for (int i = 0; i < c; ++i) dst[i] = static_cast<uint8_t>(v[i] + 0.5f);
      }
    }
  }
  stream_fence();
}

}  // namespace

Status apply_photometric(const MutableImageView& out, const ImageView& crop, const ColorParams& p,
                         const AugmentOptions& o) {
  const int c = crop.width, h = crop.height;
  const bool f32 = o.dtype == DType::kF32;
  if (crop.channels != 3 || crop.dtype != DType::kU8 || out.width != c || out.height != 3 * h ||
      out.dtype != (f32 ? DType::kF32 : DType::kU8))
    return Status::invalid_argument(
        "photometric: output must be 3 planes of the crop's size in the output dtype");
  const PlaneOutput planes = plane_output(o);
  if (!p.applied && f32) {  // normalization alone: straight from the bytes to the planes
    normalize_to_planes(out, crop,
                        NormalizePlanes{{planes.bgr ? 2 : 0, 1, planes.bgr ? 0 : 2},
                                        {planes.scale[0], planes.scale[1], planes.scale[2]},
                                        {planes.bias[0], planes.bias[1], planes.bias[2]}});
    return Status();
  }
  thread_local std::vector<float> buf;  // one row as 3 planes; reused, no per-sample allocation
  buf.resize(3 * static_cast<size_t>(c));
  // albumentations' arithmetic jitters a uint8 copy first; the fused one jitters each row below.
  const bool fused = p.applied && o.color_math == ColorMath::kFused;
  ImageView src = crop;
  if (p.applied && !fused && h > 0 && c > 0) {
    try {
      const cv::Mat& jittered = albu_jitter(crop, p, o.color_math);
      src = {jittered.data, h, c, 3, static_cast<ptrdiff_t>(jittered.step), DType::kU8};
    } catch (const cv::Exception& e) {
      return Status::internal(std::string("photometric: OpenCV failed: ") + e.what());
    }
  }
  internal::JitterSteps steps = jitter_steps(p);
  if (fused)
    steps.contrast_add = fused_contrast_mean(crop, steps, buf.data()) * (1 - steps.contrast);
  write_planes(out, src, fused ? &steps : nullptr, planes, buf.data());
  return Status();
}

}  // namespace textfeed::augment
