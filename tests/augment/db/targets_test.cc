// DB targets (augment/db/targets.h) on shapes whose maps can be worked out by hand, the refusals
// of hostile input, and DbTargetBuilder. The reference's own outputs are checked by
// tests/python/test_golden_db.py.
#include "augment/db/targets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace textfeed::augment {
namespace {

// The four maps of an h x w canvas, filled with a value every build must overwrite.
struct Maps {
  int h, w;
  std::vector<float> planes;
  explicit Maps(int h_, int w_) : h(h_), w(w_), planes(4 * static_cast<size_t>(h_) * w_, 7.f) {}
  MutableImageView view(int k) {
    return {reinterpret_cast<uint8_t*>(planes.data() + static_cast<size_t>(k) * h * w),
            h,
            w,
            1,
            static_cast<ptrdiff_t>(w * sizeof(float)),
            DType::kF32};
  }
  DbTargetViews views() { return {view(0), view(1), view(2), view(3)}; }
  float at(int k, int y, int x) const { return planes[(static_cast<size_t>(k) * h + y) * w + x]; }
  double sum(int k) const {
    double s = 0;
    for (size_t i = 0; i < static_cast<size_t>(h) * w; ++i)
      s += planes[k * static_cast<size_t>(h) * w + i];
    return s;
  }
};
enum { kThreshold = 0, kThresholdMask = 1, kShrink = 2, kShrinkMask = 3 };

struct DbRun {
  Status status;
  std::vector<unsigned char> ignore;
};

DbRun run(Maps& m, const std::vector<double>& xy, const std::vector<uint32_t>& ends,
          const std::vector<unsigned char>& labels, const DbTargetOptions& o = {}) {
  DbScratch scratch;
  DbRun r;
  r.ignore.assign(labels.size(), 9);
  r.status = make_db_targets(m.views(), PolygonsView{xy, ends}, labels, o, scratch, r.ignore);
  return r;
}

const std::vector<double> kSquare = {100, 100, 300, 100, 300, 300, 100, 300};

TEST(DbTargetsTest, ASquareHasItsBandShrunkCoreAndFullMask) {
  Maps m(400, 400);
  const DbRun r = run(m, kSquare, {4}, {1});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.ignore[0], 0);
  // Band width = area (1 - 0.4^2) / perimeter = 40000 * 0.84 / 800 = 42 px.
  EXPECT_FLOAT_EQ(m.at(kThreshold, 200, 100), 0.7f);  // on the edge: distance 0
  EXPECT_FLOAT_EQ(m.at(kThreshold, 200, 200), 0.3f);  // 100 px inside: beyond the band
  EXPECT_FLOAT_EQ(m.at(kThreshold, 200, 121),
                  0.3f + 0.4f * (1.0f - static_cast<float>(21.0 / 42.0)));
  EXPECT_EQ(m.at(kThresholdMask, 200, 60), 1.f);  // 40 px outside, inside the grown polygon
  EXPECT_EQ(m.at(kThresholdMask, 200, 50), 0.f);
  EXPECT_EQ(m.at(kShrink, 200, 200), 1.f);
  EXPECT_EQ(m.at(kShrink, 200, 130), 0.f);  // shrunk by 42 px
  EXPECT_EQ(m.at(kShrink, 200, 150), 1.f);
  EXPECT_EQ(m.sum(kShrinkMask), 400.0 * 400.0);
}

TEST(DbTargetsTest, ABowTieHasNoAreaAndIsIgnored) {
  Maps m(300, 400);
  const DbRun r = run(m, {100, 100, 300, 160, 300, 100, 100, 160}, {4}, {1});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.ignore[0], 1);
  EXPECT_EQ(m.sum(kThresholdMask), 0.0);  // GEOS area 0: no band
  EXPECT_EQ(m.sum(kShrink), 0.0);
  EXPECT_EQ(m.at(kShrinkMask, 110, 120), 0.f);
  EXPECT_EQ(m.at(kShrinkMask, 10, 10), 1.f);
}

TEST(DbTargetsTest, TextBelowMinTextSizeIsIgnoredAndMaskedOut) {
  Maps m(100, 200);
  const DbRun r =
      run(m, {10, 10, 150, 10, 150, 17, 10, 17, 10, 40, 150, 40, 150, 48, 10, 48}, {4, 8}, {1, 1});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.ignore[0], 1);  // 7 px high
  EXPECT_EQ(r.ignore[1], 0);  // 8 px high
  EXPECT_EQ(m.at(kShrinkMask, 12, 50), 0.f);
  EXPECT_EQ(m.at(kShrinkMask, 44, 50), 1.f);
}

TEST(DbTargetsTest, PaddingByTheLastPointChangesNeitherShrinkNorMasks) {
  Maps a(400, 400), b(400, 400);
  std::vector<double> padded = kSquare;
  for (int i = 0; i < 4; ++i) padded.insert(padded.end(), {100, 300});
  ASSERT_TRUE(run(a, kSquare, {4}, {1}).status.ok());
  ASSERT_TRUE(run(b, padded, {8}, {1}).status.ok());
  for (int k : {kThresholdMask, kShrink, kShrinkMask}) EXPECT_EQ(a.sum(k), b.sum(k)) << k;
}

TEST(DbTargetsTest, NonFiniteHugeOrMalformedPolygonsAreRefusedNamingThePolygon) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf, 2e6}) {
    std::vector<double> xy = kSquare;
    xy.insert(xy.end(), {10, 10, 20, 10, bad, 20});
    Maps m(64, 64);
    const DbRun r = run(m, xy, {4, 7}, {1, 0});
    EXPECT_EQ(r.status.code(), Code::kInvalidArgument);
    EXPECT_NE(r.status.message().find("polygon 1: coordinate"), std::string::npos)
        << r.status.message();
  }
  Maps m(64, 64);
  EXPECT_NE(run(m, {1, 1, 5, 5}, {2}, {1}).status.message().find("polygon 0 has 2 points"),
            std::string::npos);
  const std::vector<double> many(2 * (kMaxDbPolygonPoints + 1), 3.0);
  EXPECT_EQ(run(m, many, {static_cast<uint32_t>(kMaxDbPolygonPoints + 1)}, {1}).status.code(),
            Code::kInvalidArgument);
  EXPECT_EQ(run(m, kSquare, {4}, {1, 1}).status.code(), Code::kInvalidArgument);     // labels
  EXPECT_EQ(run(m, kSquare, {4, 3}, {1, 1}).status.code(), Code::kInvalidArgument);  // ends
  // 3 points, the last repeating the first: shapely closes the ring again, so it is a valid
  // (zero-area) polygon, ignored.
  const DbRun three = run(m, {1, 1, 30, 1, 1, 1}, {3}, {1});
  ASSERT_TRUE(three.status.ok()) << three.status.to_string();
  EXPECT_EQ(three.ignore[0], 1);
}

TEST(DbTargetsTest, BadOptionsAndViewsAreRefused) {
  Maps m(32, 32);
  DbTargetOptions o;
  o.shrink_ratio = 1.0;
  EXPECT_EQ(run(m, kSquare, {4}, {1}, o).status.code(), Code::kInvalidArgument);
  o = {};
  o.thresh_min = 0.9;
  EXPECT_EQ(run(m, kSquare, {4}, {1}, o).status.code(), Code::kInvalidArgument);
  DbScratch scratch;
  std::vector<unsigned char> ignore(1);
  DbTargetViews v = m.views();
  v.shrink_map.width = 31;
  const std::vector<unsigned char> labels = {1};
  EXPECT_EQ(make_db_targets(v, PolygonsView::quads(kSquare), labels, {}, scratch, ignore).code(),
            Code::kInvalidArgument);
}

TEST(DbTargetsTest, DegenerateAndFarAwayGeometryNeverCrashes) {
  const std::vector<std::vector<double>> shapes = {
      {0.1, 0.1, 0.9, 0.1, 0.9, 0.9, 0.1, 0.9},                         // truncates to one point
      {5, 5, 5, 5, 5, 5, 5, 5},                                         // one point
      {10, 10, 50, 10, 90, 10, 30, 10},                                 // a segment
      {9e5, 9e5, 9.5e5, 9e5, 9.5e5, 9.5e5, 9e5, 9.5e5},                 // far outside
      {-9e5, -9e5, 9e5, -9e5, 9e5, 9e5, -9e5, 9e5},                     // around the canvas
      {10, 10, 60, 60, 60, 10, 10, 60, 35, 0, 35, 70, 0, 35, 70, 35}};  // self-crossing star
  for (const std::vector<double>& xy : shapes) {
    Maps m(64, 64);
    const DbRun r = run(m, xy, {static_cast<uint32_t>(xy.size() / 2)}, {1});
    if (!r.status.ok()) {
      EXPECT_NE(r.status.message().find("border offset is empty"), std::string::npos)
          << r.status.message();
    }
    for (float v : m.planes) EXPECT_TRUE(std::isfinite(v));
  }
}

TEST(DbTargetsTest, TheEpochRatioFollowsPaddleOcr) {
  EXPECT_EQ(db_shrink_ratio(0.4, 50, 100), 0.4 + 0.2 * 50 / 100.0);
  EXPECT_EQ(db_shrink_ratio(0.4, 0, 100), 0.4);
}

TEST(DbTargetBuilderTest, DeclaresFourMapsAndWritesThem) {
  const auto any = make_target_builder(profile_defaults(Profile::kDb));
  EXPECT_NE(dynamic_cast<const DbTargetBuilder*>(any.get()), nullptr);
  DbTargetBuilder builder(DbTargetOptions{});
  const std::vector<TargetTensor> t = builder.tensors(400);
  ASSERT_EQ(t.size(), 4u);
  const char* names[] = {"threshold_map", "threshold_mask", "shrink_map", "shrink_mask"};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(t[k].name, names[k]);
    EXPECT_EQ(t[k].side, 400);
    EXPECT_EQ(t[k].channels, 1);
  }
  Maps m(400, 400);
  const std::vector<MutableImageView> views = {m.view(0), m.view(1), m.view(2), m.view(3)};
  const std::vector<unsigned char> labels = {1};
  ASSERT_TRUE(builder.build(views, PolygonsView::quads(kSquare), labels, 400).ok());
  const double core_04 = m.sum(kShrink);
  builder.set_shrink_ratio(0.6);  // a larger ratio shrinks less
  ASSERT_TRUE(builder.build(views, PolygonsView::quads(kSquare), labels, 400).ok());
  EXPECT_GT(m.sum(kShrink), core_04);
  EXPECT_EQ(builder.ignore_tags().size(), 1u);
  EXPECT_EQ(
      builder.build(std::span(views).first(3), PolygonsView::quads(kSquare), labels, 400).code(),
      Code::kInvalidArgument);
  EXPECT_EQ(builder.build(views, PolygonsView::quads(kSquare), labels, 300).code(),
            Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
