// Per-quad EAST geometry of docs/targets.md §3.1-3.2: the shrunk polygon and the minimum-rectangle
// angle. Double precision, with the reference's operation order. Pure functions: thread-safe,
// no allocation.
#pragma once

#include <array>

#include "augment/profile.h"

namespace textfeed::augment {

using Quad8 = std::array<double, 8>;  // x1,y1,...,x4,y4

// docs/targets.md §3.1: moves each vertex along its edges by coef * (its shorter adjacent edge),
// the longer opposite-edge pair first; edges of length <= 1 px are left alone (points, segments).
Quad8 shrink_quad(const Quad8& v, double coef = 0.3);

// The angle t_k = (k/180)*pi, k in -90..89, whose rotation about vertex 0 makes the quad most
// nearly an axis-aligned rectangle (10 smallest bounding areas, then the smallest corner error by
// `metric`; ties in area keep ascending k, SR's stable order). Returns k in degrees, -90..89.
int min_rect_angle_deg(const Quad8& v, AngleError metric);
// (k/180)*pi, bit-exact with the reference's constant.
inline double angle_rad(int k) { return static_cast<double>(k) / 180.0 * 3.14159265358979323846; }

// Rotates the quad by t about vertex 0: p' = p0 + R(t)(p - p0), R = [[c, -s], [s, c]].
Quad8 rotate_quad(const Quad8& v, double theta);

// Reorders a quad clockwise on screen (y down; shoelace sign), starting from the vertex with the
// smallest x + y (the first one on ties). Zero-area quads keep their direction.
Quad8 order_clockwise(const Quad8& v);

}  // namespace textfeed::augment
