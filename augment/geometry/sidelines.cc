// The centre line of a word polygon and its centre-region quads (sidelines.h), step by step in
// the reference's precision. Every comment that names a dtype says what numpy 1.24 does there:
// an array with a scalar keeps the array's float type (the scalar is rounded to it first); two
// scalars, or a float32 scalar with a Python float, promote to float64.
#include "augment/geometry/sidelines.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <string>
#include <utility>

namespace textfeed::augment {
namespace {

// TextSnakeModuleLoss.eps: guards the divisions by norms and by dx in slopes.
constexpr double kEps = 1e-8;
// A vertex this close to the next one is dropped (TextSnake's first step), px.
constexpr double kRepeatedVertexPx = 1e-5;
// A centre line steeper than this |dy/dx| reads top to bottom, else left to right.
constexpr double kSteepSlope = 0.9;
// _find_head_tail's score weights: angles with the neighbours, angle between the neighbours,
// distance from the vertex mean, position bonus; and the tail's weight in a pair.
constexpr double kThetaSumWeight = 0.5;
constexpr double kAdjacentThetaWeight = 0.15;
constexpr double kDistWeight = 0.35;
constexpr double kPositionWeight = 0.1;
constexpr double kTailScoreWeight = 0.3;
// The Gaussian over the gap between head and tail: centre and sigma on [0, 1].
constexpr double kGapGaussianCentre = 0.5;
constexpr double kGapGaussianSigma = 0.5;
// Each end of the centre line loses (its width / 4) // step points.
constexpr double kEndShrinkWidthDivisor = 4.0;
// The fewest points _resample_line makes.
constexpr int kMinResampledPoints = 3;
// numpy's pairwise summation: unrolled by 8, blocks of at most 128 elements.
constexpr size_t kPairwiseUnroll = 8;
constexpr size_t kPairwiseBlock = 128;
// Bound on the resampled sideline length (points), so that a hostile polygon (zigzags across
// +-1e6 px) cannot ask for gigabytes; the reference has none.
constexpr double kMaxResampledPoints = 1 << 22;

template <class T>
using Pt = CurvePoint<T>;
template <class T>
using Line = std::vector<Pt<T>>;

template <class T>
Pt<T> sub(Pt<T> a, Pt<T> b) {
  return {a.x - b.x, a.y - b.y};
}

// np.linalg.norm of one 2-vector in T: BLAS's dot (two products, one add, no FMA), then sqrt.
// The axis=-1 form (squares summed by add.reduce) gives the same bits.
template <class T>
T norm(Pt<T> v) {
  T s = v.x * v.x;
  s += v.y * v.y;
  return std::sqrt(s);
}

// A T scalar + eps is a float64 scalar; dividing a T array by it rounds it back to T.
template <class T>
T plus_eps(T x) {
  return static_cast<T>(static_cast<double>(x) + kEps);
}

// vector_slope: |v.y / (v.x + eps)|, float64 (scalars with a Python float).
template <class T>
double slope(Pt<T> v) {
  return std::fabs(static_cast<double>(v.y) / (static_cast<double>(v.x) + kEps));
}

// np.mean(points, axis=0): numpy sums a non-contiguous axis row by row, in order, in T, then
// divides by the count (a T division).
template <class T>
Pt<T> mean(std::span<const Pt<T>> p) {
  Pt<T> s;
  for (const Pt<T>& q : p) {
    s.x += q.x;
    s.y += q.y;
  }
  const T n = static_cast<T>(p.size());
  return {s.x / n, s.y / n};
}

// np.sum of a contiguous 1-D array: numpy's pairwise summation. Blocks over 128 elements split in
// halves (a multiple of 8 first); a block keeps eight running sums, combines them as
// ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)) and adds the remainder in order. The sum starts from the
// identity 0, which changes nothing.
template <class T>
T pairwise_sum(const T* a, size_t n) {
  if (n < kPairwiseUnroll) {
    T res = 0;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= kPairwiseBlock) {
    T r[kPairwiseUnroll];
    std::copy(a, a + kPairwiseUnroll, r);
    size_t i = kPairwiseUnroll;
    for (; i < n - n % kPairwiseUnroll; i += kPairwiseUnroll)
      for (size_t j = 0; j < kPairwiseUnroll; ++j) r[j] += a[i + j];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t half = n / 2;
  half -= half % kPairwiseUnroll;
  return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

template <class T>
Line<T> drop_repeated_vertices(std::span<const Pt<T>> p) {
  Line<T> kept;
  for (size_t i = 0; i < p.size(); ++i)
    if (static_cast<double>(norm(sub(p[i], p[(i + 1) % p.size()]))) > kRepeatedVertexPx)
      kept.push_back(p[i]);
  return kept;
}

// vector_angle's unit vectors. Of a single vector: norm + eps is a float64 scalar, rounded to T
// for the division. Of a row of a stacked (k, 2) array: the eps is added in T.
template <class T>
Pt<T> unit_single(Pt<T> v) {
  const T d = plus_eps(norm(v));
  return {v.x / d, v.y / d};
}
template <class T>
Pt<T> unit_stacked(Pt<T> v) {
  const T d = norm(v) + static_cast<T>(kEps);
  return {v.x / d, v.y / d};
}

// arccos of the clipped dot product of two unit vectors, in T.
template <class T>
T angle_between(Pt<T> u, Pt<T> w) {
  T c = u.x * w.x;
  c += u.y * w.y;
  return std::acos(std::clamp(c, static_cast<T>(-1), static_cast<T>(1)));
}

// Each edge's distance from the vertex mean over the largest one (dist_score).
template <class T>
std::vector<T> dist_scores(std::span<const Pt<T>> p) {
  const size_t n = p.size();
  const Pt<T> centre = mean(p);
  std::vector<T> dist(n);
  for (size_t i = 0; i < n; ++i)
    dist[i] = std::max(norm(sub(p[(i + 1) % n], centre)), norm(sub(p[i], centre)));
  const T div = plus_eps(*std::max_element(dist.begin(), dist.end()));
  for (T& d : dist) d /= div;
  return dist;
}

// The score of each edge i (p[i] -> p[i + 1]) as a head or tail candidate, in T.
template <class T>
std::vector<T> edge_scores(std::span<const Pt<T>> p) {
  const size_t n = p.size();
  Line<T> edge(n);
  for (size_t i = 0; i < n; ++i) edge[i] = sub(p[(i + 1) % n], p[i]);
  const std::vector<T> dist = dist_scores(p);
  const T pi = static_cast<T>(std::numbers::pi);
  std::vector<T> score(n);
  for (size_t i = 0; i < n; ++i) {
    const Pt<T> prev = edge[(i + n - 1) % n], next = edge[(i + 1) % n];
    const Pt<T> u = unit_single(edge[i]);
    const T theta_sum = angle_between(u, unit_stacked(prev)) + angle_between(u, unit_stacked(next));
    const T adjacent = angle_between(unit_single(prev), unit_single(next));
    T s = static_cast<T>(kThetaSumWeight) * (theta_sum / pi) +
          static_cast<T>(kAdjacentThetaWeight) * (adjacent / pi);
    s += static_cast<T>(kDistWeight) * dist[i];
    score[i] = s;
  }
  // An even point count favours edges n/2 - 1 and n - 1 (a CTW1500/Total-Text layout: top arc,
  // then bottom arc). The bonus is a float64 array added in place to the T scores.
  if (n % 2 == 0)
    for (size_t i : {n / 2 - 1, n - 1})
      score[i] = static_cast<T>(static_cast<double>(score[i]) + kPositionWeight);
  return score;
}

// The Gaussian weight of each head-to-tail gap j = 0..n-4, normalized to a peak of 1 (float64).
std::vector<double> gap_gaussian(size_t n) {
  const size_t gaps = n - 3;
  std::vector<double> g(gaps);
  const double scale = 1.0 / (std::sqrt(2.0 * std::numbers::pi) * kGapGaussianSigma);
  for (size_t j = 0; j < gaps; ++j) {
    const double x = static_cast<double>(j) / static_cast<double>(n - 4);
    const double v = (x - kGapGaussianCentre) / kGapGaussianSigma;
    g[j] = scale * std::exp(-(v * v) / 2);
  }
  const double peak = *std::max_element(g.begin(), g.end());
  for (double& v : g) v /= peak;
  return g;
}

// More than 4 points: the best (head i, tail i + 2 + j) pair of the float64 score matrix, the
// first one on ties (argmax), swapped so that the head comes first in vertex order.
template <class T>
HeadTail best_edge_pair(std::span<const Pt<T>> p) {
  const std::vector<T> score = edge_scores(p);
  const size_t n = p.size();
  const std::vector<double> gauss = gap_gaussian(n);
  double best = -std::numeric_limits<double>::infinity();
  size_t head = 0, gap = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < gauss.size(); ++j) {
      const double v = static_cast<double>(score[i]) +
                       static_cast<double>(score[(i + 2 + j) % n]) * gauss[j] * kTailScoreWeight;
      if (v > best || (i == 0 && j == 0)) best = v, head = i, gap = j;
    }
  int hs = static_cast<int>(head), ts = static_cast<int>((head + gap + 2) % n);
  int he = (hs + 1) % static_cast<int>(n), te = (ts + 1) % static_cast<int>(n);
  if (he > te) std::swap(hs, ts), std::swap(he, te);
  return {{hs, he}, {ts, te}};
}

// 4 points: the opposite edges with the smaller summed slope are the sides; the others are head
// and tail unless the sides are over orientation_thr times shorter (a vertical word).
template <class T>
HeadTail quad_head_tail(std::span<const Pt<T>> p) {
  using Pair = std::array<int, 2>;
  using Edges = std::array<Pair, 2>;
  const bool first_flatter = slope(sub(p[1], p[0])) + slope(sub(p[3], p[2])) <
                             slope(sub(p[2], p[1])) + slope(sub(p[0], p[3]));
  const Edges a{{{0, 1}, {2, 3}}}, b{{{3, 0}, {1, 2}}};
  const Edges& horizontal = first_flatter ? a : b;
  const Edges& vertical = first_flatter ? b : a;
  // Two T norms summed in T; the threshold product is float64.
  auto length_sum = [&p](const Edges& e) {
    return norm(sub(p[e[0][0]], p[e[0][1]])) + norm(sub(p[e[1][0]], p[e[1][1]]));
  };
  if (static_cast<double>(length_sum(vertical)) >
      static_cast<double>(length_sum(horizontal)) * kHeadTailOrientationThr)
    return {horizontal[0], horizontal[1]};
  return {vertical[0], vertical[1]};
}

template <class T>
struct Sidelines {
  Line<T> top;
  Line<T> bottom;
};

// p[from:to] of the polygon written twice (numpy slicing: clamped at 2n, empty when from >= to).
template <class T>
Line<T> doubled_slice(std::span<const Pt<T>> p, size_t from, size_t to) {
  Line<T> out;
  for (size_t k = from; k < std::min(to, 2 * p.size()); ++k) out.push_back(p[k % p.size()]);
  return out;
}

// _reorder_poly_edge's sidelines: the vertex runs from the head's end to the tail's end and from
// the tail's end back to the head's end; the one with the smaller mean y is the top.
template <class T>
Result<Sidelines<T>> split_sidelines(std::span<const Pt<T>> p, const HeadTail& ht) {
  const size_t from = static_cast<size_t>(ht.head[1]);
  const size_t to = ht.tail[1] < 1 ? p.size() : static_cast<size_t>(ht.tail[1]);
  Line<T> s1 = doubled_slice(p, from, to), s2 = doubled_slice(p, to, from + p.size());
  if (s1.size() < 2 || s2.size() < 2)
    return Status::invalid_argument("a sideline between its head and tail has fewer than 2 points");
  const T shift = mean<T>(s1).y - mean<T>(s2).y;
  if (shift > 0) return Sidelines<T>{std::move(s2), std::move(s1)};
  return Sidelines<T>{std::move(s1), std::move(s2)};
}

// _cal_curve_length: the edge lengths in T and their np.sum.
template <class T>
std::vector<T> edge_lengths(std::span<const Pt<T>> line) {
  std::vector<T> len(line.size() - 1);
  for (size_t i = 0; i + 1 < line.size(); ++i) len[i] = norm(sub(line[i + 1], line[i]));
  return len;
}
template <class T>
T curve_length(std::span<const Pt<T>> line) {
  const std::vector<T> len = edge_lengths(line);
  return pairwise_sum(len.data(), len.size());
}

// The point at arc length t on edge e of `line`, whose ends lie at t_org[e] and t_org[e + 1].
template <class T>
Pt<T> interpolate(std::span<const Pt<T>> line, const std::vector<T>& t_org, size_t e, float t) {
  const T tl = t_org[e], tr = t_org[e + 1], tt = static_cast<T>(t);
  // np.array([t_r - t, t - t_l], float32) / (t_r - t_l + eps): the differences in T rounded to
  // float32, the denominator + eps in float64 rounded to float32.
  const float den = static_cast<float>(static_cast<double>(tr - tl) + kEps);
  const T w0 = static_cast<T>(static_cast<float>(tr - tt) / den);
  const T w1 = static_cast<T>(static_cast<float>(tt - tl) / den);
  // np.dot(weight, line[[e, e + 1]]): the float32 weights widened to T; two products, one add.
  Pt<T> q{w0 * line[e].x, w0 * line[e].y};
  q.x += w1 * line[e + 1].x;
  q.y += w1 * line[e + 1].y;
  return q;
}

}  // namespace

template <class T>
std::vector<CurvePoint<T>> resample_line(std::span<const CurvePoint<T>> line, int n) {
  if (line.size() < 2 || n < kMinResampledPoints) return Line<T>(line.begin(), line.end());
  const std::vector<T> len = edge_lengths(line);
  const T total = pairwise_sum(len.data(), len.size());
  std::vector<T> t_org(len.size() + 1, 0);  // np.insert(np.cumsum(len), 0, 0): in order, in T
  for (size_t i = 0; i < len.size(); ++i) t_org[i + 1] = t_org[i] + len[i];
  // unit_t = total / (n - 1) is a float64 scalar; np.arange(float32) * unit_t rounds it to
  // float32 and multiplies in float32, whatever T is.
  const float step = static_cast<float>(static_cast<double>(total) / (n - 1));
  Line<T> out;
  out.reserve(static_cast<size_t>(n));
  out.push_back(line.front());
  size_t e = 0;
  for (int k = 1; k < n - 1; ++k) {
    const float t = static_cast<float>(k) * step;
    while (e + 1 < len.size() && static_cast<double>(t) > static_cast<double>(t_org[e + 1])) ++e;
    out.push_back(interpolate(line, t_org, e, t));
  }
  out.push_back(line.back());
  return out;
}

template <class T>
Result<HeadTail> find_head_tail(std::span<const CurvePoint<T>> points) {
  if (points.size() < kMinCenterLinePoints)
    return Status::invalid_argument("the head and tail edges need at least 4 points, got " +
                                    std::to_string(points.size()));
  return points.size() > kMinCenterLinePoints ? best_edge_pair(points) : quad_head_tail(points);
}

namespace {

template <class T>
struct CenterLine {
  Line<T> top;
  Line<T> bottom;  // reversed: bottom[i] faces top[i]
  Line<T> center;
};

// _resample_sidelines, then the centre line as the mean of facing points.
template <class T>
Result<CenterLine<T>> make_center_line(const Sidelines<T>& s) {
  // (length1 + length2) is a T scalar; / 2 makes it float64.
  const double avg =
      static_cast<double>(static_cast<T>(curve_length<T>(s.top) + curve_length<T>(s.bottom))) / 2;
  const double count = std::floor(avg / kCenterLineResampleStepPx) + 1;
  if (!(count <= kMaxResampledPoints))
    return Status::invalid_argument("its sidelines are " + std::to_string(avg) +
                                    " px long, beyond the bound on resampled points");
  const int n = std::max(static_cast<int>(count), kMinResampledPoints);
  CenterLine<T> c{resample_line<T>(s.top, n), resample_line<T>(s.bottom, n), {}};
  std::reverse(c.bottom.begin(), c.bottom.end());
  c.center.resize(c.top.size());
  for (size_t i = 0; i < c.top.size(); ++i)
    c.center[i] = {(c.top[i].x + c.bottom[i].x) / static_cast<T>(2),
                   (c.top[i].y + c.bottom[i].y) / static_cast<T>(2)};
  return c;
}

// TextSnake only: left to right, or top to bottom when the end-to-end vector is steep.
template <class T>
void orient_reading_direction(CenterLine<T>& c) {
  const Pt<T> d = sub(c.center.back(), c.center.front());
  if (slope(d) > kSteepSlope ? d.y < 0 : d.x < 0) {
    std::reverse(c.center.begin(), c.center.end());
    std::reverse(c.top.begin(), c.top.end());
    std::reverse(c.bottom.begin(), c.bottom.end());
  }
}

// Drops (width / 4) // step points at each end, where the width is |top - bottom| there (a T
// norm, then float64), if more than their sum + 2 points remain.
template <class T>
void shrink_ends(CenterLine<T>& c) {
  auto count = [](Pt<T> a, Pt<T> b) {
    const double len = static_cast<double>(norm(sub(a, b))) / kEndShrinkWidthDivisor;
    return static_cast<size_t>(std::floor(len / kCenterLineResampleStepPx));
  };
  const size_t head = count(c.top.front(), c.bottom.front());
  const size_t tail = count(c.top.back(), c.bottom.back());
  if (c.center.size() <= head + tail + 2) return;
  for (Line<T>* l : {&c.center, &c.top, &c.bottom}) {
    l->erase(l->end() - static_cast<ptrdiff_t>(tail), l->end());
    l->erase(l->begin(), l->begin() + static_cast<ptrdiff_t>(head));
  }
}

// Segment i's quad (each corner moved from the centre line toward its sideline by the shrink
// ratio, in T, then truncated) and the values TextSnake draws on it.
template <class T>
CenterQuad quad_of(const CenterLine<T>& c, size_t i) {
  const T r = static_cast<T>(kCenterRegionShrinkRatio);
  auto toward = [r](Pt<T> m, Pt<T> side) {
    return Pt<T>{m.x + (side.x - m.x) * r, m.y + (side.y - m.y) * r};
  };
  const std::array<Pt<T>, 4> corners = {
      toward(c.center[i], c.top[i]), toward(c.center[i + 1], c.top[i + 1]),
      toward(c.center[i + 1], c.bottom[i + 1]), toward(c.center[i], c.bottom[i])};
  CenterQuad q;
  for (size_t k = 0; k < corners.size(); ++k) {
    q.xy[2 * k] = static_cast<int32_t>(corners[k].x);
    q.xy[2 * k + 1] = static_cast<int32_t>(corners[k].y);
  }
  const T two = static_cast<T>(2);
  const Pt<T> top_mid{(c.top[i].x + c.top[i + 1].x) / two, (c.top[i].y + c.top[i + 1].y) / two};
  const Pt<T> bot_mid{(c.bottom[i].x + c.bottom[i + 1].x) / two,
                      (c.bottom[i].y + c.bottom[i + 1].y) / two};
  q.radius = static_cast<float>(static_cast<double>(norm(sub(top_mid, bot_mid))) / 2);
  // vector_sin / vector_cos: a T component over (T norm + eps), float64, stored as float32.
  const Pt<T> d = sub(c.center[i + 1], c.center[i]);
  const double len = static_cast<double>(norm(d)) + kEps;
  q.sin = static_cast<float>(static_cast<double>(d.y) / len);
  q.cos = static_cast<float>(static_cast<double>(d.x) / len);
  return q;
}

}  // namespace

template <class T>
Result<std::vector<CenterQuad>> center_region_quads(std::span<const CurvePoint<T>> polygon,
                                                    const CenterLineStyle& style) {
  Line<T> pts = style.drop_repeated_vertices ? drop_repeated_vertices(polygon)
                                             : Line<T>(polygon.begin(), polygon.end());
  if (pts.size() < kMinCenterLinePoints)
    return Status::invalid_argument(
        "has " + std::to_string(pts.size()) +
        (style.drop_repeated_vertices
             ? " vertices once those within 1e-5 px of the next are dropped (of " +
                   std::to_string(polygon.size()) + ")"
             : " vertices") +
        "; its centre line needs at least 4 (mmocr raises AssertionError)");
  TF_ASSIGN_OR_RETURN(const HeadTail ht, find_head_tail<T>(pts));
  TF_ASSIGN_OR_RETURN(const Sidelines<T> sides, split_sidelines<T>(pts, ht));
  TF_ASSIGN_OR_RETURN(CenterLine<T> c, make_center_line(sides));
  if (style.orient_reading_direction) orient_reading_direction(c);
  shrink_ends(c);
  std::vector<CenterQuad> quads;
  quads.reserve(c.center.size() - 1);
  for (size_t i = 0; i + 1 < c.center.size(); ++i) quads.push_back(quad_of(c, i));
  return quads;
}

template Result<HeadTail> find_head_tail<float>(std::span<const CurvePoint<float>>);
template Result<HeadTail> find_head_tail<double>(std::span<const CurvePoint<double>>);
template std::vector<CurvePoint<float>> resample_line<float>(std::span<const CurvePoint<float>>,
                                                             int);
template std::vector<CurvePoint<double>> resample_line<double>(std::span<const CurvePoint<double>>,
                                                               int);
template Result<std::vector<CenterQuad>> center_region_quads<float>(
    std::span<const CurvePoint<float>>, const CenterLineStyle&);
template Result<std::vector<CenterQuad>> center_region_quads<double>(
    std::span<const CurvePoint<double>>, const CenterLineStyle&);

}  // namespace textfeed::augment
