// The one warp: identity plans crop exactly; DCT-scaled sources map to the same place.
#include "augment/warp.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace textfeed::augment {
namespace {

TEST(WarpTest, TranslationIsAnExactCrop) {
  const int w = 200, h = 150;
  Image src(h, w, 3);
  for (size_t i = 0; i < src.size_bytes(); ++i) src.data()[i] = static_cast<uint8_t>(i * 7 + 3);
  Image out(64, 64, 3);
  const double m[6] = {1, 0, -30, 0, 1, -40};
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).ok());
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      for (int c = 0; c < 3; ++c) ASSERT_EQ(out.data()[(y * 64 + x) * 3 + c], src.data()[((y + 40) * w + x + 30) * 3 + c]);
}

TEST(WarpTest, OutsideIsBlack) {
  Image src(50, 50, 3);
  std::fill(src.data(), src.data() + src.size_bytes(), 200);
  Image out(32, 32, 3);
  const double m[6] = {1, 0, 100, 0, 1, 100};  // the source lands far outside the crop
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).ok());
  for (size_t i = 0; i < out.size_bytes(); ++i) ASSERT_EQ(out.data()[i], 0);
}

TEST(WarpTest, HalfScaleSourceLandsInTheSamePlace) {
  // A smooth ramp decoded at full and at half size warps to nearly the same crop.
  const int w = 512, h = 512;
  Image full(h, w, 3), half(h / 2, w / 2, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) full.data()[(y * w + x) * 3 + c] = static_cast<uint8_t>((x + y) / 4);
  for (int y = 0; y < h / 2; ++y)
    for (int x = 0; x < w / 2; ++x)
      for (int c = 0; c < 3; ++c) half.data()[(y * w / 2 + x) * 3 + c] = static_cast<uint8_t>((2 * x + 2 * y + 2) / 4);
  const double m[6] = {0.5, 0, -10, 0, 0.5, -10};
  Image a(100, 100, 3), b(100, 100, 3);
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(a.mutable_view(), full.view(), m, 1.0, scratch).ok());
  ASSERT_TRUE(warp_to_crop(b.mutable_view(), half.view(), m, 0.5, scratch).ok());
  int worst = 0;
  for (size_t i = 0; i < a.size_bytes(); ++i) worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]));
  EXPECT_LE(worst, 2);
}

TEST(WarpTest, StrongDownscaleUsesThePreShrinkAndKeepsTheMean) {
  Image src(1000, 1000, 3);
  for (int y = 0; y < 1000; ++y)
    for (int x = 0; x < 1000; ++x)
      for (int c = 0; c < 3; ++c) src.data()[(y * 1000 + x) * 3 + c] = ((x + y) % 2) ? 255 : 0;  // checkerboard
  const double m[6] = {0.1, 0, 0, 0, 0.1, 0};
  Image out(100, 100, 3);
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).ok());
  EXPECT_GT(scratch.shrunk.size(), 0u);
  // Anti-aliased: the checkerboard averages to mid grey instead of aliasing to black or white.
  for (int y = 5; y < 95; ++y) ASSERT_NEAR(out.data()[(y * 100 + 50) * 3], 127, 3);
}

TEST(WarpTest, RejectsWrongViews) {
  Image src(10, 10, 1), out(8, 8, 3);
  const double m[6] = {1, 0, 0, 0, 1, 0};
  WarpScratch scratch;
  EXPECT_EQ(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
