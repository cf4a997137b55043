// Convex hull, area and rectangle clipping.
#include "augment/geometry/polygon.h"

#include <algorithm>
#include <cmath>

namespace textfeed::augment {
namespace {

double cross(const Point& o, const Point& a, const Point& b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// Keeps the part of `in` on the side of an axis-aligned line where keep(p) holds.
template <class Keep, class Cut>
void clip_half_plane(const std::vector<Point>& in, std::vector<Point>& out, Keep keep, Cut cut) {
  out.clear();
  const size_t n = in.size();
  for (size_t i = 0; i < n; ++i) {
    const Point& a = in[i];
    const Point& b = in[(i + 1) % n];
    const bool ka = keep(a), kb = keep(b);
    if (ka) out.push_back(a);
    if (ka != kb) out.push_back(cut(a, b));
  }
}

}  // namespace

std::vector<Point> convex_hull(std::span<const Point> pts) {
  std::vector<Point> p(pts.begin(), pts.end());
  std::sort(p.begin(), p.end(),
            [](const Point& a, const Point& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  p.erase(std::unique(p.begin(), p.end(),
                      [](const Point& a, const Point& b) { return a.x == b.x && a.y == b.y; }),
          p.end());
  if (p.size() < 3) return p;
  std::vector<Point> h(2 * p.size());
  size_t k = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  for (size_t i = p.size() - 1, t = k + 1; i > 0; --i) {
    while (k >= t && cross(h[k - 2], h[k - 1], p[i - 1]) <= 0) --k;
    h[k++] = p[i - 1];
  }
  h.resize(k - 1);
  return h;
}

double polygon_area(std::span<const Point> poly) {
  const size_t n = poly.size();
  if (n < 3) return 0.0;
  double s = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const Point& a = poly[i];
    const Point& b = poly[(i + 1) % n];
    s += a.x * b.y - b.x * a.y;
  }
  return std::abs(s) * 0.5;
}

std::array<Point, 4> quad_points(const Quad& q) {
  return {{{q.xy[0], q.xy[1]}, {q.xy[2], q.xy[3]}, {q.xy[4], q.xy[5]}, {q.xy[6], q.xy[7]}}};
}

std::array<Point, 4> quad_points(std::span<const double, 8> xy) {
  return {{{xy[0], xy[1]}, {xy[2], xy[3]}, {xy[4], xy[5]}, {xy[6], xy[7]}}};
}

double quad_hull_area(const Quad& q) {
  const auto pts = quad_points(q);
  return polygon_area(convex_hull(pts));
}

double clipped_area(std::span<const Point> hull, double x0, double y0, double x1, double y1) {
  std::vector<Point> a(hull.begin(), hull.end()), b;
  a.reserve(16);
  b.reserve(16);
  auto at_x = [](double x) {
    return [x](const Point& p, const Point& q) {
      return Point{x, p.y + (q.y - p.y) * (x - p.x) / (q.x - p.x)};
    };
  };
  auto at_y = [](double y) {
    return [y](const Point& p, const Point& q) {
      return Point{p.x + (q.x - p.x) * (y - p.y) / (q.y - p.y), y};
    };
  };
  clip_half_plane(
      a, b, [x0](const Point& p) { return p.x >= x0; }, at_x(x0));
  clip_half_plane(
      b, a, [x1](const Point& p) { return p.x <= x1; }, at_x(x1));
  clip_half_plane(
      a, b, [y0](const Point& p) { return p.y >= y0; }, at_y(y0));
  clip_half_plane(
      b, a, [y1](const Point& p) { return p.y <= y1; }, at_y(y1));
  return polygon_area(a);
}

}  // namespace textfeed::augment
