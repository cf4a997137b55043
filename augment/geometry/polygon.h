// Small exact polygon geometry in double precision: convex hull, area, and the area of a convex
// polygon's intersection with an axis-aligned rectangle. Used by the crop search (docs/targets.md
// §2.1 step 3, shapely semantics) and by the UFO reader's filter_vertices (hull area < 1 dropped).
#pragma once

#include <array>
#include <span>
#include <vector>

#include "base/quad.h"

namespace textfeed::augment {

struct Point {
  double x = 0;
  double y = 0;
};

// Convex hull of `pts` (Andrew's monotone chain), counter-clockwise in y-up terms, without
// repeated or collinear points. Fewer than 3 points out for degenerate input.
std::vector<Point> convex_hull(std::span<const Point> pts);

// Absolute area of a simple polygon (shoelace).
double polygon_area(std::span<const Point> poly);

// The four corners of a quad as points (double).
std::array<Point, 4> quad_points(const Quad& q);
std::array<Point, 4> quad_points(std::span<const double, 8> xy);

// Area of the convex hull of a quad (shapely Polygon(q).convex_hull.area).
double quad_hull_area(const Quad& q);

// Area of (convex polygon `hull`) ∩ [x0,x1]×[y0,y1] (Sutherland–Hodgman; exact for convex input).
double clipped_area(std::span<const Point> hull, double x0, double y0, double x1, double y1);

}  // namespace textfeed::augment
