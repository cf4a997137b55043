// FCENet targets (augment/fcenet/targets.h) on shapes whose maps and coefficients can be worked
// out by hand, the level assignment at its boundaries, polygons the readers accept and the
// refusals. The reference's own outputs are checked by tests/python/test_golden_mmocr_curves.py.
#include "augment/fcenet/targets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "tests/augment/mmocr_words.h"

namespace textfeed::augment {
namespace {

using testing::box;
using testing::Words;

float at(const FceLevelTargets& t, int channel, int y, int x) {
  return t.maps[(static_cast<size_t>(channel) * t.height + y) * t.width + x];
}

size_t count(const FceLevelTargets& t, int channel) {
  size_t n = 0;
  for (int y = 0; y < t.height; ++y)
    for (int x = 0; x < t.width; ++x) n += at(t, channel, y, x) != 0.0f;
  return n;
}

constexpr int kText = 0, kCentre = 1, kMask = 2, kRe0 = 3, kIm0 = 3 + kFceCoefficients;

TEST(FceTargetsTest, EachWordGoesToTheLevelsOfItsSize) {
  Words in(640, 640);
  // Long sides (pixel counts, inclusive) 101, 256, 321, 450 and 701 over 640 + 1e-8.
  in.add(box(10, 10, 100, 30)).add(box(10, 100, 255, 30)).add(box(10, 200, 320, 40));
  in.add(box(10, 300, 449, 60)).add(box(-30, 400, 700, 60));
  const Result<FceTargets> t = make_fce_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  // 256 / (640 + 1e-8) falls just under 0.4: levels 0 and 1. 701 / 640 lands nowhere.
  EXPECT_EQ(t->levels[0].text_index, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(t->levels[1].text_index, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(t->levels[2].text_index, (std::vector<int32_t>{3}));
  EXPECT_EQ(t->levels[2].fits.size(), 1u);
}

TEST(FceTargetsTest, TheLevelsHaveTheStridesShapes) {
  const Words in(736, 1280);
  const Result<FceTargets> t = make_fce_targets(in.view());
  ASSERT_TRUE(t.ok());
  const int expect[3][2] = {{92, 160}, {46, 80}, {23, 40}};
  for (int l = 0; l < 3; ++l) {
    EXPECT_EQ(t->levels[l].height, expect[l][0]);
    EXPECT_EQ(t->levels[l].width, expect[l][1]);
    EXPECT_EQ(t->levels[l].maps.size(), 25u * expect[l][0] * expect[l][1]);
    EXPECT_EQ(count(t->levels[l], kMask), static_cast<size_t>(expect[l][0] * expect[l][1]));
    EXPECT_EQ(count(t->levels[l], kText), 0u);
  }
}

TEST(FceTargetsTest, ARectanglesFitHasItsCentreAsC0AndIsClockwise) {
  Words in(640, 640);
  in.add(box(80, 160, 160, 48));  // level 0 only: (10, 20) to (30, 26) in level pixels
  const Result<FceTargets> t = make_fce_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  const FceLevelTargets& l0 = t->levels[0];
  ASSERT_EQ(l0.fits.size(), 1u);
  const FceFourierFit& f = l0.fits[0];
  EXPECT_NEAR(f.coeff[kFceFourierDegree].real(), 20.0, 0.1);
  EXPECT_NEAR(f.coeff[kFceFourierDegree].imag(), 23.0, 0.1);
  EXPECT_GT(std::abs(f.coeff[kFceFourierDegree + 1]), std::abs(f.coeff[kFceFourierDegree - 1]));
  EXPECT_GT(f.cw_margin, 0.1);  // clockwise on screen (y down) already
  EXPECT_EQ(f.resampled_n, 398);
  // Over the fill, c_1 is constant and the k = 0 channels are c_0 minus the pixel.
  EXPECT_EQ(at(l0, kText, 23, 15), 1.0f);
  EXPECT_FLOAT_EQ(at(l0, kRe0 + kFceFourierDegree, 23, 15),
                  static_cast<float>(f.coeff[5].real() - 15));
  EXPECT_FLOAT_EQ(at(l0, kIm0 + kFceFourierDegree, 23, 15),
                  static_cast<float>(f.coeff[5].imag() - 23));
  EXPECT_EQ(at(l0, kRe0 + 6, 21, 12), at(l0, kRe0 + 6, 25, 29));
  EXPECT_EQ(at(l0, kRe0 + 6, 5, 5), 0.0f);
  EXPECT_GT(count(l0, kCentre), 0u);
}

TEST(FceTargetsTest, ASquaresOutlineResamplesTo396Points) {
  const std::vector<CurvePoint<double>> square = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
  const Result<FceFourierFit> f = fce_fourier_fit(square);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->resampled_n, 396);  // 4 x int(10 / (40 + 1e-8) * 400) = 4 x 99
  EXPECT_NEAR(f->coeff[kFceFourierDegree].real(), 5.0, 1e-9);
  EXPECT_NEAR(f->coeff[kFceFourierDegree].imag(), 5.0, 1e-9);
}

TEST(FceTargetsTest, TheCentreQuadsOfAllWordsShareOneEvenOddFill) {
  Words one(640, 640), twice(640, 640);
  one.add(box(40, 40, 240, 200));
  twice.add(box(40, 40, 240, 200)).add(box(40, 40, 240, 200));
  const Result<FceTargets> a = make_fce_targets(one.view());
  const Result<FceTargets> b = make_fce_targets(twice.view());
  ASSERT_TRUE(a.ok() && b.ok());
  // The same quads twice cancel inside; only their drawn outlines stay.
  EXPECT_LT(count(b->levels[0], kCentre), count(a->levels[0], kCentre));
  EXPECT_EQ(count(b->levels[0], kText), count(a->levels[0], kText));
}

TEST(FceTargetsTest, AnIgnoredWordIsMaskedOnItsLevelsOnly) {
  Words in(640, 640);
  in.add(box(80, 160, 160, 48), true);
  const Result<FceTargets> t = make_fce_targets(in.view());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->levels[0].ignore_index, (std::vector<int32_t>{0}));
  EXPECT_TRUE(t->levels[0].text_index.empty());
  EXPECT_EQ(at(t->levels[0], kMask, 23, 15), 0.0f);
  EXPECT_EQ(count(t->levels[0], kText), 0u);
  EXPECT_EQ(count(t->levels[1], kMask), 40u * 40u);
}

// A closed curve of n points around (cx, cy).
std::vector<float> circle(float cx, float cy, float r, int n) {
  std::vector<float> xy;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * std::numbers::pi * i / n;
    xy.push_back(static_cast<float>(cx + r * std::cos(a)));
    xy.push_back(static_cast<float>(cy + r * std::sin(a)));
  }
  return xy;
}

TEST(FceTargetsTest, AnOutlineOfHundredsOfPointsIsFitted) {
  Words in(640, 640);
  in.add(circle(320, 320, 100, 300));
  const Result<FceTargets> t = make_fce_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  const FceFourierFit& f = t->levels[0].fits.at(0);
  EXPECT_LE(f.resampled_n, kFceOutlineSamples);
  // The centre and the radius in level px (the vertices are truncated before the division).
  EXPECT_NEAR(f.coeff[kFceFourierDegree].real(), 40.0, 0.1);
  EXPECT_NEAR(std::abs(f.coeff[kFceFourierDegree + 1]), 12.5, 0.1);
}

TEST(FceTargetsTest, AnOutlineTooFinelyCutForOnePointPerEdgeIsRefused) {
  // 1000 equal edges: int(400 / 1000) = 0 points each, where the reference fails (IndexError).
  Words in(640, 640);
  in.add(circle(320, 320, 100, 1000));
  const Result<FceTargets> t = make_fce_targets(in.view());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("polygon 0"), std::string::npos) << t.status().message();
}

TEST(FceTargetsTest, ARepeatedVertexIsKeptAndAZeroAreaWordIsDrawn) {
  Words in(640, 640);
  in.add({200, 200, 260, 200, 260, 200, 200, 200});  // zero_area_repeated: TextSnake refuses it
  in.add({20, 20, 100, 20, 100, 20, 100, 60, 20, 60});
  const Result<FceTargets> t = make_fce_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->levels[0].fits.size(), 2u);
}

TEST(FceTargetsTest, AWordPartlyOutsideIsClippedToItsLevel) {
  Words in(640, 640);
  in.add(box(600, 300, 120, 40));
  const Result<FceTargets> t = make_fce_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(at(t->levels[0], kText, 40, 79), 1.0f);
}

TEST(FceTargetsTest, RefusalsNameTheReason) {
  Words narrow(31, 640);
  EXPECT_EQ(make_fce_targets(narrow.view()).status().code(), Code::kInvalidArgument);
  Words tri(640, 640);
  tri.add(box(10, 10, 50, 20)).add({10, 10, 50, 10, 30, 40});
  const Result<FceTargets> t = make_fce_targets(tri.view());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("polygon 1"), std::string::npos) << t.status().message();
  Words zero(640, 640);
  zero.add({30, 30, 30, 30, 30, 30, 30, 30});  // an outline of length 0
  EXPECT_EQ(make_fce_targets(zero.view()).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
