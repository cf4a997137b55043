// The centre-line geometry of mmocr's TextSnake and FCENet targets (augment/geometry/sidelines.h):
// head and tail edges, arc-length resampling and the centre-region quads, on shapes worked out by
// hand.
#include "augment/geometry/sidelines.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace textfeed::augment {
namespace {

template <class T>
std::vector<CurvePoint<T>> rect(T x, T y, T w, T h) {
  return {{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}};
}

TEST(SidelinesTest, AWideRectanglesHeadAndTailAreItsShortEdges) {
  const Result<HeadTail> ht = find_head_tail<float>(rect<float>(20, 30, 120, 40));
  ASSERT_TRUE(ht.ok());
  EXPECT_EQ(ht->head, (std::array<int, 2>{3, 0}));
  EXPECT_EQ(ht->tail, (std::array<int, 2>{1, 2}));
}

TEST(SidelinesTest, ATallRectanglesHeadAndTailAreItsTopAndBottom) {
  // The sides (the flatter pair) are over orientation_thr times shorter: the roles swap.
  const Result<HeadTail> ht = find_head_tail<double>(rect<double>(80, 40, 40, 300));
  ASSERT_TRUE(ht.ok());
  EXPECT_EQ(ht->head, (std::array<int, 2>{0, 1}));
  EXPECT_EQ(ht->tail, (std::array<int, 2>{2, 3}));
}

// Top arc left to right (7 points), then bottom arc right to left (7 points).
std::vector<CurvePoint<float>> curved_word() {
  std::vector<CurvePoint<float>> p;
  for (int i = 0; i < 7; ++i) {
    const double a = std::numbers::pi * (1.0 + i / 6.0);
    p.push_back(
        {static_cast<float>(200 + 150 * std::cos(a)), static_cast<float>(250 + 150 * std::sin(a))});
  }
  for (int i = 6; i >= 0; --i) {
    const double a = std::numbers::pi * (1.0 + i / 6.0);
    p.push_back(
        {static_cast<float>(200 + 110 * std::cos(a)), static_cast<float>(250 + 110 * std::sin(a))});
  }
  return p;
}

TEST(SidelinesTest, ACurvedWordsHeadAndTailAreItsEnds) {
  const Result<HeadTail> ht = find_head_tail<float>(curved_word());
  ASSERT_TRUE(ht.ok());
  // Edges 13 -> 0 (left end) and 6 -> 7 (right end), the head first in vertex order.
  EXPECT_EQ(ht->head, (std::array<int, 2>{13, 0}));
  EXPECT_EQ(ht->tail, (std::array<int, 2>{6, 7}));
}

TEST(SidelinesTest, ResamplingSpacesPointsEquallyByArcLength) {
  const std::vector<CurvePoint<float>> line = {{0, 0}, {4, 0}, {4, 6}};
  const std::vector<CurvePoint<float>> r = resample_line<float>(line, 6);
  ASSERT_EQ(r.size(), 6u);
  const float expect[6][2] = {{0, 0}, {2, 0}, {4, 0}, {4, 2}, {4, 4}, {4, 6}};
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_NEAR(r[i].x, expect[i][0], 1e-5) << i;
    EXPECT_NEAR(r[i].y, expect[i][1], 1e-5) << i;
  }
}

TEST(SidelinesTest, ARectanglesQuadsTileItsShrunkCentreBand) {
  const Result<std::vector<CenterQuad>> q =
      center_region_quads<float>(rect<float>(20, 30, 120, 40), kTextSnakeCenterLine);
  ASSERT_TRUE(q.ok());
  // 31 centre points every 4 px, 2 dropped at each end: 26 segments from x = 28 to x = 132.
  ASSERT_EQ(q->size(), 26u);
  EXPECT_EQ(q->front().xy, (std::array<int32_t, 8>{28, 44, 32, 44, 32, 56, 28, 56}));
  EXPECT_EQ(q->back().xy[2], 132);
  EXPECT_FLOAT_EQ(q->front().radius, 20.0f);
  EXPECT_FLOAT_EQ(q->front().cos, 1.0f);
}

TEST(SidelinesTest, OnlyTextSnakeReorientsTheCentreLine) {
  // The bottom listed left to right makes the top, hence the centre line, run right to left until
  // TextSnake flips it.
  const std::vector<CurvePoint<double>> p = {{20, 70}, {140, 70}, {140, 30}, {20, 30}};
  const Result<std::vector<CenterQuad>> ts = center_region_quads<double>(p, kTextSnakeCenterLine);
  const Result<std::vector<CenterQuad>> fce = center_region_quads<double>(p, kFceCenterLine);
  ASSERT_TRUE(ts.ok() && fce.ok());
  EXPECT_FLOAT_EQ(ts->front().cos, 1.0f);
  EXPECT_FLOAT_EQ(fce->front().cos, -1.0f);
}

TEST(SidelinesTest, TooFewVerticesAreRefused) {
  const std::vector<CurvePoint<float>> repeated = {{0, 0}, {10, 0}, {10, 0}, {0, 0}};
  EXPECT_EQ(center_region_quads<float>(repeated, kTextSnakeCenterLine).status().code(),
            Code::kInvalidArgument);
  // FCENet keeps repeated vertices, so the same four points make a (degenerate) centre line.
  const std::vector<CurvePoint<double>> same = {{0, 0}, {10, 0}, {10, 0}, {0, 0}};
  EXPECT_TRUE(center_region_quads<double>(same, kFceCenterLine).ok());
  const std::vector<CurvePoint<double>> tri = {{0, 0}, {10, 0}, {5, 5}};
  EXPECT_EQ(find_head_tail<double>(tri).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
