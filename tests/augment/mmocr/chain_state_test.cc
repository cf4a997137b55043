// ChainState and the steps several mmocr chains share (augment/mmocr/chain_state.h): what
// load_chain_input refuses, crop_polygon on the polygons readers let through, resize_to, keep_only
// and random_flip. The expected rings are what mmocr's crop_polygon returns for the same inputs
// under shapely 1.8.5 on GEOS 3.11.1 (the goldens' versions), and the numpy draws are numpy
// 1.24's legacy generator.
#include "augment/mmocr/chain_state.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace textfeed::augment::mmocr {
namespace {

// Inputs owned by the test, viewed by a ChainInput.
struct Input {
  int h = 100, w = 200;
  std::vector<float> xy;
  std::vector<uint32_t> points;
  std::vector<unsigned char> ignored;

  Input& add(const std::vector<float>& polygon, unsigned char ignore = 0) {
    xy.insert(xy.end(), polygon.begin(), polygon.end());
    points.push_back(static_cast<uint32_t>(polygon.size() / 2));
    ignored.push_back(ignore);
    return *this;
  }
  ChainInput view() const { return {h, w, xy, points, ignored}; }
};

std::vector<float> quad(float x0, float y0, float x1, float y1) {
  return {x0, y0, x1, y0, x1, y1, x0, y1};
}

// The polygon of `values` as float32 values held in doubles (what crop_polygon returns).
std::vector<double> f32s(const std::vector<float>& values) {
  return std::vector<double>(values.begin(), values.end());
}

Code load_code(const Input& input) { return load_chain_input(input.view()).status().code(); }

std::vector<double> crop(const std::vector<double>& xy, double x0, double y0, double x1,
                         double y1) {
  const double box[4] = {x0, y0, x1, y1};
  auto out = crop_polygon(xy, box);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? *out : std::vector<double>{-1};
}

ChainState state_of(const Input& input) {
  auto state = load_chain_input(input.view());
  EXPECT_TRUE(state.ok()) << state.status().to_string();
  return state.ok() ? *state : ChainState{};
}

// ---- load_chain_input ----------------------------------------------------------------------

TEST(LoadChainInputTest, RefusesSizesThatDoNotAgree) {
  Input input;
  input.add(quad(1, 1, 5, 5)).add(quad(2, 2, 6, 6));
  input.ignored.pop_back();
  EXPECT_EQ(load_code(input), Code::kInvalidArgument);
  Input empty_image;
  empty_image.h = 0;
  EXPECT_EQ(load_code(empty_image), Code::kInvalidArgument);
  Input negative_width;
  negative_width.w = -3;
  EXPECT_EQ(load_code(negative_width), Code::kInvalidArgument);
}

TEST(LoadChainInputTest, RefusesAPolygonOfFewerThanThreePoints) {
  Input input;
  input.add(quad(1, 1, 5, 5)).add({1, 1, 4, 4});
  const Status s = load_chain_input(input.view()).status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("polygon 1"), std::string::npos) << s.message();
}

TEST(LoadChainInputTest, RefusesACoordinateThatIsNotFinite) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    Input input;
    input.add(quad(1, 1, 5, 5)).add({1, 1, 4, bad, 4, 8});
    const Status s = load_chain_input(input.view()).status();
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("not finite"), std::string::npos) << s.message();
  }
}

TEST(LoadChainInputTest, RefusesPointsLeftOverOrMissing) {
  Input leftover;
  leftover.add(quad(1, 1, 5, 5));
  leftover.xy.insert(leftover.xy.end(), {7, 7});
  const Status s = load_chain_input(leftover.view()).status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("left over"), std::string::npos) << s.message();
  Input missing;
  missing.add(quad(1, 1, 5, 5));
  missing.points[0] = 5;
  EXPECT_EQ(load_code(missing), Code::kInvalidArgument);
  Input odd;  // half a point at the end
  odd.add(quad(1, 1, 5, 5));
  odd.xy.push_back(3);
  EXPECT_EQ(load_code(odd), Code::kInvalidArgument);
}

TEST(LoadChainInputTest, LoadsFloat32PolygonsWithLabelsInOrder) {
  Input input;
  input.add(quad(1.5f, 2, 5, 6)).add({0.1f, 0.2f, 9, 0.2f, 4, 7}, 7);
  const ChainState s = state_of(input);
  EXPECT_EQ(s.h, 100);
  EXPECT_EQ(s.w, 200);
  ASSERT_EQ(s.polygons.size(), 2u);
  EXPECT_EQ(s.polygons[1].xy, f32s({0.1f, 0.2f, 9, 0.2f, 4, 7}));
  EXPECT_TRUE(s.polygons[0].f32 && s.polygons[1].f32);
  EXPECT_EQ(s.polygons[1].src, 1);
  EXPECT_EQ(s.ignored, (std::vector<unsigned char>{0, 1}));
  EXPECT_EQ(s.labels, (std::vector<int>{0, 1}));
  EXPECT_TRUE(s.dropped.empty());
  EXPECT_TRUE(s.ops.empty());
}

// ---- crop_polygon --------------------------------------------------------------------------

TEST(CropPolygonTest, KeepsAPolygonInsideAsAReversedClosedRing) {
  EXPECT_EQ(crop({10, 10, 40, 10, 40, 30, 10, 30}, 0, 0, 100, 100),
            f32s({10, 30, 10, 10, 40, 10, 40, 30, 10, 30}));
  // Fractional vertices come back as float32 values.
  EXPECT_EQ(crop({10.1, 10.3, 40.7, 10.2, 40.3, 30.9, 10.6, 30.4}, 0, 0, 100, 100),
            f32s({10.6f, 30.4f, 10.1f, 10.3f, 40.7f, 10.2f, 40.3f, 30.9f, 10.6f, 30.4f}));
}

TEST(CropPolygonTest, ClipsAPolygonPartlyOutside) {
  EXPECT_EQ(crop({-20, 50, 50, 50, 50, 120, -20, 120}, 0, 0, 100, 100),
            f32s({50, 50, 50, 100, 0, 100, 0, 50, 50, 50}));
}

TEST(CropPolygonTest, GivesNothingOutsideOnTheEdgeOrInTwoPieces) {
  EXPECT_TRUE(crop({200, 200, 300, 200, 300, 300}, 0, 0, 100, 100).empty());
  // Touching the box along an edge only: zero area.
  EXPECT_TRUE(crop({100, 10, 150, 10, 150, 50, 100, 50}, 0, 0, 100, 100).empty());
  // A U whose base lies below the box: two pieces, not one polygon.
  EXPECT_TRUE(
      crop({10, 10, 20, 10, 20, 110, 80, 110, 80, 10, 90, 10, 90, 120, 10, 120}, 0, 0, 100, 100)
          .empty());
}

TEST(CropPolygonTest, KeepsTheTriangleOfABowTieThatMakeValidKeeps) {
  // buffer(0) of a self-crossing bow tie keeps one of its two triangles.
  EXPECT_EQ(crop({10, 10, 50, 50, 50, 10, 10, 50}, 0, 0, 100, 100),
            f32s({50, 50, 30, 30, 50, 10, 50, 50}));
}

TEST(CropPolygonTest, GivesNothingForAZeroAreaPolygon) {
  EXPECT_TRUE(crop({10, 10, 20, 10, 30, 10, 40, 10}, 0, 0, 100, 100).empty());
  EXPECT_TRUE(crop({50, 50, 50, 50, 50, 50}, 0, 0, 100, 100).empty());
}

TEST(CropPolygonTest, AHoleLeftByMakeValidIsDroppedWithItsExteriorKept) {
  // A ring that runs round a square and back round a smaller one inside it: buffer(0) makes a
  // polygon with a hole. chain_state.h promises the exterior ring; mmocr's crop_polygon raises
  // there (the boundary of a polygon with a hole has no single coordinate sequence).
  EXPECT_EQ(crop({0, 0, 80, 0, 80, 80, 0, 80, 0, 0, 20, 20, 20, 60, 60, 60, 60, 20, 20, 20}, 0, 0,
                 100, 100),
            f32s({0, 80, 0, 0, 80, 0, 80, 80, 0, 80}));
}

// ---- resize_to -----------------------------------------------------------------------------

TEST(ResizeToTest, ScalesClipsAndRecordsTheResize) {
  Input input;  // 100 high, 200 wide
  input.add(quad(10, 10, 50, 30));
  ChainState s = state_of(input);
  ASSERT_TRUE(resize_to(s, 400, 50).ok());
  EXPECT_EQ(s.w, 400);
  EXPECT_EQ(s.h, 50);
  ASSERT_EQ(s.polygons.size(), 1u);
  EXPECT_EQ(s.polygons[0].xy, f32s({20, 15, 20, 5, 100, 5, 100, 15, 20, 15}));
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].kind, PixelOp::Kind::kResize);
  EXPECT_EQ(s.ops[0].out_h, 50);
  EXPECT_EQ(s.ops[0].out_w, 400);
}

TEST(ResizeToTest, RoundsTheFloat64ProductToFloat32AfterTheClip) {
  Input input;
  input.h = 300, input.w = 700;
  input.add({10.1f, 10.3f, 40.7f, 10.2f, 40.3f, 30.9f, 10.6f, 30.4f});
  ChainState s = state_of(input);
  ASSERT_TRUE(resize_to(s, 300, 130).ok());
  EXPECT_EQ(s.polygons[0].xy,
            f32s({4.5428571701049805f, 13.173333168029785f, 4.328571796417236f, 4.463333606719971f,
                  17.44285774230957f, 4.420000076293945f, 17.27142906188965f, 13.389999389648438f,
                  4.5428571701049805f, 13.173333168029785f}));
  EXPECT_TRUE(s.polygons[0].f32);
}

TEST(ResizeToTest, ZeroesAPolygonItCannotClipKeepingItsLength) {
  Input input;
  input.h = input.w = 100;
  input
      .add({10, 10, 20, 10, 20, 110, 80, 110, 80, 10, 90, 10, 90, 120, 10, 120})  // two pieces
      .add(quad(300, 300, 310, 310))                                              // outside
      .add(quad(10, 10, 20, 20));
  ChainState s = state_of(input);
  ASSERT_TRUE(resize_to(s, 100, 100).ok());
  ASSERT_EQ(s.polygons.size(), 3u);
  EXPECT_EQ(s.polygons[0].xy, std::vector<double>(16, 0.0));
  EXPECT_EQ(s.polygons[1].xy, std::vector<double>(8, 0.0));
  EXPECT_EQ(s.polygons[2].xy.size(), 10u);  // clipped: the closing point added
  EXPECT_EQ(s.ignored.size(), 3u);
}

// ---- keep_only -----------------------------------------------------------------------------

ChainState four_polygons() {
  Input input;
  for (int i = 0; i < 4; ++i)
    input.add(quad(10.f * i, 0, 10.f * i + 5, 5), static_cast<unsigned char>(i % 2));
  return state_of(input);
}

std::vector<int> srcs(const ChainState& s) {
  std::vector<int> out;
  for (const ChainPolygon& p : s.polygons) out.push_back(p.src);
  return out;
}

TEST(KeepOnlyTest, KeepingTheFirstPolygonsLeavesThemIntact) {
  // Regression: a polygon kept in its own place was once moved onto itself and emptied.
  ChainState s = four_polygons();
  const std::vector<unsigned char> keep = {1, 1, 0, 0};
  s.keep_only(keep);
  ASSERT_EQ(s.polygons.size(), 2u);
  EXPECT_EQ(s.polygons[0].xy, f32s(quad(0, 0, 5, 5)));
  EXPECT_EQ(s.polygons[1].xy, f32s(quad(10, 0, 15, 5)));
  EXPECT_EQ(s.ignored, (std::vector<unsigned char>{0, 1}));
  EXPECT_EQ(s.labels, (std::vector<int>{0, 1}));
}

TEST(KeepOnlyTest, CompactsFlagsLabelsAndPolygonsTogether) {
  ChainState s = four_polygons();
  const std::vector<unsigned char> keep = {0, 1, 0, 1};
  s.keep_only(keep);
  EXPECT_EQ(srcs(s), (std::vector<int>{1, 3}));
  EXPECT_EQ(s.polygons[1].xy, f32s(quad(30, 0, 35, 5)));
  EXPECT_EQ(s.ignored, (std::vector<unsigned char>{1, 1}));
  EXPECT_EQ(s.labels, (std::vector<int>{1, 3}));

  ChainState all = four_polygons();
  all.keep_only(std::vector<unsigned char>(4, 1));
  EXPECT_EQ(srcs(all), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(all.polygons[3].xy, f32s(quad(30, 0, 35, 5)));

  ChainState none = four_polygons();
  none.keep_only(std::vector<unsigned char>(4, 0));
  EXPECT_TRUE(none.polygons.empty() && none.ignored.empty() && none.labels.empty());
}

// ---- random_flip ---------------------------------------------------------------------------

TEST(RandomFlipTest, FlipsWhenTheDrawIsBelowOneHalfInThePolygonsDtype) {
  Input input;
  input.h = 50, input.w = 101;
  input.add({10.1f, 1, 20, 1, 20, 9});
  ChainState s = state_of(input);
  s.polygons.push_back({{10.1, 1, 20, 1, 20, 9}, false, 1});  // a float64 polygon
  s.ignored.push_back(0);
  s.labels.push_back(1);
  ChainStreams streams(1);  // numpy seed 1: first random_sample 0.417022004702574
  random_flip(s, streams);
  EXPECT_EQ(s.polygons[0].xy[0], static_cast<double>(101.0f - 10.1f));  // float32 arithmetic
  EXPECT_EQ(s.polygons[1].xy[0], 101 - 10.1);
  EXPECT_EQ(s.polygons[0].xy[1], 1.0);  // y stays
  EXPECT_EQ(s.polygons[0].xy[2], 81.0);
  ASSERT_EQ(streams.draws().size(), 1u);
  EXPECT_EQ(streams.draws()[0].step, "RandomFlip");
  EXPECT_EQ(streams.draws()[0].name, "direction");
  EXPECT_EQ(streams.draws()[0].values[0], 0.417022004702574);
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].kind, PixelOp::Kind::kFlip);
  EXPECT_EQ(s.ops[0].code, 0);
  EXPECT_EQ(s.ops[0].out_w, 101);
}

TEST(RandomFlipTest, LeavesEverythingWhenTheDrawIsOneHalfOrMore) {
  Input input;
  input.add(quad(10, 10, 20, 20));
  ChainState s = state_of(input);
  ChainStreams streams(0);  // numpy seed 0: first random_sample 0.5488135039273248
  random_flip(s, streams, "FlipStep");
  EXPECT_EQ(s.polygons[0].xy, f32s(quad(10, 10, 20, 20)));
  EXPECT_TRUE(s.ops.empty());
  ASSERT_EQ(streams.draws().size(), 1u);
  EXPECT_EQ(streams.draws()[0].step, "FlipStep");
  EXPECT_EQ(streams.draws()[0].values[0], 0.5488135039273248);
}

}  // namespace
}  // namespace textfeed::augment::mmocr
