// The text centre line of a word polygon and its centre-region quads, as mmocr 1.x's
// TextSnakeModuleLoss builds them (_reorder_poly_edge, _resample_sidelines,
// _generate_center_mask_attrib_maps; docs/targets.md §9.2): the head and tail edges, the two
// sidelines, their resampling by arc length, the centre line and the quads at shrink ratio 0.3.
// TextSnake's targets (augment/textsnake/targets.h) and FCENet's centre region
// (augment/fcenet/targets.h) draw these quads.
//
// The reference's numbers are reproduced step by step in its own precision: T = float for
// TextSnake (mmocr's float32 polygons), T = double for FCENet (integer vertices divided by the
// level's stride). Where numpy widens a float32 scalar to float64 (a scalar with a Python float)
// or rounds a float64 scalar to float32 (an array with a scalar), the code does the same; the
// quad corners are truncated to int32, so one ulp moves whole pixel rows.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"

namespace textfeed::augment {

// TextSnakeModuleLoss's defaults (shared by FCEModuleLoss): the resampling step along the
// sidelines (px), the centre region's shrink ratio toward the centre line, and orientation_thr
// (a quadrangle whose head and tail edges are more than this times longer than its sides swaps
// them).
inline constexpr double kCenterLineResampleStepPx = 4.0;
inline constexpr double kCenterRegionShrinkRatio = 0.3;
inline constexpr double kHeadTailOrientationThr = 2.0;
// Fewer vertices than this and the reference's _reorder_poly_edge raises AssertionError.
inline constexpr size_t kMinCenterLinePoints = 4;

// A point in the reference's precision T (float or double): x right, y down, px.
template <class T>
struct CurvePoint {
  T x = 0;
  T y = 0;
};

// What differs between the two families' centre regions.
struct CenterLineStyle {
  // TextSnake first drops every vertex within 1e-5 px of the next one (cyclically).
  bool drop_repeated_vertices = true;
  // TextSnake then orients the centre line left to right (top to bottom when steep).
  bool orient_reading_direction = true;
};
inline constexpr CenterLineStyle kTextSnakeCenterLine{true, true};
inline constexpr CenterLineStyle kFceCenterLine{false, false};

// The head and tail edges as vertex index pairs (start, end) in the polygon's order.
struct HeadTail {
  std::array<int, 2> head{};
  std::array<int, 2> tail{};
};

// One centre-line segment i -> i + 1: its quad and the values TextSnake draws on it.
struct CenterQuad {
  std::array<int32_t, 8> xy{};  // tl, tr, br, bl as (x, y), truncated toward zero (int32)
  float radius = 0;  // half the distance between the midpoints of the top and bottom segments (px)
  float sin = 0;     // of the segment's direction, y down
  float cos = 0;
};

// _find_head_tail on `points` (>= kMinCenterLinePoints, distinct neighbours not required): for
// 4 points the pair of opposite edges with the smaller summed |dy/dx| are the sides, unless the
// other pair is over kHeadTailOrientationThr times longer; for more points the best-scoring
// edge pair (docs/targets.md §9.2), head first in vertex order. Errors: kInvalidArgument (too
// few points). Thread-safety: reentrant.
template <class T>
Result<HeadTail> find_head_tail(std::span<const CurvePoint<T>> points);

// _resample_line: n (>= 3) points equally spaced by arc length along `line` (>= 2 points), its
// ends included, with the reference's float32 interpolation weights; `line` unchanged for a
// shorter line or a smaller n (where the reference asserts). Thread-safety: reentrant.
template <class T>
std::vector<CurvePoint<T>> resample_line(std::span<const CurvePoint<T>> line, int n);

// The centre-region quads of one word polygon in the order the reference draws them (later
// quads over earlier ones). Errors: kInvalidArgument (fewer than kMinCenterLinePoints vertices,
// after dropping repeated ones where `style` asks: the reference raises AssertionError).
// Thread-safety: reentrant.
template <class T>
Result<std::vector<CenterQuad>> center_region_quads(std::span<const CurvePoint<T>> polygon,
                                                    const CenterLineStyle& style);

extern template Result<HeadTail> find_head_tail<float>(std::span<const CurvePoint<float>>);
extern template Result<HeadTail> find_head_tail<double>(std::span<const CurvePoint<double>>);
extern template std::vector<CurvePoint<float>> resample_line<float>(
    std::span<const CurvePoint<float>>, int);
extern template std::vector<CurvePoint<double>> resample_line<double>(
    std::span<const CurvePoint<double>>, int);
extern template Result<std::vector<CenterQuad>> center_region_quads<float>(
    std::span<const CurvePoint<float>>, const CenterLineStyle&);
extern template Result<std::vector<CenterQuad>> center_region_quads<double>(
    std::span<const CurvePoint<double>>, const CenterLineStyle&);

}  // namespace textfeed::augment
