// PSENet targets (augment/psenet/targets.h) and the text kernels under them
// (augment/geometry/text_kernels.h, offset.h) on shapes whose kernels can be worked out by hand,
// and the refusals of input the reference cannot take. The reference's own outputs are checked by
// tests/python/test_golden_mmocr_kernels.py.
#include "augment/psenet/targets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "augment/geometry/offset.h"
#include "tests/augment/mmocr_words.h"

namespace textfeed::augment {
namespace {

using testing::rect;
using testing::Words;

float at(const TextKernels& t, int k, int y, int x) {
  return t.kernels[(static_cast<size_t>(k) * t.height + y) * t.width + x];
}

// The pixels of kernel k equal to `value`, and their bounding box.
struct Cover {
  long count = 0;
  int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
};

Cover cover(const TextKernels& t, int k, float value) {
  Cover c;
  for (int y = 0; y < t.height; ++y)
    for (int x = 0; x < t.width; ++x)
      if (at(t, k, y, x) == value) {
        ++c.count;
        c.x0 = std::min(c.x0, x), c.y0 = std::min(c.y0, y);
        c.x1 = std::max(c.x1, x), c.y1 = std::max(c.y1, y);
      }
  return c;
}

TEST(PseTargetsTest, ARectanglesKernelsShrinkByTheRoundedDistance) {
  // 100 x 40 px: A = 4000, L = 280, D = int(4000 (1 - r^2) / 280.001 + 0.5) per ratio.
  const int expected_d[7] = {0, 3, 5, 7, 9, 11, 12};
  Words w(100, 160);
  w.add(rect(20, 30, 120, 70));
  Result<TextKernels> t = make_pse_targets(w.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  ASSERT_EQ(t->num_kernels, 7);
  ASSERT_EQ(t->kernels.size(), 7u * 100 * 160);
  for (int k = 0; k < 7; ++k) {
    const int d = expected_d[k];
    const Cover c = cover(*t, k, 1.0f);
    EXPECT_EQ(c.x0, 20 + d) << k;
    EXPECT_EQ(c.x1, 120 - d) << k;
    EXPECT_EQ(c.y0, 30 + d) << k;
    EXPECT_EQ(c.y1, 70 - d) << k;
    EXPECT_EQ(c.count, (101L - 2 * d) * (41L - 2 * d)) << k;  // fillPoly includes the boundary
    EXPECT_EQ(cover(*t, k, 0.0f).count + c.count, 100L * 160) << k;
  }
  for (float m : t->mask) ASSERT_EQ(m, 1.0f);
}

TEST(PseTargetsTest, TheShrinkDistanceIsCappedAt20Px) {
  // 400 x 200: D would be 13 at 0.9, 24 at 0.8 and more below; the cap makes 0.8..0.4 equal.
  Words w(300, 500);
  w.add(rect(50, 50, 450, 250));
  Result<TextKernels> t = make_pse_targets(w.view());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(cover(*t, 1, 1.0f).x0, 50 + 13);
  EXPECT_EQ(cover(*t, 2, 1.0f).x0, 50 + 20);
  const size_t plane = 300 * 500;
  for (int k = 3; k < 7; ++k)
    EXPECT_TRUE(std::equal(t->kernels.begin() + 2 * plane, t->kernels.begin() + 3 * plane,
                           t->kernels.begin() + k * plane))
        << k;
}

TEST(PseTargetsTest, ShrinkDistanceFollowsTheReferenceRule) {
  const RingMeasure ring{4000, 280};
  EXPECT_EQ(kernel_shrink_distance(ring, 1.0, 20), 0);
  EXPECT_EQ(kernel_shrink_distance(ring, 0.4, 20), 12);
  EXPECT_EQ(kernel_shrink_distance(ring, 0.4, 5), 5);
  EXPECT_EQ(kernel_shrink_distance(RingMeasure{80000, 1200}, 0.4, kNoShrinkCap), 56);
}

TEST(PseTargetsTest, NoWordsGiveEmptyKernelsAndAFullMask) {
  Words w(20, 30);
  Result<TextKernels> t = make_pse_targets(w.view());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->kernels.size(), 7u * 20 * 30);
  for (float v : t->kernels) ASSERT_EQ(v, 0.0f);
  for (float v : t->mask) ASSERT_EQ(v, 1.0f);
}

TEST(PseTargetsTest, LaterWordsOverwriteAndIgnoredWordsAreDrawnButMasked) {
  Words w(100, 100);
  w.add(rect(10, 10, 60, 60)).add(rect(40, 40, 90, 90), /*ignore=*/true);
  Result<TextKernels> t = make_pse_targets(w.view());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(at(*t, 0, 50, 50), 2.0f);  // the overlap holds the later word
  EXPECT_EQ(at(*t, 0, 20, 20), 1.0f);
  EXPECT_EQ(at(*t, 6, 65, 65), 2.0f);  // the ignored word still has its kernels
  EXPECT_EQ(t->mask[50 * 100 + 50], 0.0f);
  EXPECT_EQ(t->mask[90 * 100 + 90], 0.0f);  // boundary included
  EXPECT_EQ(t->mask[20 * 100 + 20], 1.0f);
  EXPECT_EQ(t->mask[91 * 100 + 91], 1.0f);
}

TEST(PseTargetsTest, FractionalVerticesAreTruncatedFirst) {
  Words a(60, 60), b(60, 60);
  a.add(rect(10.9f, 10.9f, 50.9f, 40.9f));
  b.add(rect(10, 10, 50, 40));
  Result<TextKernels> ta = make_pse_targets(a.view()), tb = make_pse_targets(b.view());
  ASSERT_TRUE(ta.ok() && tb.ok());
  EXPECT_EQ(ta->kernels, tb->kernels);
}

TEST(PseTargetsTest, ASelfIntersectingWordKeepsOneLobe) {
  // A bowtie: Clipper's cleaning at D = 0 keeps the lobes of one orientation only.
  Words w(50, 50);
  w.add({0, 0, 40, 40, 40, 0, 0, 40});
  Result<TextKernels> t = make_pse_targets(w.view());
  ASSERT_TRUE(t.ok());
  long left = 0, right = 0;
  for (int y = 0; y < 50; ++y)
    for (int x = 0; x < 50; ++x)
      if (at(*t, 0, y, x) > 0) (x <= 20 ? left : right) += 1;  // (20, 20): the crossing
  EXPECT_GT(left + right, 300);
  EXPECT_TRUE(left == 0 || right == 0) << left << " " << right;
}

TEST(PseTargetsTest, AZeroAreaWordDrawsNothing) {
  Words w(50, 50);
  w.add({5, 5, 20, 20, 30, 30, 45, 45});  // collinear
  Result<TextKernels> t = make_pse_targets(w.view());
  ASSERT_TRUE(t.ok());
  for (float v : t->kernels) ASSERT_EQ(v, 0.0f);
}

// Two 60 px boxes joined by a 4 px neck; the right box's lower outer corner is cut when `cut`.
std::vector<float> dumbbell(bool cut) {
  std::vector<float> p = {0, 0, 60, 0, 60, 28, 100, 28, 100, 0, 160, 0};
  if (cut) {
    p.insert(p.end(), {160, 40, 140, 60});
  } else {
    p.insert(p.end(), {160, 60});
  }
  p.insert(p.end(), {100, 60, 100, 32, 60, 32, 60, 60, 0, 60});
  return p;
}

TEST(PseTargetsTest, ASplitKernelKeepsTheFirstPieceOnlyWhenThePiecesMatch) {
  for (bool cut : {false, true}) {
    Words w(70, 170);
    w.add(dumbbell(cut));
    Result<TextKernels> t = make_pse_targets(w.view());
    ASSERT_TRUE(t.ok());
    EXPECT_GT(cover(*t, 0, 1.0f).count, 7000) << cut;  // ratio 1: the whole word
    const Cover c = cover(*t, 6, 1.0f);                // ratio 0.4: the neck is gone
    if (cut) {
      EXPECT_EQ(c.count, 0);  // a square and a pentagon: different point counts, nothing drawn
    } else {
      EXPECT_GT(c.count, 30 * 30);  // two squares: the first one only
      EXPECT_TRUE(c.x1 < 60 || c.x0 > 100) << c.x0 << ".." << c.x1;
    }
  }
}

TEST(PseTargetsTest, HundredsOfPointsShrinkLikeTheCircleTheyDraw) {
  constexpr int kPoints = 400;
  std::vector<float> circle;
  for (int i = 0; i < kPoints; ++i) {
    const double a = 2 * M_PI * i / kPoints;
    circle.push_back(static_cast<float>(100 + 60 * std::cos(a)));
    circle.push_back(static_cast<float>(100 + 60 * std::sin(a)));
  }
  Words w(200, 200);
  w.add(circle);
  Result<TextKernels> t = make_pse_targets(w.view());
  ASSERT_TRUE(t.ok());
  // D = int(A 0.84 / L + 0.5) ~ 25 -> capped at 20: a disk of radius ~40 at ratio 0.4.
  const Cover c = cover(*t, 6, 1.0f);
  EXPECT_NEAR(static_cast<double>(c.count), M_PI * 40 * 40, 0.05 * M_PI * 40 * 40);
  EXPECT_NEAR(c.x0, 60, 2);
  EXPECT_NEAR(c.x1, 140, 2);
}

TEST(PseTargetsTest, AWordPartlyOutsideIsClippedByTheCanvas) {
  Words w(40, 40);
  w.add(rect(-30, 10, 20, 30));
  Result<TextKernels> t = make_pse_targets(w.view());
  ASSERT_TRUE(t.ok());
  const Cover c = cover(*t, 0, 1.0f);
  EXPECT_EQ(c.x0, 0);
  EXPECT_EQ(c.x1, 20);
  EXPECT_EQ(c.count, 21L * 21);
}

TEST(PseTargetsTest, InputTheReferenceCannotTakeIsRefusedByName) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::pair<std::vector<float>, const char*>> bad = {
      {{1, 1, 5, 5}, "polygon 1 has 2 points"},
      {{1, 1, 5, nan, 9, 1}, "polygon 1: coordinate"},
      {{1, 1, 5, 2e6f, 9, 1}, "polygon 1: coordinate"},
      {std::vector<float>(2 * (kMaxTextKernelPolygonPoints + 1), 3.0f), "polygon 1 has 1025"},
  };
  for (const auto& [poly, message] : bad) {
    Words w(20, 20);
    w.add(rect(1, 1, 10, 10)).add(poly);
    Result<TextKernels> t = make_pse_targets(w.view());
    ASSERT_FALSE(t.ok()) << message;
    EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
    EXPECT_NE(t.status().message().find(message), std::string::npos) << t.status().to_string();
  }
}

TEST(PseTargetsTest, SizesThatDisagreeAndEmptyCanvasesAreRefused) {
  Words w(20, 20);
  w.add(rect(1, 1, 10, 10));
  TextKernelWords v = w.view();
  v.xy = v.xy.first(7);
  EXPECT_EQ(make_pse_targets(v).status().code(), Code::kInvalidArgument);
  v = w.view();
  v.ignored = {};
  EXPECT_EQ(make_pse_targets(v).status().code(), Code::kInvalidArgument);
  v = w.view();
  v.width = 0;
  EXPECT_EQ(make_pse_targets(v).status().code(), Code::kInvalidArgument);
  const double bad_ratio[1] = {1.5};
  EXPECT_EQ(make_text_kernels(w.view(), bad_ratio, 20).status().code(), Code::kInvalidArgument);
}

// compact_masks: uint8 kernel planes hold 1 where the float ones hold an id, the uint8 mask the
// float mask's values; kernel planes of two dtypes are refused.
TEST(PseTargetsTest, Uint8PlanesHoldTheBinarisedKernelsAndTheMask) {
  Words w(100, 100);
  w.add(rect(10, 10, 60, 60)).add(rect(40, 40, 90, 90), /*ignore=*/true);
  Result<TextKernels> f = make_pse_targets(w.view());
  ASSERT_TRUE(f.ok());
  constexpr int kPlane = 100 * 100;
  std::vector<uint8_t> bytes(8 * kPlane, 7);  // stale values: every plane must be rewritten
  std::vector<MutableImageView> kernels;
  for (int k = 0; k < 7; ++k) kernels.push_back(dense_plane(bytes.data() + k * kPlane, 100, 100));
  TextKernelScratch scratch;
  const TextKernelPlanes planes{kernels, dense_plane(bytes.data() + 7 * kPlane, 100, 100), false};
  ASSERT_TRUE(draw_pse_targets(w.view(), planes, scratch).ok());
  for (int k = 0; k < 7; ++k)
    for (int i = 0; i < kPlane; ++i)
      ASSERT_EQ(bytes[k * kPlane + i], f->kernels[k * kPlane + i] > 0.5f ? 1 : 0) << k << " " << i;
  for (int i = 0; i < kPlane; ++i) ASSERT_EQ(bytes[7 * kPlane + i], f->mask[i]) << i;

  std::vector<float> one(kPlane);
  kernels[3] = dense_plane(one.data(), 100, 100);
  const TextKernelPlanes mixed{kernels, planes.mask, false};
  const Status s = draw_pse_targets(w.view(), mixed, scratch);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("not a uint8 plane"), std::string::npos) << s.to_string();
}

}  // namespace
}  // namespace textfeed::augment
