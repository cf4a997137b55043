// Photometric: identity factors, normalize, ranges, hue rotation.
#include "augment/photometric.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace textfeed::augment {
namespace {

struct Crop16 {
  Image crop{16, 16, 3};
  std::vector<float> out = std::vector<float>(3 * 16 * 16);
  MutableImageView view() { return {reinterpret_cast<uint8_t*>(out.data()), 48, 16, 1, 64, DType::kF32}; }
  float at(int c, int y, int x) const { return out[(c * 16 + y) * 16 + x]; }
};

TEST(PhotometricTest, NotAppliedIsPlainNormalize) {
  Crop16 r;
  for (size_t i = 0; i < r.crop.size_bytes(); ++i) r.crop.data()[i] = static_cast<uint8_t>(i);
  ColorParams p;
  ASSERT_TRUE(apply_photometric(r.view(), r.crop.view(), p, profile_defaults(Profile::kUpstage)).ok());
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(r.at(c, 2, 5), (r.crop.data()[(2 * 16 + 5) * 3 + c] / 255.0 - 0.5) / 0.5, 1e-6);
}

TEST(PhotometricTest, IdentityFactorsChangeNothing) {
  Crop16 a, b;
  for (size_t i = 0; i < a.crop.size_bytes(); ++i) a.crop.data()[i] = b.crop.data()[i] = static_cast<uint8_t>(i * 13);
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
  for (int i = 0; i < 256; ++i) r.crop.data()[3 * i] = 200, r.crop.data()[3 * i + 1] = 50, r.crop.data()[3 * i + 2] = 10;
  ColorParams p;
  p.applied = true;
  p.hue = 1.0 / 3;  // red -> green
  ASSERT_TRUE(apply_photometric(r.view(), r.crop.view(), p, profile_defaults(Profile::kSakura)).ok());
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
  for (size_t i = 0; i < r.crop.size_bytes(); ++i) r.crop.data()[i] = static_cast<uint8_t>(i * 7 + 1);
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
          ASSERT_NEAR(r.at(c, y, x), (r.crop.data()[(y * 16 + x) * 3 + c] / 255.0 - o.mean[c]) / o.std[c], 1e-5);
  }
}

// Reference HSV hue rotation in double (colorsys's formulas).
void hue_reference(double r, double g, double b, double shift, double out[3]) {
  const double mx = std::max({r, g, b}), mn = std::min({r, g, b}), ch = mx - mn;
  double h = 0;
  if (ch > 0) {
    if (mx == r) h = (g - b) / ch;
    else if (mx == g) h = 2 + (b - r) / ch;
    else h = 4 + (r - g) / ch;
  }
  h = std::fmod(h / 6 + shift + 2, 1.0) * 6;
  const int sector = static_cast<int>(h) % 6;
  const double f = h - std::floor(h);
  const double p = mx - ch, q = mx - ch * f, t = mn + ch * f;
  const double table[6][3] = {{mx, t, p}, {q, mx, p}, {p, mx, t}, {p, q, mx}, {t, p, mx}, {mx, p, q}};
  for (int k = 0; k < 3; ++k) out[k] = table[sector][k];
}

TEST(PhotometricTest, HueMatchesAReferenceHsvRotation) {
  Crop16 r;
  for (size_t i = 0; i < r.crop.size_bytes(); ++i) r.crop.data()[i] = static_cast<uint8_t>((i * 2654435761u) >> 24);
  for (int i = 0; i < 16; ++i) r.crop.data()[3 * i] = r.crop.data()[3 * i + 1] = r.crop.data()[3 * i + 2] = 90;  // grey
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
      for (int c = 0; c < 3; ++c) ASSERT_NEAR(out[c * 256 + i], want[c], 0.51) << "shift " << shift << " px " << i;
    }
  }
}

}  // namespace
}  // namespace textfeed::augment
