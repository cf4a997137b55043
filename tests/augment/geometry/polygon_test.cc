// Polygon helpers: hull, area and rectangle clipping against hand-computed values.
#include "augment/geometry/polygon.h"

#include <gtest/gtest.h>

namespace textfeed::augment {
namespace {

TEST(PolygonTest, HullOfBowTieIsItsBoundingQuad) {
  // A self-intersecting quad: corners listed in bow-tie order.
  Quad q{{0, 0, 10, 10, 10, 0, 0, 10}};
  EXPECT_DOUBLE_EQ(quad_hull_area(q), 100.0);
}

TEST(PolygonTest, DegenerateQuadsHaveZeroArea) {
  EXPECT_EQ(quad_hull_area(Quad{{5, 5, 5, 5, 5, 5, 5, 5}}), 0.0);
  EXPECT_EQ(quad_hull_area(Quad{{0, 0, 10, 0, 20, 0, 30, 0}}), 0.0);
}

TEST(PolygonTest, ClippedAreaOfARectangle) {
  Quad q{{10, 10, 110, 10, 110, 30, 10, 30}};
  auto pts = quad_points(q);
  auto hull = convex_hull(pts);
  EXPECT_DOUBLE_EQ(clipped_area(hull, 0, 0, 1000, 1000), 2000.0);   // inside
  EXPECT_DOUBLE_EQ(clipped_area(hull, 60, 0, 1000, 1000), 1000.0);  // half
  EXPECT_DOUBLE_EQ(clipped_area(hull, 200, 0, 1000, 1000), 0.0);    // outside
}

TEST(PolygonTest, ClippedAreaOfARotatedSquare) {
  // Diamond with vertices on the axes, area 200; the box x>=0 keeps half.
  std::vector<Point> d = {{10, 0}, {0, 10}, {-10, 0}, {0, -10}};
  auto hull = convex_hull(d);
  EXPECT_DOUBLE_EQ(polygon_area(hull), 200.0);
  EXPECT_DOUBLE_EQ(clipped_area(hull, 0, -100, 100, 100), 100.0);
  EXPECT_DOUBLE_EQ(clipped_area(hull, 0, 0, 100, 100), 50.0);
}

}  // namespace
}  // namespace textfeed::augment
