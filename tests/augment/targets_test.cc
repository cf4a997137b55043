// EAST targets: hand-checked cases of TARGETS.md §3 beyond the golden files.
#include "augment/targets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "augment/shrink.h"

namespace textfeed::augment {
namespace {

struct Maps {
  int m;
  std::vector<float> score, geo, mask;
  explicit Maps(int side, float fill = 7.f) : m(side), score(side * side, fill), geo(5 * side * side, fill), mask(side * side, fill) {}
  TargetViews views() {
    auto v = [&](std::vector<float>& b, int h) {
      return MutableImageView{reinterpret_cast<uint8_t*>(b.data()), h, m, 1, static_cast<ptrdiff_t>(m * 4), DType::kF32};
    };
    return {v(score, m), v(geo, 5 * m), v(mask, m)};
  }
  double sum(const std::vector<float>& b) const {
    double s = 0;
    for (float x : b) s += x;
    return s;
  }
};

AugmentOptions sakura() { return profile_defaults(Profile::kSakura); }

TEST(ShrinkTest, ReferenceExample) {
  const Quad8 q{10, 10, 110, 10, 110, 30, 10, 30};
  const Quad8 s = shrink_quad(q);
  const Quad8 expect{16, 16, 104, 16, 104, 24, 16, 24};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(s[i], expect[i], 1e-12);
}

TEST(AngleTest, RisingWordAndVertexOrder) {
  // A rectangle rising to the right by 10 degrees (counter-clockwise on screen) gives +10.
  const double t = 10.0 / 180 * M_PI;
  Quad8 q;
  const double w = 200, h = 40, x0 = 100, y0 = 300;
  const double px[4] = {0, w, w, 0}, py[4] = {0, 0, h, h};
  for (int i = 0; i < 4; ++i) {
    q[2 * i] = x0 + std::cos(t) * px[i] + std::sin(t) * py[i];
    q[2 * i + 1] = y0 - std::sin(t) * px[i] + std::cos(t) * py[i];
  }
  EXPECT_EQ(min_rect_angle_deg(q, AngleError::kSr), 10);
  EXPECT_EQ(min_rect_angle_deg(q, AngleError::kUp), 10);
}

TEST(TargetsTest, EveryPixelIsWrittenAndEmptyIsBackground) {
  Maps maps(128);
  TargetScratch scratch;
  ASSERT_TRUE(make_targets(maps.views(), {}, {}, 512, sakura(), scratch).ok());
  EXPECT_EQ(maps.sum(maps.score), 0);
  EXPECT_EQ(maps.sum(maps.geo), 0);
  EXPECT_EQ(maps.sum(maps.mask), 0);
  AugmentOptions up = profile_defaults(Profile::kUpstage);
  Maps upm(512);
  ASSERT_TRUE(make_targets(upm.views(), {}, {}, 1024, up, scratch).ok());
  EXPECT_EQ(upm.sum(upm.mask), 512.0 * 512.0);  // ROI all valid
}

TEST(TargetsTest, HalfToEvenRounding) {
  // x = 2 mod 4 corners at scale 0.25 land on .5: 10 -> 2.5 -> 2 (even), 18 -> 4.5 -> 4.
  const std::vector<double> v{10, 10, 18, 10, 18, 18, 10, 18};
  const std::vector<unsigned char> ignored{0};
  Maps maps(128);
  TargetScratch scratch;
  ASSERT_TRUE(make_targets(maps.views(), v, ignored, 512, sakura(), scratch).ok());
  // The ignored (unshrunk) quad covers map pixels x, y in [2, 4] -> 3 x 3 = 9.
  EXPECT_EQ(maps.sum(maps.mask), 9);
  EXPECT_EQ(maps.mask[2 * 128 + 2], 1);
  EXPECT_EQ(maps.mask[2 * 128 + 5], 0);
  EXPECT_EQ(maps.sum(maps.score), 0);  // sakura: ignored words get no targets
}

TEST(TargetsTest, UpstageIgnoredWordsKeepTargets) {
  const std::vector<double> v{100, 100, 300, 100, 300, 160, 100, 160};
  Maps maps(512);
  TargetScratch scratch;
  AugmentOptions up = profile_defaults(Profile::kUpstage);
  ASSERT_TRUE(make_targets(maps.views(), v, std::vector<unsigned char>{0}, 1024, up, scratch).ok());
  EXPECT_GT(maps.sum(maps.score), 0);
  EXPECT_LT(maps.sum(maps.mask), 512.0 * 512.0);
  up.ignored_targets = IgnoredTargets::kNone;
  Maps none(512);
  ASSERT_TRUE(make_targets(none.views(), v, std::vector<unsigned char>{0}, 1024, up, scratch).ok());
  EXPECT_EQ(none.sum(none.score), 0);
}

TEST(TargetsTest, EvenOddOverlapVersusUnion) {
  const std::vector<double> v{100, 100, 300, 100, 300, 200, 100, 200, 150, 120, 350, 120, 350, 220, 150, 220};
  const std::vector<unsigned char> lab{1, 1};
  TargetScratch scratch;
  Maps eo(128), un(128);
  AugmentOptions o = sakura();
  ASSERT_TRUE(make_targets(eo.views(), v, lab, 512, o, scratch).ok());
  o.fill_rule = FillRule::kUnion;
  ASSERT_TRUE(make_targets(un.views(), v, lab, 512, o, scratch).ok());
  EXPECT_GT(un.sum(un.score), eo.sum(eo.score));
  // Summed geometry: inside the overlap the angle channel holds 2t = 0 and d1 sums two distances.
}

TEST(TargetsTest, DegenerateBoxesAndClamp) {
  const double nan = std::nan("");
  const std::vector<double> v{5, 5, 5, 5, 5, 5, 5, 5, 0, 0, 40, 0, 80, 0, 120, 0, nan, 1, 2, 3, 4, 5, 6, 7,
                              10, 10, 1000, 10, 1000, 200, 10, 200};
  const std::vector<unsigned char> lab{1, 1, 1, 1};
  Maps maps(128);
  TargetScratch scratch;
  AugmentOptions o = sakura();
  o.clamp_geo = 50;
  ASSERT_TRUE(make_targets(maps.views(), v, lab, 512, o, scratch).ok());
  for (float x : maps.geo) ASSERT_TRUE(std::isfinite(x));
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 128 * 128; ++i) ASSERT_LE(maps.geo[c * 128 * 128 + i], 50.f);
}

TEST(TargetsTest, WrongViewShapesAreRejected) {
  Maps maps(64);
  TargetScratch scratch;
  EXPECT_EQ(make_targets(maps.views(), {}, {}, 512, sakura(), scratch).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
