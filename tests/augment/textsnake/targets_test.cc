// TextSnake targets (augment/textsnake/targets.h) on shapes whose maps can be worked out by hand,
// polygons the readers accept (repeated vertices, self-intersecting, hundreds of points, partly
// outside the canvas) and the refusals. The reference's own outputs are checked by
// tests/python/test_golden_mmocr_curves.py.
#include "augment/textsnake/targets.h"

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

struct Extent {
  int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
  size_t count = 0;
};

Extent extent(const std::vector<uint8_t>& plane, int w) {
  Extent e;
  for (size_t i = 0; i < plane.size(); ++i) {
    if (plane[i] == 0) continue;
    const int x = static_cast<int>(i % static_cast<size_t>(w)), y = static_cast<int>(i / w);
    e.x0 = std::min(e.x0, x), e.x1 = std::max(e.x1, x), e.y0 = std::min(e.y0, y);
    e.y1 = std::max(e.y1, y), ++e.count;
  }
  return e;
}

TEST(TextSnakeTargetsTest, ARectangleHasACentreBandOfThreeTenthsItsHalfHeight) {
  Words in(100, 200);
  in.add(box(20, 30, 120, 40));
  const Result<TextSnakeTargets> t = make_textsnake_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  const Extent text = extent(t->text_mask, 200);
  EXPECT_EQ(text.x0, 20);
  EXPECT_EQ(text.x1, 140);
  EXPECT_EQ(text.y0, 30);
  EXPECT_EQ(text.y1, 70);
  // Centre y = 50, +-0.3 * 20; 31 points every 4 px, (40 / 4) // 4 = 2 dropped at each end.
  const Extent centre = extent(t->center_region_mask, 200);
  EXPECT_EQ(centre.y0, 44);
  EXPECT_EQ(centre.y1, 56);
  EXPECT_EQ(centre.x0, 28);
  EXPECT_EQ(centre.x1, 132);
  for (size_t i = 0; i < t->center_region_mask.size(); ++i) {
    if (t->center_region_mask[i] == 0) continue;
    ASSERT_FLOAT_EQ(t->cos_map[i], 1.0f);
    ASSERT_FLOAT_EQ(t->sin_map[i], 0.0f);
    ASSERT_NEAR(t->radius_map[i], 20.0f, 1e-4);
  }
  for (uint8_t m : t->mask) ASSERT_EQ(m, 1);
}

TEST(TextSnakeTargetsTest, AVerticalWordReadsTopToBottom) {
  Words in(400, 200);
  in.add(box(80, 40, 40, 300));
  const Result<TextSnakeTargets> t = make_textsnake_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  const Extent centre = extent(t->center_region_mask, 200);
  ASSERT_GT(centre.count, 0u);
  EXPECT_EQ(centre.x0, 94);  // 100 -+ 0.3 * 20
  EXPECT_EQ(centre.x1, 106);
  for (size_t i = 0; i < t->center_region_mask.size(); ++i) {
    if (t->center_region_mask[i] != 0) {
      ASSERT_FLOAT_EQ(t->sin_map[i], 1.0f);
    }
  }
}

TEST(TextSnakeTargetsTest, AReversedPointOrderGivesTheSameRegion) {
  Words cw(100, 200), ccw(100, 200);
  cw.add(box(20, 30, 120, 40));
  ccw.add({20, 30, 20, 70, 140, 70, 140, 30});
  const Result<TextSnakeTargets> a = make_textsnake_targets(cw.view());
  const Result<TextSnakeTargets> b = make_textsnake_targets(ccw.view());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->center_region_mask, b->center_region_mask);
  EXPECT_EQ(a->cos_map, b->cos_map);
}

TEST(TextSnakeTargetsTest, AnIgnoredWordIsOnlyMaskedOut) {
  Words in(100, 200);
  in.add(box(20, 30, 120, 40), true);
  const Result<TextSnakeTargets> t = make_textsnake_targets(in.view());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(extent(t->text_mask, 200).count, 0u);
  EXPECT_EQ(extent(t->center_region_mask, 200).count, 0u);
  EXPECT_EQ(t->mask[50 * 200 + 80], 0);
  EXPECT_EQ(t->mask[10 * 200 + 10], 1);
}

TEST(TextSnakeTargetsTest, ZeroWordsGiveBlankPlanes) {
  const Words in(32, 48);
  const Result<TextSnakeTargets> t = make_textsnake_targets(in.view());
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->text_mask.size(), 32u * 48u);
  for (size_t i = 0; i < t->mask.size(); ++i) {
    ASSERT_EQ(t->mask[i], 1);
    ASSERT_EQ(t->text_mask[i] + t->center_region_mask[i], 0);
    ASSERT_EQ(t->radius_map[i], 0.0f);
  }
}

TEST(TextSnakeTargetsTest, ARepeatedVertexIsDroppedBeforeTheCentreLine) {
  Words four(100, 200), five(100, 200);
  four.add(box(20, 30, 120, 40));
  five.add({20, 30, 140, 30, 140, 30, 140, 70, 20, 70});
  const Result<TextSnakeTargets> a = make_textsnake_targets(four.view());
  const Result<TextSnakeTargets> b = make_textsnake_targets(five.view());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->center_region_mask, b->center_region_mask);
  EXPECT_EQ(a->radius_map, b->radius_map);
}

TEST(TextSnakeTargetsTest, TwoDistinctVerticesAreRefusedNamingThePolygon) {
  Words in(100, 200);
  in.add(box(5, 5, 20, 10)).add({60, 60, 120, 60, 120, 60, 60, 60});
  const Result<TextSnakeTargets> t = make_textsnake_targets(in.view());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
  EXPECT_NE(t.status().message().find("polygon 1"), std::string::npos) << t.status().message();
}

TEST(TextSnakeTargetsTest, ASelfIntersectingWordIsDrawn) {
  Words in(100, 200);
  in.add({20, 30, 140, 70, 140, 30, 20, 70});  // a bowtie
  const Result<TextSnakeTargets> t = make_textsnake_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_GT(extent(t->text_mask, 200).count, 0u);
}

// A ring sector: `per_side` points on the outer arc left to right, then as many on the inner arc
// back, around (cx, cy).
std::vector<float> arc(float cx, float cy, float r_in, float r_out, int per_side) {
  std::vector<float> xy;
  for (int i = 0; i < per_side; ++i) {
    const double a = std::numbers::pi * (1.0 + static_cast<double>(i) / (per_side - 1));
    xy.push_back(static_cast<float>(cx + r_out * std::cos(a)));
    xy.push_back(static_cast<float>(cy + r_out * std::sin(a)));
  }
  for (int i = per_side - 1; i >= 0; --i) {
    const double a = std::numbers::pi * (1.0 + static_cast<double>(i) / (per_side - 1));
    xy.push_back(static_cast<float>(cx + r_in * std::cos(a)));
    xy.push_back(static_cast<float>(cy + r_in * std::sin(a)));
  }
  return xy;
}

TEST(TextSnakeTargetsTest, ACurveOfHundredsOfPointsKeepsItsCentreInsideTheText) {
  Words in(300, 400);
  in.add(arc(200, 250, 120, 160, 300));
  const Result<TextSnakeTargets> t = make_textsnake_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  size_t centre = 0;
  for (size_t i = 0; i < t->center_region_mask.size(); ++i) {
    if (t->center_region_mask[i] == 0) continue;
    ++centre;
    ASSERT_EQ(t->text_mask[i], 1) << i;
    const double s = t->sin_map[i], c = t->cos_map[i];
    ASSERT_NEAR(s * s + c * c, 1.0, 1e-5);
    ASSERT_NEAR(t->radius_map[i], 20.0, 0.5);
  }
  EXPECT_GT(centre, 1000u);
}

TEST(TextSnakeTargetsTest, AWordPartlyOutsideIsClippedToTheCanvas) {
  Words in(100, 200);
  in.add(box(150, 30, 120, 40));
  const Result<TextSnakeTargets> t = make_textsnake_targets(in.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(extent(t->text_mask, 200).x1, 199);
  EXPECT_EQ(extent(t->center_region_mask, 200).x1, 199);
}

TEST(TextSnakeTargetsTest, InconsistentInputIsRefused) {
  Words in(100, 200);
  in.add(box(20, 30, 120, 40));
  in.npts[0] = 5;  // more points than coordinates
  EXPECT_EQ(make_textsnake_targets(in.view()).status().code(), Code::kInvalidArgument);
  Words nan(100, 200);
  nan.add({20, 30, NAN, 30, 140, 70, 20, 70});
  EXPECT_EQ(make_textsnake_targets(nan.view()).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
