// The invalid_polygon policy: each defect found, and what keep, ignore and repair make of it.
#include "augment/geometry/polygon_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

namespace textfeed::augment {
namespace {

constexpr int kW = 100, kH = 80;

PolygonSet words(std::initializer_list<std::vector<double>> polys,
                 std::vector<unsigned char> labels = {}) {
  PolygonSet s;
  for (const auto& p : polys) {
    s.xy.insert(s.xy.end(), p.begin(), p.end());
    s.ends.push_back(static_cast<uint32_t>(s.xy.size() / 2));
    if (labels.size() < s.ends.size()) labels.push_back(1);
  }
  s.labels = labels;
  return s;
}

const std::vector<double> kSquare = {10, 10, 40, 10, 40, 30, 10, 30};
const std::vector<double> kBowTie = {10, 10, 40, 30, 40, 10, 10, 30};  // edges 0 and 2 cross
const std::vector<double> kLine = {10, 10, 20, 20, 30, 30, 40, 40};
const std::vector<double> kOutside = {200, 10, 240, 10, 240, 30, 200, 30};
const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(PolygonPolicyTest, InspectNamesEachDefect) {
  PolygonPolicy p(InvalidPolygon::kKeep);
  EXPECT_EQ(p.inspect(kSquare, kW, kH), PolygonDefect::kNone);
  EXPECT_EQ(p.inspect(kBowTie, kW, kH), PolygonDefect::kSelfIntersecting);
  EXPECT_EQ(p.inspect(kLine, kW, kH), PolygonDefect::kDegenerate);
  EXPECT_EQ(p.inspect(std::vector<double>{5, 5, 5, 5, 9, 9, 9, 9}, kW, kH),
            PolygonDefect::kDegenerate);
  EXPECT_EQ(p.inspect(kOutside, kW, kH), PolygonDefect::kOutOfImage);
  EXPECT_EQ(p.inspect(std::vector<double>{10, 10, kNaN, 10, 40, 30}, kW, kH),
            PolygonDefect::kNonFinite);
  EXPECT_EQ(p.inspect(std::vector<double>{10, 10, 1e300, 10, 40, 30}, kW, kH),
            PolygonDefect::kNonFinite);
  // Partly outside is not a defect (the reference clips it); nor is a padded last point.
  EXPECT_EQ(p.inspect(std::vector<double>{-10, 10, 40, 10, 40, 30, -10, 30}, kW, kH),
            PolygonDefect::kNone);
  EXPECT_EQ(p.inspect(std::vector<double>{10, 10, 40, 10, 40, 30, 10, 30, 10, 30, 10, 30}, kW, kH),
            PolygonDefect::kNone);
}

TEST(PolygonPolicyTest, KeepChangesNothingButDropsNonFinite) {
  PolygonPolicy p(InvalidPolygon::kKeep);
  PolygonSet s = words({kSquare, kBowTie, {1, 1, kNaN, 2, 3, 3}, kLine});
  PolygonCounts c;
  ASSERT_TRUE(p.apply(s, kW, kH, c).ok());
  ASSERT_EQ(s.ends.size(), 3u);
  EXPECT_EQ(s.labels, (std::vector<unsigned char>{1, 1, 1}));
  EXPECT_EQ(std::vector<double>(s.xy.begin() + 8, s.xy.begin() + 16), kBowTie);
  EXPECT_EQ(c.self_intersecting, 1u);
  EXPECT_EQ(c.non_finite, 1u);
  EXPECT_EQ(c.degenerate, 1u);
  EXPECT_EQ(c.invalid(), 3u);
  EXPECT_EQ(c.ignored, 1u);
  EXPECT_EQ(c.repaired, 0u);
}

TEST(PolygonPolicyTest, IgnoreMasksEveryDefectiveWord) {
  PolygonPolicy p(InvalidPolygon::kIgnore);
  PolygonSet s = words({kSquare, kBowTie, kLine, kOutside}, {1, 1, 1, 0});
  PolygonCounts c;
  ASSERT_TRUE(p.apply(s, kW, kH, c).ok());
  EXPECT_EQ(s.labels, (std::vector<unsigned char>{1, 0, 0, 0}));
  EXPECT_EQ(s.xy.size(), 32u);  // kept, as ignored words
  EXPECT_EQ(c.ignored, 2u);     // the out-of-image word was ignored already
  EXPECT_EQ(c.invalid(), 3u);
}

TEST(PolygonPolicyTest, RepairKeepsTheLargestPieceOfABowTie) {
  PolygonPolicy p(InvalidPolygon::kRepair);
  // A bow-tie with a large left lobe and a small right one.
  PolygonSet s = words({kSquare, {0, 0, 60, 40, 60, 30, 0, 70}});
  PolygonCounts c;
  ASSERT_TRUE(p.apply(s, kW, kH, c).ok());
  ASSERT_EQ(s.ends.size(), 2u);
  EXPECT_EQ(c.repaired, 1u);
  EXPECT_EQ(s.labels[1], 1);
  const std::span<const double> ring(s.xy.data() + 8, 2 * (s.ends[1] - s.ends[0]));
  EXPECT_EQ(p.inspect(ring, kW, kH), PolygonDefect::kNone);
  double minx = 1e9, maxx = -1e9;
  for (size_t i = 0; i < ring.size(); i += 2)
    minx = std::min(minx, ring[i]), maxx = std::max(maxx, ring[i]);
  EXPECT_EQ(minx, 0);  // the left lobe: it reaches x = 0 and stops at the crossing
  EXPECT_LT(maxx, 60);
  // Degenerate words cannot be repaired: they become ignored.
  PolygonSet d = words({kLine});
  ASSERT_TRUE(p.apply(d, kW, kH, c).ok());
  EXPECT_EQ(d.labels, (std::vector<unsigned char>{0}));
}

TEST(PolygonPolicyTest, MismatchedInputIsAnError) {
  PolygonPolicy p(InvalidPolygon::kKeep);
  PolygonSet s = words({kSquare});
  s.labels.push_back(1);
  PolygonCounts c;
  EXPECT_EQ(p.apply(s, kW, kH, c).code(), Code::kInvalidArgument);
  PolygonSet t = words({kSquare});
  t.ends[0] = 9;
  EXPECT_EQ(p.apply(t, kW, kH, c).code(), Code::kInvalidArgument);
}

TEST(PolygonPolicyTest, HostileRingsNeverCrash) {
  PolygonPolicy p(InvalidPolygon::kRepair);
  // Rings whose make-valid would take GEOS seconds to minutes: a hundred and a thousand points
  // zig-zagging across each other, and one past the point bound.
  auto zigzag = [](int n) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back((i * 7919) % 97), v.push_back((i * 104729) % 89);
    return v;
  };
  PolygonSet s = words({zigzag(100), zigzag(1000), zigzag(2000), {1, 1}, {3, 3, 3, 3, 3, 3}});
  PolygonCounts c;
  ASSERT_TRUE(p.apply(s, kW, kH, c).ok());
  EXPECT_EQ(c.invalid(), 5u);
  EXPECT_EQ(c.repaired, 0u);
  EXPECT_EQ(s.labels, (std::vector<unsigned char>{0, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace textfeed::augment
