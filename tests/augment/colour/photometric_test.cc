// Photometric: identity factors, normalize, ranges, hue rotation.
#include "augment/colour/photometric.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "augment/colour/color_jitter.h"

namespace textfeed::augment {
namespace {

struct Crop16 {
  Image crop{16, 16, 3};
  std::vector<float> out = std::vector<float>(3 * 16 * 16);
  MutableImageView view() {
    return {reinterpret_cast<uint8_t*>(out.data()), 48, 16, 1, 64, DType::kF32};
  }
  float at(int c, int y, int x) const { return out[(c * 16 + y) * 16 + x]; }
};

TEST(PhotometricTest, NotAppliedIsPlainNormalize) {
  Crop16 r;
  for (size_t i = 0; i < r.crop.size_bytes(); ++i) r.crop.data()[i] = static_cast<uint8_t>(i);
  ColorParams p;
  ASSERT_TRUE(
      apply_photometric(r.view(), r.crop.view(), p, profile_defaults(Profile::kUpstage)).ok());
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(r.at(c, 2, 5), (r.crop.data()[(2 * 16 + 5) * 3 + c] / 255.0 - 0.5) / 0.5, 1e-6);
}

// db: the planes in B, G, R order, each normalized with its own plane's mean and std (PaddleOCR's
// NormalizeImage on the BGR image as decoded).
TEST(PhotometricTest, BgrOrderPutsBlueFirstWithPlaneMeans) {
  Crop16 r;
  for (int i = 0; i < 256; ++i)
    r.crop.data()[3 * i] = 200, r.crop.data()[3 * i + 1] = 50, r.crop.data()[3 * i + 2] = 10;
  const AugmentOptions o = profile_defaults(Profile::kDb);
  ASSERT_TRUE(apply_photometric(r.view(), r.crop.view(), ColorParams{}, o).ok());
  const double bgr[3] = {10, 50, 200};
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(r.at(c, 3, 4), (bgr[c] / 255.0 - o.mean[c]) / o.std[c], 1e-5) << c;
}

TEST(PhotometricTest, IdentityFactorsChangeNothing) {
  Crop16 a, b;
  for (size_t i = 0; i < a.crop.size_bytes(); ++i)
    a.crop.data()[i] = b.crop.data()[i] = static_cast<uint8_t>(i * 13);
  ColorParams id;
  id.applied = true;  // factors 1, hue 0
  ColorParams off;
  const AugmentOptions o = profile_defaults(Profile::kSakura);
  ASSERT_TRUE(apply_photometric(a.view(), a.crop.view(), id, o).ok());
  ASSERT_TRUE(apply_photometric(b.view(), b.crop.view(), off, o).ok());
  for (size_t i = 0; i < a.out.size(); ++i) ASSERT_NEAR(a.out[i], b.out[i], 1e-4);
}

TEST(PhotometricTest, HueThirdOfATurnRotatesChannels) {
  Crop16 r;
  for (int i = 0; i < 256; ++i)
    r.crop.data()[3 * i] = 200, r.crop.data()[3 * i + 1] = 50, r.crop.data()[3 * i + 2] = 10;
  ColorParams p;
  p.applied = true;
  p.hue = 1.0 / 3;  // red -> green
  ASSERT_TRUE(
      apply_photometric(r.view(), r.crop.view(), p, profile_defaults(Profile::kSakura)).ok());
  auto px = [&](int c) { return (r.at(c, 0, 0) * 0.5 + 0.5) * 255; };
  EXPECT_NEAR(px(0), 10, 0.5);
  EXPECT_NEAR(px(1), 200, 0.5);
  EXPECT_NEAR(px(2), 50, 0.5);
}

TEST(PhotometricTest, BrightnessClampsAndU8OutputSkipsNormalize) {
  Crop16 r;
  std::fill(r.crop.data(), r.crop.data() + r.crop.size_bytes(), 200);
  ColorParams p;
  p.applied = true;
  p.brightness = 1.5;  // 300 -> clamped to 255
  AugmentOptions o = profile_defaults(Profile::kSakura);
  o.dtype = DType::kU8;
  std::vector<uint8_t> out(3 * 16 * 16);
  MutableImageView v{out.data(), 48, 16, 1, 16, DType::kU8};
  ASSERT_TRUE(apply_photometric(v, r.crop.view(), p, o).ok());
  for (uint8_t x : out) ASSERT_EQ(x, 255);
}

TEST(PhotometricTest, DrawsAFixedNumberOfValues) {
  AugmentOptions o = profile_defaults(Profile::kUpstage);
  Rng a(1, 2, 3), b(1, 2, 3);
  o.color_jitter_p = 0;
  draw_color_params(o, a);
  o.color_jitter_p = 1;
  draw_color_params(o, b);
  EXPECT_EQ(a.draws(), b.draws());
}

TEST(PhotometricTest, JitterProbabilityZeroIsPlainNormalize) {
  Crop16 r;
  for (size_t i = 0; i < r.crop.size_bytes(); ++i)
    r.crop.data()[i] = static_cast<uint8_t>(i * 7 + 1);
  AugmentOptions o = profile_defaults(Profile::kUpstage);
  o.color_jitter_p = 0;
  o.mean[1] = 0.25f;  // per-channel mean/std are honoured
  o.std[2] = 0.2f;
  for (uint64_t i = 0; i < 20; ++i) {
    Rng rng(5, 0, i);
    const ColorParams p = draw_color_params(o, rng);
    ASSERT_FALSE(p.applied);
    ASSERT_TRUE(apply_photometric(r.view(), r.crop.view(), p, o).ok());
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x)
          ASSERT_NEAR(r.at(c, y, x),
                      (r.crop.data()[(y * 16 + x) * 3 + c] / 255.0 - o.mean[c]) / o.std[c], 1e-5);
  }
}

TEST(PhotometricTest, DrawsStayInTheRangesAndCountTheSameForEveryProfile) {
  const AugmentOptions bc7 = profile_defaults(Profile::kBc7);
  for (uint64_t i = 0; i < 2000; ++i) {
    Rng a(3, 0, i), b(3, 0, i);
    const ColorParams p = draw_color_params(bc7, a);
    draw_color_params(profile_defaults(Profile::kUpstage), b);
    ASSERT_EQ(a.draws(), b.draws());
    for (double f : {p.brightness, p.contrast, p.saturation})
      ASSERT_TRUE(f >= 0.8 && f <= 1.0) << f;
    ASSERT_TRUE(p.hue >= -0.5 && p.hue <= 0.5) << p.hue;
  }
  AugmentOptions point = bc7;  // a range of one value draws that value
  point.brightness = {1.25, 1.25};
  point.hue = {-0.125, -0.125};
  Rng rng(1, 1, 1);
  const ColorParams p = draw_color_params(point, rng);
  EXPECT_EQ(p.brightness, 1.25);
  EXPECT_EQ(p.hue, -0.125);
}

// One op on grey pixels of value 90 through each arithmetic, uint8 out.
std::vector<uint8_t> jitter_grey90(ColorMath math, ColorOp op, double value) {
  Crop16 r;
  std::fill(r.crop.data(), r.crop.data() + r.crop.size_bytes(), 90);
  ColorParams p;
  p.applied = true;
  if (op == ColorOp::kBrightness) p.brightness = value;
  if (op == ColorOp::kContrast) p.contrast = value;
  AugmentOptions o = profile_defaults(Profile::kBc7);
  o.dtype = DType::kU8;
  o.color_math = math;
  std::vector<uint8_t> out(3 * 16 * 16);
  const MutableImageView v{out.data(), 48, 16, 1, 16, DType::kU8};
  EXPECT_TRUE(apply_photometric(v, r.crop.view(), p, o).ok());
  return out;
}

// 90 * 0.7 is 62.99999999999999 in float64 and 63 in float32: albumentations 1.3.1's table
// truncates it to 62, 1.4.12's (albucore) to 63; the fused arithmetic rounds to 63.
TEST(PhotometricTest, AlbumentationsVersionsBuildTheirTablesInTheirOwnPrecision) {
  for (uint8_t x : jitter_grey90(ColorMath::kAlbumentations1412, ColorOp::kBrightness, 0.7))
    ASSERT_EQ(x, 63);
  for (uint8_t x : jitter_grey90(ColorMath::kAlbumentations131, ColorOp::kBrightness, 0.7))
    ASSERT_EQ(x, 62);
  for (uint8_t x : jitter_grey90(ColorMath::kFused, ColorOp::kBrightness, 0.7)) ASSERT_EQ(x, 63);
  // Truncation, not rounding: 90 * 0.99 = 89.1 -> 89, and 90 * 0.995 = 89.55 -> 89 as well.
  for (uint8_t x : jitter_grey90(ColorMath::kAlbumentations1412, ColorOp::kBrightness, 0.995))
    ASSERT_EQ(x, 89);
  for (uint8_t x : jitter_grey90(ColorMath::kFused, ColorOp::kBrightness, 0.995)) ASSERT_EQ(x, 90);
  // Contrast of a flat image: the mean is the value, so any factor keeps it; factor 0 fills it.
  for (uint8_t x : jitter_grey90(ColorMath::kAlbumentations1412, ColorOp::kContrast, 0.83))
    ASSERT_EQ(x, 90);
  for (uint8_t x : jitter_grey90(ColorMath::kAlbumentations1412, ColorOp::kContrast, 0))
    ASSERT_EQ(x, 90);
  for (uint8_t x : jitter_grey90(ColorMath::kAlbumentations1412, ColorOp::kBrightness, 0))
    ASSERT_EQ(x, 0);
}

// OpenCV's 8-bit HSV: a third of a turn moves H by 60 of its 180 steps, so red becomes green; a
// grey pixel (no chroma) stays.
TEST(PhotometricTest, AlbumentationsHueRotatesIn8BitHsv) {
  Crop16 r;
  for (int i = 0; i < 256; ++i)
    r.crop.data()[3 * i] = 200, r.crop.data()[3 * i + 1] = 50, r.crop.data()[3 * i + 2] = 10;
  r.crop.data()[0] = r.crop.data()[1] = r.crop.data()[2] = 77;
  ColorParams p;
  p.applied = true;
  p.hue = 1.0 / 3;
  AugmentOptions o = profile_defaults(Profile::kBc7);
  ASSERT_TRUE(apply_photometric(r.view(), r.crop.view(), p, o).ok());
  auto px = [&](int c, int x) { return (r.at(c, 0, x) * 0.5 + 0.5) * 255; };
  EXPECT_NEAR(px(0, 1), 10, 2);
  EXPECT_NEAR(px(1, 1), 200, 0.01);  // V is kept exactly
  EXPECT_NEAR(px(2, 1), 50, 2);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(px(c, 0), 77, 1e-3);
  p.hue = -1.0 / 3;  // and back the other way: red becomes blue
  ASSERT_TRUE(apply_photometric(r.view(), r.crop.view(), p, o).ok());
  EXPECT_NEAR(px(2, 1), 200, 0.01);
}

TEST(PhotometricTest, AlbumentationsArithmeticLeavesAnEmptyCropAlone) {
  AugmentOptions o = profile_defaults(Profile::kBc7);
  Image empty(0, 0, 3);
  ColorParams p;
  p.applied = true;
  p.brightness = 0.9;
  EXPECT_TRUE(
      apply_photometric(MutableImageView{nullptr, 0, 0, 1, 0, DType::kF32}, empty.view(), p, o)
          .ok());
}

// Reference HSV hue rotation in double (colorsys's formulas).
void hue_reference(double r, double g, double b, double shift, double out[3]) {
  const double mx = std::max({r, g, b}), mn = std::min({r, g, b}), ch = mx - mn;
  double h = 0;
  if (ch > 0) {
    if (mx == r)
      h = (g - b) / ch;
    else if (mx == g)
      h = 2 + (b - r) / ch;
    else
      h = 4 + (r - g) / ch;
  }
  h = std::fmod(h / 6 + shift + 2, 1.0) * 6;
  const int sector = static_cast<int>(h) % 6;
  const double f = h - std::floor(h);
  const double p = mx - ch, q = mx - ch * f, t = mn + ch * f;
  const double table[6][3] = {{mx, t, p}, {q, mx, p}, {p, mx, t},
                              {p, q, mx}, {t, p, mx}, {mx, p, q}};
  for (int k = 0; k < 3; ++k) out[k] = table[sector][k];
}

TEST(PhotometricTest, HueMatchesAReferenceHsvRotation) {
  Crop16 r;
  for (size_t i = 0; i < r.crop.size_bytes(); ++i)
    r.crop.data()[i] = static_cast<uint8_t>((i * 2654435761u) >> 24);
  for (int i = 0; i < 16; ++i)
    r.crop.data()[3 * i] = r.crop.data()[3 * i + 1] = r.crop.data()[3 * i + 2] = 90;  // grey
  AugmentOptions o = profile_defaults(Profile::kSakura);
  o.dtype = DType::kU8;
  std::vector<uint8_t> out(3 * 16 * 16);
  const MutableImageView v{out.data(), 48, 16, 1, 16, DType::kU8};
  for (double shift : {-0.25, -0.1, 0.03, 0.17, 0.25}) {
    ColorParams p;
    p.applied = true;
    p.hue = shift;
    ASSERT_TRUE(apply_photometric(v, r.crop.view(), p, o).ok());
    for (int i = 0; i < 256; ++i) {
      const uint8_t* px = r.crop.data() + 3 * i;
      double want[3];
      hue_reference(px[0], px[1], px[2], shift, want);
      for (int c = 0; c < 3; ++c)
        ASSERT_NEAR(out[c * 256 + i], want[c], 0.51) << "shift " << shift << " px " << i;
    }
  }
}

TEST(PhotometricTest, EveryBuildOfTheJitterGivesTheSameFloats) {
  // The run-time choice (AVX2 where the CPU has it) against the portable loops: every order of the
  // four ops, factors at and beyond their ranges' ends, rows of every tail length, pixels that are
  // grey (no chroma), saturated or tied between channels.
  std::mt19937 rng(11);
  std::vector<float> px(3 * 1000);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<float>(rng() % 256);
  for (int i = 0; i < 40; ++i)
    px[i] = px[1000 + i] = px[2000 + i] = static_cast<float>(i * 6);  // grey
  for (int i = 40; i < 60; ++i)
    px[i] = px[1000 + i] = 255.f, px[2000 + i] = static_cast<float>(i);  // r = g
  ColorOp order[4] = {ColorOp::kBrightness, ColorOp::kContrast, ColorOp::kSaturation,
                      ColorOp::kHue};
  std::sort(order, order + 4);
  int orders = 0;
  do {
    ++orders;
    for (const auto& [bright, contrast, sat, hue] :
         {std::tuple{0.6f, 1.4f, 0.6f, 0.5f}, std::tuple{1.4f, 0.6f, 1.4f, -0.5f},
          std::tuple{0.f, 0.f, 0.f, 0.03f}, std::tuple{2.f, 2.f, 2.f, -0.17f},
          // the profile's largest factors; no hue shift (r = g pixels then land on k = 6 exactly)
          std::tuple{10.f, 10.f, 10.f, 0.f}, std::tuple{1.f, 1.f, 1.f, 1.f / 6}}) {
      const internal::JitterSteps s{{order[0], order[1], order[2], order[3]},
                                    bright,
                                    contrast,
                                    117.3f * (1 - contrast),
                                    sat,
                                    hue * 6};
      for (const int n : {1, 7, 8, 9, 23, 1000}) {
        std::vector<float> a(px), b(px);
        internal::jitter_row(a.data(), a.data() + 1000, a.data() + 2000, n, s);
        internal::baseline::jitter_row(b.data(), b.data() + 1000, b.data() + 2000, n, s);
        ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)))
            << "order " << orders << " n " << n << " brightness " << bright;
        if (n == 1000) {
          ASSERT_NE(a, px);  // the ops did change the row
          ASSERT_TRUE(
              std::all_of(a.begin(), a.end(), [](float v) { return v >= 0.f && v <= 255.f; }));
        }
      }
    }
  } while (std::next_permutation(order, order + 4));
  EXPECT_EQ(orders, 24);
}

}  // namespace
}  // namespace textfeed::augment
