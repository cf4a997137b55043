// mmocr's DBNet targets (augment/db/mmocr_targets.h) on shapes whose maps can be worked out by
// hand: the validity test, the shrink, the threshold band, the reference's slicing at the canvas
// edges, and the refusals. The reference's own outputs are checked by
// tests/python/test_golden_mmocr_kernels.py.
#include "augment/db/mmocr_targets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/augment/mmocr_words.h"

namespace textfeed::augment {
namespace {

using testing::rect;
using testing::Words;

float at(const std::vector<float>& plane, int width, int y, int x) {
  return plane[static_cast<size_t>(y) * width + x];
}

long count(const std::vector<float>& plane, float value) {
  return static_cast<long>(std::count(plane.begin(), plane.end(), value));
}

constexpr float kAway = 0.3f;  // thr_min: the threshold map away from text
// thr_max, which a pixel on an edge misses by a few 1e-6: the eps in the formula's denominators
// leaves a distance of sqrt(a b eps / c^2) there.
constexpr float kOnEdge = 0.7f;
constexpr double kOnEdgeTolerance = 1e-5;

TEST(DbMmocrTargetsTest, ARectangleGetsItsKernelAndItsBorderBand) {
  // 100 x 40 px: kernel D = int(4000 * 0.84 / 280.001 + 0.5) = 12; band D = 4000 * 0.84 / 280 = 12.
  Words w(100, 160);
  w.add(rect(20, 30, 120, 70));
  Result<DbMmocrTargets> t = make_db_mmocr_targets(w.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  ASSERT_EQ(t->ignored, std::vector<uint8_t>{0});
  EXPECT_EQ(count(t->shrink, 1.0f), 77L * 17);
  EXPECT_EQ(at(t->shrink, 160, 42, 32), 1.0f);
  EXPECT_EQ(at(t->shrink, 160, 41, 32), 0.0f);
  EXPECT_EQ(count(t->shrink_mask, 1.0f), 100L * 160);
  EXPECT_NEAR(at(t->thr, 160, 50, 20), kOnEdge, kOnEdgeTolerance);
  EXPECT_NEAR(at(t->thr, 160, 50, 26), 0.5f, 1e-6);  // 6 px from the edge: 1 - 6 / 12
  EXPECT_NEAR(at(t->thr, 160, 50, 14), 0.5f, 1e-6);  // outside too
  EXPECT_EQ(at(t->thr, 160, 50, 70), kAway);         // 20 px from every edge
  EXPECT_EQ(at(t->thr, 160, 0, 0), kAway);
  EXPECT_EQ(at(t->thr_mask, 160, 50, 8), 1.0f);  // the band reaches 12 px out
  EXPECT_EQ(at(t->thr_mask, 160, 50, 7), 0.0f);
  EXPECT_EQ(at(t->thr_mask, 160, 19, 9), 0.0f);  // round corners
  for (float v : t->thr) ASSERT_TRUE(v >= kAway && v <= kOnEdge + 1e-6f) << v;
}

TEST(DbMmocrTargetsTest, SmallThinAndGivenIgnoredWordsAreMaskedAndHaveNoBorder) {
  Words w(200, 200);
  w.add(rect(10, 10, 90, 17));                     // 7 px high: below min_sidelength 8
  w.add({100, 100, 104, 96, 184, 176, 180, 180});  // 45 degrees, ~5.7 px wide, ~113 px long
  w.add(rect(10, 150, 90, 190), /*ignore=*/true);  // '###'
  w.add(rect(10, 40, 90, 80));                     // valid
  Result<DbMmocrTargets> t = make_db_mmocr_targets(w.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->ignored, (std::vector<uint8_t>{1, 1, 1, 0}));
  EXPECT_EQ(at(t->shrink_mask, 200, 13, 50), 0.0f);
  EXPECT_EQ(at(t->shrink_mask, 200, 140, 140), 0.0f);
  EXPECT_EQ(at(t->shrink_mask, 200, 170, 50), 0.0f);
  EXPECT_EQ(at(t->shrink_mask, 200, 60, 50), 1.0f);
  EXPECT_EQ(at(t->thr_mask, 200, 140, 140), 0.0f);
  EXPECT_EQ(at(t->thr, 200, 150, 50), kAway);
  EXPECT_EQ(at(t->thr, 200, 140, 140), kAway);
  EXPECT_EQ(at(t->shrink, 200, 60, 50), 1.0f);
  EXPECT_NEAR(at(t->thr, 200, 40, 50), kOnEdge, kOnEdgeTolerance);
}

// Two 60 px boxes joined by a 4 px neck, the right one with a corner cut: the kernel splits into
// a square and a pentagon, which the reference drops.
TEST(DbMmocrTargetsTest, AWordWhoseKernelSplitsUnevenlyBecomesIgnored) {
  Words w(70, 170);
  w.add({0,  0,   60, 0,   60, 28,  100, 28, 100, 0,  160, 0, 160,
         40, 140, 60, 100, 60, 100, 32,  60, 32,  60, 60,  0, 60});
  Result<DbMmocrTargets> t = make_db_mmocr_targets(w.view());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->ignored, std::vector<uint8_t>{1});
  EXPECT_EQ(count(t->shrink, 1.0f), 0);
  EXPECT_EQ(count(t->thr_mask, 1.0f), 0);
  EXPECT_EQ(count(t->thr, kAway), 70L * 170);
  EXPECT_EQ(at(t->shrink_mask, 170, 30, 30), 0.0f);
}

TEST(DbMmocrTargetsTest, ABoxWhollyLeftOfTheCanvasIsSkipped) {
  Words w(100, 100);
  w.add(rect(-100, 20, -40, 60));  // band D = 10.08: the box ends at x = -30
  Result<DbMmocrTargets> t = make_db_mmocr_targets(w.view());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->ignored, std::vector<uint8_t>{0});
  EXPECT_EQ(count(t->thr, kAway), 100L * 100);
  EXPECT_EQ(count(t->thr_mask, 1.0f), 0);
}

TEST(DbMmocrTargetsTest, ABoxWhollyRightCopiesOneFarColumnIntoTheLastOne) {
  // The box spans x = 105..185 (x_min > W = 100): numpy's negative slice reads box column
  // width - 6, at x = 180, 5 px right of the word's right edge.
  Words w(100, 100);
  w.add(rect(115, 20, 175, 60));
  Result<DbMmocrTargets> t = make_db_mmocr_targets(w.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(count(t->thr_mask, 1.0f), 0);
  const float band = 1.0f - static_cast<float>(5 / (2400 * 0.84 / 200));
  EXPECT_NEAR(at(t->thr, 100, 40, 99), band * 0.4f + 0.3f, 1e-6);
  EXPECT_GT(at(t->thr, 100, 20, 99), kAway);
  long drawn = 0;
  for (int y = 0; y < 100; ++y)
    for (int x = 0; x < 99; ++x) drawn += at(t->thr, 100, y, x) != kAway;
  EXPECT_EQ(drawn, 0);
}

TEST(DbMmocrTargetsTest, ABoxStartingAtTheRightOrBottomEdgeIsRefusedAsTheReferenceRaises) {
  // Band D = 10.08: Clipper's offset starts at round(110 - 10.08) = 100 = W (or H).
  for (bool bottom : {false, true}) {
    Words w(100, 100);
    w.add(rect(10, 10, 50, 50));
    w.add(bottom ? rect(20, 110, 80, 150) : rect(110, 20, 170, 60));
    Result<DbMmocrTargets> t = make_db_mmocr_targets(w.view());
    ASSERT_FALSE(t.ok()) << bottom;
    EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
    EXPECT_NE(t.status().message().find("polygon 1"), std::string::npos) << t.status().message();
  }
}

TEST(DbMmocrTargetsTest, NoWordsGiveBlankTargets) {
  Words w(10, 12);
  Result<DbMmocrTargets> t = make_db_mmocr_targets(w.view());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(count(t->thr, kAway), 120);
  EXPECT_EQ(count(t->shrink, 0.0f), 120);
  EXPECT_EQ(count(t->shrink_mask, 1.0f), 120);
  EXPECT_EQ(count(t->thr_mask, 0.0f), 120);
  EXPECT_TRUE(t->ignored.empty());
}

TEST(DbMmocrTargetsTest, HundredsOfPointsMakeADiskAndARing) {
  constexpr int kPoints = 300;
  std::vector<float> circle;
  for (int i = 0; i < kPoints; ++i) {
    const double a = 2 * M_PI * i / kPoints;
    circle.push_back(static_cast<float>(100 + 40 * std::cos(a)));
    circle.push_back(static_cast<float>(100 + 40 * std::sin(a)));
  }
  Words w(200, 200);
  w.add(circle);
  Result<DbMmocrTargets> t = make_db_mmocr_targets(w.view());
  ASSERT_TRUE(t.ok());
  // The truncated outline is a staircase (A = 5014, L = 286 > 2 pi 40), so the kernel's
  // D = int(5014 * 0.84 / 286.025 + 0.5) = 15: a disk of radius ~25.
  EXPECT_NEAR(static_cast<double>(count(t->shrink, 1.0f)), M_PI * 25 * 25, 0.06 * M_PI * 25 * 25);
  EXPECT_NEAR(at(t->thr, 200, 100, 140), kOnEdge, 0.01);
  EXPECT_EQ(at(t->thr, 200, 100, 100), kAway);
  EXPECT_EQ(at(t->thr_mask, 200, 100, 150), 1.0f);
}

TEST(DbMmocrTargetsTest, PolygonsTheReferenceCannotTakeAreRefusedByName) {
  Words w(50, 50);
  w.add(rect(1, 1, 30, 30)).add({1, 1, 5, 5});
  Result<DbMmocrTargets> t = make_db_mmocr_targets(w.view());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
  EXPECT_NE(t.status().message().find("polygon 1 has 2 points"), std::string::npos);
}

}  // namespace
}  // namespace textfeed::augment
