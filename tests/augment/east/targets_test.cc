// EAST targets: hand-checked cases of docs/targets.md §3 and the §5 fix flags, beyond the golden
// files (tests/python/test_golden_targets.py compares with the reference outputs).
#include "augment/east/targets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "augment/east/shrink.h"

namespace textfeed::augment {
namespace {

// Three maps of side m in one buffer each, rows padded by `pad` floats that make_targets must not
// touch; every other float starts as `fill`.
struct Maps {
  static constexpr float kPadValue = -12345.f;
  int m, stride;
  std::vector<float> score, geo, mask;
  Maps(int side, float fill = 7.f, int pad = 0)
      : m(side),
        stride(side + pad),
        score(alloc(side, fill)),
        geo(alloc(5 * side, fill)),
        mask(alloc(side, fill)) {}
  std::vector<float> alloc(int rows, float fill) const {
    std::vector<float> b(static_cast<size_t>(rows) * stride, kPadValue);
    for (int i = 0; i < rows; ++i)
      std::fill_n(b.begin() + static_cast<ptrdiff_t>(i) * stride, m, fill);
    return b;
  }
  TargetViews views() {
    auto v = [&](std::vector<float>& b, int h) {
      return MutableImageView{reinterpret_cast<uint8_t*>(b.data()),           h,          m, 1,
                              static_cast<ptrdiff_t>(stride * sizeof(float)), DType::kF32};
    };
    return {v(score, m), v(geo, 5 * m), v(mask, m)};
  }
  float& s(int i, int j) { return score[static_cast<size_t>(i) * stride + j]; }
  float& k(int i, int j) { return mask[static_cast<size_t>(i) * stride + j]; }
  float& g(int c, int i, int j) { return geo[(static_cast<size_t>(c) * m + i) * stride + j]; }
  static double sum(const std::vector<float>& b) {
    double t = 0;
    for (float x : b)
      if (x != kPadValue) t += x;
    return t;
  }
};

AugmentOptions sakura() { return profile_defaults(Profile::kSakura); }
AugmentOptions upstage() { return profile_defaults(Profile::kUpstage); }

Status run(Maps& maps, const std::vector<double>& v, const std::vector<unsigned char>& labels,
           int crop, const AugmentOptions& o, TargetScratch& scratch) {
  return make_targets(maps.views(), v, labels, crop, o, scratch);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(ShrinkTest, ReferenceExample) {
  const Quad8 s = shrink_quad({10, 10, 110, 10, 110, 30, 10, 30});
  const Quad8 expect{16, 16, 104, 16, 104, 24, 16, 24};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(s[i], expect[i], 1e-12) << i;
}

TEST(ShrinkTest, EdgesOfOnePixelOrLessStay) {
  const Quad8 unit{0, 0, 1, 0, 1, 1, 0, 1};
  EXPECT_EQ(shrink_quad(unit), unit);
  const Quad8 point{5, 5, 5, 5, 5, 5, 5, 5};
  EXPECT_EQ(shrink_quad(point), point);
}

TEST(AngleTest, RisingWordAndVertexOrder) {
  // A rectangle rising to the right by 10 degrees (counter-clockwise on screen) gives +10.
  const double t = 10.0 / 180 * M_PI, w = 200, h = 40, x0 = 100, y0 = 300;
  const double px[4] = {0, w, w, 0}, py[4] = {0, 0, h, h};
  Quad8 q;
  for (int i = 0; i < 4; ++i) {
    q[2 * i] = x0 + std::cos(t) * px[i] + std::sin(t) * py[i];
    q[2 * i + 1] = y0 - std::sin(t) * px[i] + std::cos(t) * py[i];
  }
  EXPECT_EQ(min_rect_angle_deg(q, AngleError::kSr), 10);
  EXPECT_EQ(min_rect_angle_deg(q, AngleError::kUp), 10);
  // The same axis-aligned rectangle listed from its second vertex: -90 degrees.
  EXPECT_EQ(min_rect_angle_deg({110, 10, 110, 30, 10, 30, 10, 10}, AngleError::kSr), -90);
  EXPECT_EQ(angle_rad(-90), -90.0 / 180.0 * M_PI);
}

TEST(AngleTest, FixOrientationMakesClockwiseFromTopLeft) {
  const Quad8 ccw{10, 10, 10, 30, 110, 30, 110, 10};
  const Quad8 expect{10, 10, 110, 10, 110, 30, 10, 30};
  EXPECT_EQ(order_clockwise(ccw), expect);
  EXPECT_EQ(order_clockwise({110, 30, 10, 30, 10, 10, 110, 10}), expect);
}

TEST(TargetsTest, EmptyListIsBackground) {
  TargetScratch scratch;
  Maps sr(128);
  ASSERT_TRUE(run(sr, {}, {}, 512, sakura(), scratch).ok());
  EXPECT_EQ(Maps::sum(sr.score), 0);
  EXPECT_EQ(Maps::sum(sr.geo), 0);
  EXPECT_EQ(Maps::sum(sr.mask), 0);  // nothing ignored
  Maps up(512);
  ASSERT_TRUE(run(up, {}, {}, 1024, upstage(), scratch).ok());
  EXPECT_EQ(Maps::sum(up.score), 0);
  EXPECT_EQ(Maps::sum(up.geo), 0);
  EXPECT_EQ(Maps::sum(up.mask), 512.0 * 512.0);  // all valid
}

TEST(TargetsTest, HalfToEvenRounding) {
  // Corners at x, y = 2 mod 4 land on .5 at scale 0.25: 10 -> 2.5 -> 2 (even), 18 -> 4.5 -> 4.
  const std::vector<double> v{10, 10, 18, 10, 18, 18, 10, 18};
  TargetScratch scratch;
  Maps maps(128);
  ASSERT_TRUE(run(maps, v, {0}, 512, sakura(), scratch).ok());
  // The ignored (unshrunk) quad covers map pixels x, y in [2, 4]: 3 x 3 (std::round would
  // give 3..5).
  EXPECT_EQ(Maps::sum(maps.mask), 9);
  EXPECT_EQ(maps.k(2, 2), 1);
  EXPECT_EQ(maps.k(4, 4), 1);
  EXPECT_EQ(maps.k(5, 5), 0);
  EXPECT_EQ(Maps::sum(maps.score), 0);  // sakura: ignored words get no targets
}

TEST(TargetsTest, GeometryOfAnAxisAlignedWord) {
  // (100,100)-(300,160) at map 0.25: pixel (i, j) samples crop point (4j, 4i).
  TargetScratch scratch;
  Maps maps(128);
  ASSERT_TRUE(
      run(maps, {100, 100, 300, 100, 300, 160, 100, 160}, {1}, 512, sakura(), scratch).ok());
  const int i = 32, j = 50;  // crop point (200, 128)
  ASSERT_EQ(maps.s(i, j), 1);
  EXPECT_EQ(maps.g(0, i, j), 28.f);   // top
  EXPECT_EQ(maps.g(1, i, j), 32.f);   // bottom
  EXPECT_EQ(maps.g(2, i, j), 100.f);  // left
  EXPECT_EQ(maps.g(3, i, j), 100.f);  // right
  EXPECT_EQ(maps.g(4, i, j), 0.f);
  EXPECT_EQ(maps.s(0, 0), 0);
  EXPECT_EQ(maps.g(0, 0, 0), 0);
}

TEST(TargetsTest, MapsPrefilledWithGarbageAreFullyOverwrittenAndPaddingIsKept) {
  const std::vector<double> v{100, 100, 300, 100, 300, 200, 100, 200, 150, 120, 350,
                              120, 350, 220, 150, 220, 400, 400, 480, 410, 470, 470,
                              390, 460, 20,  20,  60,  20,  60,  40,  20,  40};
  const std::vector<unsigned char> lab{1, 1, 0, 1};
  for (const AugmentOptions& o : {sakura(), upstage()}) {
    const int crop = o.profile == Profile::kSakura ? 512 : 1024, m = o.map_size();
    TargetScratch scratch;
    Maps zeros(m, 0.f, 3), nans(m, std::numeric_limits<float>::quiet_NaN(), 3);
    ASSERT_TRUE(run(zeros, v, lab, crop, o, scratch).ok());
    ASSERT_TRUE(run(nans, v, lab, crop, o, scratch).ok());
    EXPECT_TRUE(same_bits(zeros.score, nans.score));
    EXPECT_TRUE(same_bits(zeros.geo, nans.geo));
    EXPECT_TRUE(same_bits(zeros.mask, nans.mask));
    for (int i = 0; i < m; ++i)
      for (int p = m; p < m + 3; ++p)
        ASSERT_EQ(nans.score[static_cast<size_t>(i) * nans.stride + p], Maps::kPadValue);
    EXPECT_GT(Maps::sum(zeros.score), 0);
  }
}

TEST(TargetsTest, ReusedScratchGivesTheSameMaps) {
  // The ROI canvas is kept between calls; a second sample must not see the first one's quads.
  const std::vector<double> a{100, 100, 300, 100, 300, 160, 100, 160,
                              500, 500, 700, 520, 690, 580, 495, 560};
  const std::vector<double> b{600, 300, 800, 300, 800, 380, 600, 380};
  TargetScratch reused, fresh;
  Maps first(512), second(512), reference(512);
  ASSERT_TRUE(run(first, a, {0, 0}, 1024, upstage(), reused).ok());
  ASSERT_TRUE(run(second, b, {0}, 1024, upstage(), reused).ok());
  ASSERT_TRUE(run(reference, b, {0}, 1024, upstage(), fresh).ok());
  EXPECT_TRUE(same_bits(second.mask, reference.mask));
  EXPECT_TRUE(same_bits(second.score, reference.score));
  EXPECT_EQ(second.k(60, 60), 1);  // where the first sample's quad was
}

TEST(TargetsTest, SakuraAndUpstageIgnoreSemantics) {
  const std::vector<double> v{100, 100, 300, 100, 300, 160, 100, 160};
  TargetScratch scratch;
  // Sakura: the ignored map is the unshrunk quad at map scale (25..75 x 25..40); no targets.
  Maps sr(128);
  ASSERT_TRUE(run(sr, v, {0}, 512, sakura(), scratch).ok());
  EXPECT_EQ(Maps::sum(sr.mask), 51.0 * 16.0);
  EXPECT_EQ(Maps::sum(sr.score), 0);
  EXPECT_EQ(Maps::sum(sr.geo), 0);
  // Upstage: the ignored word keeps score and geometry; ROI 0 inside, fractional on its border.
  Maps up(512);
  ASSERT_TRUE(run(up, v, {0}, 1024, upstage(), scratch).ok());
  EXPECT_GT(Maps::sum(up.score), 0);
  EXPECT_GT(Maps::sum(up.geo), 0);
  EXPECT_EQ(up.k(65, 100), 0);
  EXPECT_EQ(up.k(65, 150), 0.5f);  // cell x 300..301: column 300 ignored, 301 valid
  EXPECT_EQ(up.k(65, 151), 1);
  // ignored_targets = none: the word is only masked.
  AugmentOptions none = upstage();
  none.ignored_targets = IgnoredTargets::kNone;
  Maps un(512);
  ASSERT_TRUE(run(un, v, {0}, 1024, none, scratch).ok());
  EXPECT_EQ(Maps::sum(un.score), 0);
  EXPECT_TRUE(same_bits(un.mask, up.mask));
}

TEST(TargetsTest, RoiResizeFlags) {
  const std::vector<double> v{101, 101, 301, 101, 301, 163, 101, 163};
  TargetScratch scratch;
  for (RoiResize r : {RoiResize::kNearest, RoiResize::kRasterizeAtMap}) {
    AugmentOptions o = upstage();
    o.map_scale = 0.25;
    o.roi_resize = r;
    Maps maps(256);
    ASSERT_TRUE(run(maps, v, {0}, 1024, o, scratch).ok());
    for (float x : maps.mask) ASSERT_TRUE(x == 0 || x == 1);
    EXPECT_EQ(maps.k(32, 50), 0);
    EXPECT_EQ(maps.k(10, 10), 1);
  }
}

TEST(TargetsTest, CropNotAMultipleOfTheStride) {
  // 1023 at 0.5 -> 511 (not an integer factor): the ROI is resized from the whole canvas.
  const std::vector<double> v{100, 100, 300, 100, 300, 160, 100, 160};
  TargetScratch scratch;
  Maps maps(511);
  ASSERT_TRUE(run(maps, v, {0}, 1023, upstage(), scratch).ok());
  for (float x : maps.mask) ASSERT_TRUE(x >= 0 && x <= 1);
  EXPECT_EQ(maps.k(300, 300), 1);
  EXPECT_LT(maps.k(65, 100), 1);
}

// Two overlapping words: (100..300, 100..200) and (150..350, 120..220), map 0.25.
const std::vector<double> kPair{100, 100, 300, 100, 300, 200, 100, 200,
                                150, 120, 350, 120, 350, 220, 150, 220};

TEST(TargetsTest, EvenOddOverlapVersusUnion) {
  TargetScratch scratch;
  Maps eo(128), un(128);
  AugmentOptions o = sakura();
  ASSERT_TRUE(run(eo, kPair, {1, 1}, 512, o, scratch).ok());
  o.fill_rule = FillRule::kUnion;
  ASSERT_TRUE(run(un, kPair, {1, 1}, 512, o, scratch).ok());
  // Shrunk, map px: box 1 -> x 32..68, y 32..42; box 2 -> x 45..80, y 38..48. (40, 55) is inside
  // both.
  const int i = 40, j = 55;
  EXPECT_EQ(eo.s(i, j), 0);  // even number of polygons: hole
  EXPECT_EQ(un.s(i, j), 1);
  EXPECT_EQ(eo.s(35, 40), 1);  // box 1 only
  EXPECT_GT(Maps::sum(un.score), Maps::sum(eo.score));
  // Geometry is summed wherever both boxes' own masks are 1, whatever the score.
  EXPECT_TRUE(same_bits(eo.geo, un.geo));
  const float d1a = 4 * i - 100.f, d1b = 4 * i - 120.f;
  EXPECT_EQ(eo.g(0, i, j), d1a + d1b);
}

TEST(TargetsTest, OverlapFlags) {
  TargetScratch scratch;
  const int i = 40, j = 55;  // claimed by both boxes
  AugmentOptions o = sakura();
  o.overlap = Overlap::kLast;
  Maps last(128);
  ASSERT_TRUE(run(last, kPair, {1, 1}, 512, o, scratch).ok());
  EXPECT_EQ(last.g(0, i, j), 4 * i - 120.f);  // the second box's top distance
  o.overlap = Overlap::kSmallest;
  std::vector<double> small = kPair;
  for (int k = 8; k < 16; k += 2) small[k] = small[k] == 350 ? 330 : small[k];  // box 2: 180 wide
  Maps smallest(128);
  ASSERT_TRUE(run(smallest, small, {1, 1}, 512, o, scratch).ok());
  EXPECT_EQ(smallest.g(3, i, j), 330.f - 4 * j);  // right distance of the smaller box 2
  o.overlap = Overlap::kIgnore;
  Maps ignore(128);
  ASSERT_TRUE(run(ignore, kPair, {1, 1}, 512, o, scratch).ok());
  EXPECT_EQ(ignore.s(i, j), 0);
  EXPECT_EQ(ignore.k(i, j), 1);  // sakura: 1 = ignore
  for (int c = 0; c < 5; ++c) EXPECT_EQ(ignore.g(c, i, j), 0);
  EXPECT_EQ(ignore.s(35, 40), 1);
}

TEST(TargetsTest, FixOrientationTreatsCounterClockwiseLikeClockwise) {
  const std::vector<double> cw{100, 100, 300, 100, 300, 160, 100, 160};
  const std::vector<double> ccw{100, 100, 100, 160, 300, 160, 300, 100};
  TargetScratch scratch;
  Maps plain(128), raw(128), fixed(128);
  AugmentOptions o = sakura();
  ASSERT_TRUE(run(plain, cw, {1}, 512, o, scratch).ok());
  ASSERT_TRUE(run(raw, ccw, {1}, 512, o, scratch).ok());
  EXPECT_EQ(raw.g(4, 32, 50), static_cast<float>(angle_rad(89)));  // the reference quirk (§1.3)
  o.fix_orientation = true;
  ASSERT_TRUE(run(fixed, ccw, {1}, 512, o, scratch).ok());
  EXPECT_TRUE(same_bits(fixed.score, plain.score));
  EXPECT_TRUE(same_bits(fixed.geo, plain.geo));
}

TEST(TargetsTest, DegenerateBoxesNeverCrashOrGiveNaN) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v{5,   5,   5,   5,   5,   5,   5,   5,     // point
                              0,   0,   40,  0,   80,  0,   120, 0,     // segment
                              nan, 1,   2,   3,   4,   5,   6,   7,     // NaN
                              inf, 0,   0,   0,   0,   0,   0,   0,     // infinite
                              3e9, 3e9, 4e9, 3e9, 4e9, 4e9, 3e9, 4e9,   // absurd
                              -50, -50, -10, -50, -10, -10, -50, -10};  // outside the crop
  for (const AugmentOptions& o : {sakura(), upstage()}) {
    for (unsigned char label : {0, 1}) {
      const std::vector<unsigned char> lab(6, label);
      const int crop = o.profile == Profile::kSakura ? 512 : 1024;
      Maps maps(o.map_size());
      TargetScratch scratch;
      ASSERT_TRUE(run(maps, v, lab, crop, o, scratch).ok());
      for (const auto* b : {&maps.score, &maps.geo, &maps.mask})
        for (float x : *b) ASSERT_TRUE(std::isfinite(x));
    }
  }
  // The point still paints its pixel, as the reference's fillPoly does (5 * 0.25 -> 1).
  Maps maps(128);
  TargetScratch scratch;
  ASSERT_TRUE(run(maps, {5, 5, 5, 5, 5, 5, 5, 5}, {1}, 512, sakura(), scratch).ok());
  EXPECT_EQ(Maps::sum(maps.score), 1);
  EXPECT_EQ(maps.s(1, 1), 1);
}

TEST(TargetsTest, ClampGeo) {
  const std::vector<double> v{10, 10, 1000, 10, 1000, 200, 10, 200};
  TargetScratch scratch;
  AugmentOptions o = upstage();
  Maps free(512), clamped(512);
  ASSERT_TRUE(run(free, v, {1}, 1024, o, scratch).ok());
  o.clamp_geo = 512;
  ASSERT_TRUE(run(clamped, v, {1}, 1024, o, scratch).ok());
  float top = 0;
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 512; ++i)
      for (int j = 0; j < 512; ++j) {
        ASSERT_LE(clamped.g(c, i, j), 512.f);
        ASSERT_EQ(clamped.g(c, i, j), std::min(free.g(c, i, j), 512.f));
        top = std::max(top, free.g(c, i, j));
      }
  EXPECT_GT(top, 512.f);  // the case does exercise the clamp
  EXPECT_TRUE(same_bits(
      std::vector<float>(clamped.geo.begin() + 4 * 512 * 512, clamped.geo.end()),
      std::vector<float>(free.geo.begin() + 4 * 512 * 512, free.geo.end())));  // angle untouched
}

TEST(TargetsTest, WrongShapesAreRejected) {
  TargetScratch scratch;
  Maps small(64);
  EXPECT_EQ(run(small, {}, {}, 512, sakura(), scratch).code(), Code::kInvalidArgument);
  Maps maps(128);
  EXPECT_EQ(run(maps, {1, 2, 3}, {1}, 512, sakura(), scratch).code(), Code::kInvalidArgument);
  AugmentOptions o = sakura();
  o.map_scale = 0;
  EXPECT_EQ(run(maps, {}, {}, 512, o, scratch).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
