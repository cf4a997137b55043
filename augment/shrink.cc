// Shrink, rotation and angle search, in the reference's operation order (TARGETS.md §3.1-3.2).
#include "augment/shrink.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace textfeed::augment {
namespace {

double dist(double x1, double y1, double x2, double y2) { return std::sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2)); }

void move_points(Quad8& v, int i1, int i2, const double r[4], double coef) {
  i1 %= 4;
  i2 %= 4;
  const double lx = v[2 * i1] - v[2 * i2], ly = v[2 * i1 + 1] - v[2 * i2 + 1];
  const double length = dist(v[2 * i1], v[2 * i1 + 1], v[2 * i2], v[2 * i2 + 1]);
  if (length > 1) {
    double ratio = (r[i1] * coef) / length;
    v[2 * i1] += ratio * (-lx);
    v[2 * i1 + 1] += ratio * (-ly);
    ratio = (r[i2] * coef) / length;
    v[2 * i2] += ratio * lx;
    v[2 * i2 + 1] += ratio * ly;
  }
}

struct Bounds {
  double xmin, xmax, ymin, ymax;
};
Bounds bounds(const Quad8& v) {
  Bounds b{v[0], v[0], v[1], v[1]};
  for (int i = 1; i < 4; ++i) {
    b.xmin = std::min(b.xmin, v[2 * i]);
    b.xmax = std::max(b.xmax, v[2 * i]);
    b.ymin = std::min(b.ymin, v[2 * i + 1]);
    b.ymax = std::max(b.ymax, v[2 * i + 1]);
  }
  return b;
}

double corner_error(const Quad8& r, AngleError metric) {
  const Bounds b = bounds(r);
  if (metric == AngleError::kSr) {
    return dist(r[0], r[1], b.xmin, b.ymin) + dist(r[2], r[3], b.xmax, b.ymin) + dist(r[4], r[5], b.xmax, b.ymax) +
           dist(r[6], r[7], b.xmin, b.ymax);
  }
  // Column-wise norms against float32 corners.
  const double cx[4] = {static_cast<float>(b.xmin), static_cast<float>(b.xmax), static_cast<float>(b.xmax),
                        static_cast<float>(b.xmin)};
  const double cy[4] = {static_cast<float>(b.ymin), static_cast<float>(b.ymin), static_cast<float>(b.ymax),
                        static_cast<float>(b.ymax)};
  double sx = 0, sy = 0;
  for (int i = 0; i < 4; ++i) {
    sx += (r[2 * i] - cx[i]) * (r[2 * i] - cx[i]);
    sy += (r[2 * i + 1] - cy[i]) * (r[2 * i + 1] - cy[i]);
  }
  return std::sqrt(sx) + std::sqrt(sy);
}

}  // namespace

Quad8 shrink_quad(const Quad8& v, double coef) {
  const double e0 = dist(v[0], v[1], v[2], v[3]), e1 = dist(v[2], v[3], v[4], v[5]);
  const double e2 = dist(v[4], v[5], v[6], v[7]), e3 = dist(v[6], v[7], v[0], v[1]);
  const double r[4] = {std::min(e0, e3), std::min(e0, e1), std::min(e1, e2), std::min(e3, e2)};
  const int offset = (e0 + e2 > e1 + e3) ? 0 : 1;
  Quad8 out = v;
  move_points(out, 0 + offset, 1 + offset, r, coef);
  move_points(out, 2 + offset, 3 + offset, r, coef);
  move_points(out, 1 + offset, 2 + offset, r, coef);
  move_points(out, 3 + offset, 4 + offset, r, coef);
  return out;
}

Quad8 rotate_quad(const Quad8& v, double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  Quad8 out;
  for (int i = 0; i < 4; ++i) {
    const double dx = v[2 * i] - v[0], dy = v[2 * i + 1] - v[1];
    out[2 * i] = (c * dx + (-s) * dy) + v[0];
    out[2 * i + 1] = (s * dx + c * dy) + v[1];
  }
  return out;
}

int min_rect_angle_deg(const Quad8& v, AngleError metric) {
  constexpr int kAngles = 180, kRank = 10;
  double area[kAngles];
  for (int k = 0; k < kAngles; ++k) {
    const Bounds b = bounds(rotate_quad(v, angle_rad(k - 90)));
    area[k] = (b.xmax - b.xmin) * (b.ymax - b.ymin);
  }
  int order[kAngles];
  std::iota(order, order + kAngles, 0);
  std::stable_sort(order, order + kAngles, [&](int a, int b) { return area[a] < area[b]; });
  double best_error = std::numeric_limits<double>::infinity();
  int best = order[0];
  for (int r = 0; r < kRank; ++r) {
    const double err = corner_error(rotate_quad(v, angle_rad(order[r] - 90)), metric);
    if (err < best_error) {
      best_error = err;
      best = order[r];
    }
  }
  return best - 90;
}

Quad8 order_clockwise(const Quad8& v) {
  double s = 0;
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) % 4;
    s += v[2 * i] * v[2 * j + 1] - v[2 * j] * v[2 * i + 1];
  }
  Quad8 cw = v;
  if (s < 0) {  // counter-clockwise on screen: reverse to 0,3,2,1
    for (int i = 0; i < 4; ++i) {
      const int src = (4 - i) % 4;
      cw[2 * i] = v[2 * src];
      cw[2 * i + 1] = v[2 * src + 1];
    }
  }
  int first = 0;
  for (int i = 1; i < 4; ++i)
    if (cw[2 * i] + cw[2 * i + 1] < cw[2 * first] + cw[2 * first + 1]) first = i;
  Quad8 out;
  for (int i = 0; i < 4; ++i) {
    out[2 * i] = cw[2 * ((first + i) % 4)];
    out[2 * i + 1] = cw[2 * ((first + i) % 4) + 1];
  }
  return out;
}

}  // namespace textfeed::augment
