// Shrink, rotation and angle search, in the reference's operation order (docs/targets.md §3.1-3.2).
#include "augment/east/shrink.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace textfeed::augment {
namespace {

double dist(double x1, double y1, double x2, double y2) {
  return std::sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
}

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
    return dist(r[0], r[1], b.xmin, b.ymin) + dist(r[2], r[3], b.xmax, b.ymin) +
           dist(r[4], r[5], b.xmax, b.ymax) + dist(r[6], r[7], b.xmin, b.ymax);
  }
  // Column-wise norms against float32 corners.
  const double cx[4] = {static_cast<float>(b.xmin), static_cast<float>(b.xmax),
                        static_cast<float>(b.xmax), static_cast<float>(b.xmin)};
  const double cy[4] = {static_cast<float>(b.ymin), static_cast<float>(b.ymin),
                        static_cast<float>(b.ymax), static_cast<float>(b.ymax)};
  double sx = 0, sy = 0;
  for (int i = 0; i < 4; ++i) {
    sx += (r[2 * i] - cx[i]) * (r[2 * i] - cx[i]);
    sy += (r[2 * i + 1] - cy[i]) * (r[2 * i + 1] - cy[i]);
  }
  return std::sqrt(sx) + std::sqrt(sy);
}

// p' = p0 + R(p - p0) with R = [[c, -s], [s, c]], in the reference's operation order.
Quad8 rotate_cs(const Quad8& v, double c, double s) {
  Quad8 out;
  for (int i = 0; i < 4; ++i) {
    const double dx = v[2 * i] - v[0], dy = v[2 * i + 1] - v[1];
    out[2 * i] = (c * dx + (-s) * dy) + v[0];
    out[2 * i + 1] = (s * dx + c * dy) + v[1];
  }
  return out;
}

// cos and sin of t_k for k = -90..89, computed once; the same values as calling std::cos/sin on
// angle_rad(k) each time (pure functions of the same double).
struct TrigTable {
  double c[180], s[180];
  TrigTable() {
    for (int k = 0; k < 180; ++k) {
      c[k] = std::cos(angle_rad(k - 90));
      s[k] = std::sin(angle_rad(k - 90));
    }
  }
};

// Immutable after its first use, which C++ makes thread-safe.
const TrigTable& trig() {
  static const TrigTable table;
  return table;
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
  return rotate_cs(v, std::cos(theta), std::sin(theta));
}

int min_rect_angle_deg(const Quad8& v, AngleError metric) {
  constexpr int kAngles = 180, kRank = 10;
  const TrigTable& t = trig();
  double dx[4], dy[4];
  for (int i = 0; i < 4; ++i) dx[i] = v[2 * i] - v[0], dy[i] = v[2 * i + 1] - v[1];
  // The kRank smallest areas in stable ascending order (equal areas keep ascending k): insertion
  // behind every element that is not larger, so this equals a stable sort's first kRank entries.
  int top[kRank];
  double top_area[kRank];
  int count = 0;
  for (int k = 0; k < kAngles; ++k) {
    const double c = t.c[k], s = t.s[k];
    double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
    for (int i = 0; i < 4; ++i) {
      const double x = (c * dx[i] + (-s) * dy[i]) + v[0];
      const double y = (s * dx[i] + c * dy[i]) + v[1];
      if (i == 0 || x < xmin) xmin = x;
      if (i == 0 || x > xmax) xmax = x;
      if (i == 0 || y < ymin) ymin = y;
      if (i == 0 || y > ymax) ymax = y;
    }
    const double area = (xmax - xmin) * (ymax - ymin);
    if (count == kRank && !(area < top_area[kRank - 1])) continue;
    int pos = count < kRank ? count++ : kRank - 1;
    while (pos > 0 && area < top_area[pos - 1]) {
      top[pos] = top[pos - 1];
      top_area[pos] = top_area[pos - 1];
      --pos;
    }
    top[pos] = k;
    top_area[pos] = area;
  }
  double best_error = std::numeric_limits<double>::infinity();
  int best = top[0];
  for (int r = 0; r < count; ++r) {
    const double err = corner_error(rotate_cs(v, t.c[top[r]], t.s[top[r]]), metric);
    if (err < best_error) {
      best_error = err;
      best = top[r];
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
