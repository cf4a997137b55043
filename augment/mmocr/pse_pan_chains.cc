// PSENet's and PANet's training chains (pse_pan_chains.h): FixInvalidPolygon,
// ShortScaleAspectJitter, RandomFlip, RandomRotate without canvas (imgaug 0.4's Affine inside
// mmocr's ImgAugWrapper), TextDetRandomCrop and Pad. The rotation follows imgaug's own arithmetic:
// scikit-image's AffineTransform products in float64, points kept as float32 in imgaug's polygons,
// the clip to the image through shapely's intersection and imgaug's choice of the first vertex.
// Longer than the soft cap: the imgaug part is one unit and reads best next to its callers.
#include "augment/mmocr/pse_pan_chains.h"

#include <geos_c.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "augment/geometry/shapely_geos.h"

namespace textfeed::augment::mmocr {
namespace {

// Both configs: ShortScaleAspectJitter(736, scale_divisor 32), TextDetRandomCrop and Pad (736).
constexpr int kTargetPx = 736;
constexpr int kScaleDivisor = 32;
constexpr double kRatioMin = 0.7, kRatioMax = 1.3;
constexpr double kAspectMin = 0.9, kAspectMax = 1.1;
// RandomRotate(max_angle 10): imgaug Affine(rotate=(-10, 10)).
constexpr double kMaxAngleDeg = 10;
// TextDetRandomCrop's default positive_sample_ratio.
constexpr double kPositiveRatio = 5.0 / 8.0;
// FixInvalidPolygon's default min_poly_points, and shapely's least polygon (3 points).
constexpr size_t kMinPolyPoints = 4;
constexpr size_t kShapelyMinPoints = 3;
// imgaug: a matrix whose mean absolute difference from the identity is at most this is skipped.
constexpr double kIdentityEps = 1e-4;
// imgaug's LineString clip pulls the right and bottom image edges in by this much.
constexpr double kEdgeEps = 1e-3;
// skimage's quarter turns in imgaug's y-shear sandwich use this truncated pi.
constexpr double kImgaugPi = 3.141592;
// np.allclose's defaults, which imgaug uses to drop a closing point.
constexpr float kAllcloseRtol = 1e-5f, kAllcloseAtol = 1e-8f;

double f32(double v) { return static_cast<double>(static_cast<float>(v)); }

std::vector<double> as_f32(std::span<const double> xy) {
  std::vector<double> out(xy.size());
  for (size_t i = 0; i < xy.size(); ++i) out[i] = f32(xy[i]);
  return out;
}

Status geos_failed(const GeosContext& geos, const char* what) {
  return Status::internal(std::string("GEOS ") + what + " failed: " + geos.error());
}

// The exterior ring of polygon `poly` as GEOS holds it (closing point included).
Result<std::vector<double>> exterior_coords(const GeosContext& geos, const GEOSGeometry* poly) {
  const GEOSGeometry* ring = GEOSGetExteriorRing_r(geos.handle(), poly);
  const GEOSCoordSequence* seq = ring ? GEOSGeom_getCoordSeq_r(geos.handle(), ring) : nullptr;
  unsigned n = 0;
  if (seq == nullptr || GEOSCoordSeq_getSize_r(geos.handle(), seq, &n) == 0)
    return geos_failed(geos, "ring read");
  std::vector<double> out(2 * static_cast<size_t>(n));
  for (unsigned i = 0; i < n; ++i)
    GEOSCoordSeq_getXY_r(geos.handle(), seq, i, &out[2 * i], &out[2 * i + 1]);
  return out;
}

bool is_nonempty_polygon(const GeosContext& geos, const GEOSGeometry* g) {
  return g != nullptr && GEOSGeomTypeId_r(geos.handle(), g) == GEOS_POLYGON &&
         GEOSisEmpty_r(geos.handle(), g) == 0;
}

// ---- FixInvalidPolygon ---------------------------------------------------------------------

// gt_bboxes[i] through bbox2poly: the float32 bounding box of the float32 polygon `xy32` as the
// polygon (x1, y1, x2, y1, x2, y2, x1, y2).
std::vector<double> bbox_polygon(std::span<const double> xy32) {
  double x1 = xy32[0], y1 = xy32[1], x2 = xy32[0], y2 = xy32[1];
  for (size_t i = 0; i + 1 < xy32.size(); i += 2) {
    x1 = std::min(x1, xy32[i]);
    x2 = std::max(x2, xy32[i]);
    y1 = std::min(y1, xy32[i + 1]);
    y2 = std::max(y2, xy32[i + 1]);
  }
  return {x1, y1, x2, y1, x2, y2, x1, y2};
}

// The fixed polygon of FixInvalidPolygon's 'fix' mode when shapely can make one: the geometry made
// valid (buffer 0, the convex hull of what is not one polygon), its exterior as float64 values.
// Empty when mmocr's attempt raises (an empty or degenerate result), so that it falls back to the
// bounding box.
Result<std::vector<double>> made_valid_exterior(const GeosContext& geos, GeosGeometry g,
                                                char valid) {
  if (valid == 0) g = own(geos, GEOSBuffer_r(geos.handle(), g.get(), 0.0, 16));
  if (g != nullptr && GEOSGeomTypeId_r(geos.handle(), g.get()) != GEOS_POLYGON)
    g = own(geos, GEOSConvexHull_r(geos.handle(), g.get()));
  if (!is_nonempty_polygon(geos, g.get())) return std::vector<double>{};
  return exterior_coords(geos, g.get());
}

// One polygon through FixInvalidPolygon(mode 'fix', min_poly_points 4, fix_from_bbox True), in
// place. Returns whether it stays.
Result<bool> fix_polygon(const GeosContext& geos, ChainPolygon& p) {
  if (p.xy.size() < 2 * kShapelyMinPoints) return false;
  const std::vector<double> xy32 = as_f32(p.xy);  // poly2shapely's float32 array
  GeosGeometry g = own(geos, shapely_polygon(geos, xy32));
  if (g != nullptr) {
    const char valid = GEOSisValid_r(geos.handle(), g.get());
    if (valid == 1 && p.xy.size() >= 2 * kMinPolyPoints) return true;
    if (valid != 2) {
      auto fixed = made_valid_exterior(geos, std::move(g), valid);
      if (!fixed.ok()) return fixed.status();
      if (!fixed->empty()) {
        p.xy = std::move(*fixed);  // shapely2poly: float64 coordinates
        p.f32 = false;
        return true;
      }
    }
  }
  p.xy = bbox_polygon(xy32);
  p.f32 = true;
  GeosGeometry box = own(geos, shapely_polygon(geos, p.xy));
  return is_nonempty_polygon(geos, box.get()) && GEOSisValid_r(geos.handle(), box.get()) == 1;
}

// FixInvalidPolygon on the whole state. Returns false when the reference returns None (no polygon
// stays, which includes a sample without polygons); the polygons are then left as mmocr leaves
// its list (fixed in place, none removed).
Result<bool> fix_invalid_polygons(ChainState& state) {
  const GeosContext& geos = thread_geos();
  if (geos.handle() == nullptr) return Status::internal("GEOS_init_r failed");
  std::vector<unsigned char> keep(state.polygons.size(), 0);
  size_t kept = 0;
  for (size_t i = 0; i < state.polygons.size(); ++i) {
    auto stays = fix_polygon(geos, state.polygons[i]);
    if (!stays.ok()) return stays.status();
    keep[i] = *stays ? 1 : 0;
    kept += keep[i];
  }
  if (kept == 0) return false;
  state.keep_only(keep);
  return true;
}

// ---- ShortScaleAspectJitter ----------------------------------------------------------------

// Python's round(x) for a float: the nearest integer, ties to even.
int64_t python_round(double x) { return static_cast<int64_t>(std::nearbyint(x)); }

int64_t ceil_to_divisor(int64_t v) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(v) / kScaleDivisor)) * kScaleDivisor;
}

Status short_scale_aspect_jitter(ChainState& state, ChainStreams& streams) {
  const double u_ratio = streams.np_random_sample("ShortScaleAspectJitter", "ratio");
  const double ratio = u_ratio * (kRatioMax - kRatioMin) + kRatioMin;
  const double scale = (ratio * kTargetPx) / std::min(state.h, state.w);
  const double u_aspect = streams.np_random_sample("ShortScaleAspectJitter", "aspect");
  const double aspect = u_aspect * (kAspectMax - kAspectMin) + kAspectMin;
  const double h_scale = scale * std::sqrt(aspect);
  const double w_scale = scale / std::sqrt(aspect);
  const int64_t new_h = ceil_to_divisor(python_round(state.h * h_scale));
  const int64_t new_w = ceil_to_divisor(python_round(state.w * w_scale));
  return resize_to(state, static_cast<int>(new_w), static_cast<int>(new_h));
}

// ---- RandomRotate: imgaug 0.4's Affine -----------------------------------------------------

struct Mat3 {
  double a[3][3];
};

// l @ r, each entry summed in k order from zero (numpy's loop; the goldens' matrices agree).
Mat3 matmul(const Mat3& l, const Mat3& r) {
  Mat3 out{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += l.a[i][k] * r.a[k][j];
      out.a[i][j] = s;
    }
  return out;
}

// skimage's AffineTransform(rotation=rot, shear=0) with unit scale and no translation (the
// shear enters only as rot + 0), and SimilarityTransform(translation=(tx, ty)).
Mat3 sk_rotation(double rot) {
  return {{{std::cos(rot), -std::sin(rot), 0}, {std::sin(rot), std::cos(rot), 0}, {0, 0, 1}}};
}
Mat3 sk_translation(double tx, double ty) { return {{{1, -0.0, tx}, {0, 1, ty}, {0, 0, 1}}}; }

// _AffineSamplingResult.to_matrix for Affine(rotate=angle) on an h x w image: about the centre
// shifted by `shift_add` (0.5 for the image, 0 for coordinates), composed as imgaug adds the
// transforms. The angle reaches skimage as float32 radians (np.deg2rad of float32 samples).
Mat3 imgaug_matrix(float angle_deg, int h, int w, double shift_add) {
  constexpr float kRadPerDeg = static_cast<float>(3.14159265358979323846 / 180.0);
  const float rad = angle_deg * kRadPerDeg;
  const double shift_x = w / 2.0 - shift_add, shift_y = h / 2.0 - shift_add;
  Mat3 m = sk_translation(-shift_x, -shift_y);
  m = matmul(sk_rotation(-kImgaugPi / 2), m);
  m = matmul(sk_rotation(0.0), m);  // the y shear of 0
  m = matmul(sk_rotation(kImgaugPi / 2), m);
  m = matmul(sk_rotation(static_cast<double>(rad)), m);
  return matmul(sk_translation(shift_x, shift_y), m);
}

// _is_identity_matrix: numpy's mean of |I - M| (pairwise sum of 9 values) against 1e-4.
bool is_identity(const Mat3& m) {
  double d[9];
  for (int i = 0; i < 9; ++i) d[i] = std::fabs((i / 3 == i % 3 ? 1.0 : 0.0) - m.a[i / 3][i % 3]);
  const double sum = ((d[0] + d[1]) + (d[2] + d[3])) + ((d[4] + d[5]) + (d[6] + d[7])) + d[8];
  return sum / 9 <= kIdentityEps;
}

// An imgaug Polygon's exterior: float32 points, the last dropped when np.allclose puts it on the
// first.
std::vector<float> imgaug_exterior(const ChainPolygon& p) {
  std::vector<float> e(p.xy.size());
  for (size_t i = 0; i < p.xy.size(); ++i) e[i] = static_cast<float>(p.xy[i]);
  const size_t n = e.size() / 2;
  if (n >= 2) {
    auto close = [](float a, float b) {
      return std::fabs(a - b) <= kAllcloseAtol + kAllcloseRtol * std::fabs(b);
    };
    if (close(e[0], e[2 * n - 2]) && close(e[1], e[2 * n - 1])) e.resize(2 * n - 2);
  }
  return e;
}

// skimage's matrix_transform (float64, (x, y, 1) @ M.T) stored back into float32.
void map_points(std::vector<float>& e, const Mat3& m) {
  for (size_t i = 0; i + 1 < e.size(); i += 2) {
    const double x = e[i], y = e[i + 1];
    e[i] = static_cast<float>(x * m.a[0][0] + y * m.a[0][1] + m.a[0][2]);
    e[i + 1] = static_cast<float>(x * m.a[1][0] + y * m.a[1][1] + m.a[1][2]);
  }
}

std::vector<double> to_double(std::span<const float> e) { return {e.begin(), e.end()}; }

// imgaug's Polygon.is_valid: at least 3 points and a valid shapely polygon.
Result<bool> imgaug_valid(const GeosContext& geos, std::span<const float> e) {
  if (e.size() < 2 * kShapelyMinPoints) return false;
  GeosGeometry g = own(geos, shapely_polygon(geos, to_double(e)));
  if (g == nullptr) return geos_failed(geos, "polygon");
  const char valid = GEOSisValid_r(geos.handle(), g.get());
  if (valid == 2) return geos_failed(geos, "is_valid");
  return valid == 1;
}

// What imgaug's Polygon.clip_out_of_image gives: the pieces of the polygon inside the image
// (only the first is kept, with imgaug's choice of its first vertex), or a raise (shapely
// returned a mixed collection).
struct ImgaugClip {
  bool raised = false;
  size_t pieces = 0;
  std::vector<float> first;  // float32 exterior without closing point
};

// imgaug's find_closest_point_index over all the old points: the first vertex of the new polygon
// becomes the one nearest (float32 distances, first minimum) to some old point, the old points
// tried in order and a later one winning only when strictly nearer.
void start_at_closest(std::vector<float>& poly, std::span<const float> old) {
  const size_t n = poly.size() / 2;
  size_t best_idx = 0;
  float best = 0;
  bool have = false;
  for (size_t o = 0; o + 1 < old.size(); o += 2) {
    size_t idx = 0;
    float dmin = 0;
    for (size_t k = 0; k < n; ++k) {
      const float dx = poly[2 * k] - old[o], dy = poly[2 * k + 1] - old[o + 1];
      const float d = std::sqrt(dx * dx + dy * dy);
      if (k == 0 || d < dmin) {
        dmin = d;
        idx = k;
      }
    }
    if (!have || dmin < best) {
      have = true;
      best = dmin;
      best_idx = idx;
    }
  }
  std::rotate(poly.begin(), poly.begin() + 2 * static_cast<std::ptrdiff_t>(best_idx), poly.end());
}

// Polygon.from_shapely: the exterior as float32, the closing point dropped (np.allclose).
Result<std::vector<float>> imgaug_from_shapely(const GeosContext& geos, const GEOSGeometry* poly) {
  auto ring = exterior_coords(geos, poly);
  if (!ring.ok()) return ring.status();
  ChainPolygon p{std::move(*ring), true, 0};
  return imgaug_exterior(p);
}

Result<ImgaugClip> imgaug_clip(const GeosContext& geos, std::span<const float> e, int h, int w) {
  GeosGeometry poly = own(geos, shapely_polygon(geos, to_double(e)));
  const double rect[8] = {0, 0, double(w), 0, double(w), double(h), 0, double(h)};
  GeosGeometry image = own(geos, shapely_polygon(geos, rect));
  if (poly == nullptr || image == nullptr) return geos_failed(geos, "polygon");
  GeosGeometry cut = own(geos, GEOSIntersection_r(geos.handle(), poly.get(), image.get()));
  if (cut == nullptr) return geos_failed(geos, "intersection");
  ImgaugClip clip;
  const int type = GEOSGeomTypeId_r(geos.handle(), cut.get());
  if (GEOSisEmpty_r(geos.handle(), cut.get()) == 1) return clip;
  if (type == GEOS_GEOMETRYCOLLECTION) {
    clip.raised = true;  // imgaug asserts that a collection is empty
    return clip;
  }
  if (type != GEOS_POLYGON && type != GEOS_MULTIPOLYGON) return clip;  // lines, points: ignored
  clip.pieces = static_cast<size_t>(GEOSGetNumGeometries_r(geos.handle(), cut.get()));
  if (clip.pieces == 0) return clip;
  const GEOSGeometry* first = GEOSGetGeometryN_r(geos.handle(), cut.get(), 0);
  auto ext = imgaug_from_shapely(geos, first);
  if (!ext.ok()) return ext.status();
  clip.first = std::move(*ext);
  if (clip.first.empty()) {
    clip.raised = true;  // find_closest_point_index asserts on an empty exterior
    return clip;
  }
  start_at_closest(clip.first, e);
  return clip;
}

// Polygon.is_out_of_image(fully=True, partly=False): no vertex in [0, w) x [0, h), the closed
// outline meets none of imgaug's pulled-in image edges, and the clip leaves nothing.
Result<bool> imgaug_out_of_image(const GeosContext& geos, std::span<const float> e, int h, int w,
                                 const ImgaugClip& clip) {
  for (size_t i = 0; i + 1 < e.size(); i += 2)
    if (e[i] >= 0 && e[i] < w && e[i + 1] >= 0 && e[i + 1] < h) return false;
  std::vector<double> ring = to_double(e);
  ring.push_back(ring[0]);
  ring.push_back(ring[1]);
  GEOSCoordSequence* seq =
      GEOSCoordSeq_create_r(geos.handle(), static_cast<unsigned>(ring.size() / 2), 2);
  if (seq == nullptr) return geos_failed(geos, "sequence");
  for (size_t i = 0; i < ring.size() / 2; ++i)
    GEOSCoordSeq_setXY_r(geos.handle(), seq, static_cast<unsigned>(i), ring[2 * i],
                         ring[2 * i + 1]);
  GeosGeometry line = own(geos, GEOSGeom_createLineString_r(geos.handle(), seq));
  const double we = w - kEdgeEps, he = h - kEdgeEps;
  const double box[8] = {0, 0, we, 0, we, he, 0, he};
  GeosGeometry edges = own(geos, shapely_polygon(geos, box));
  if (line == nullptr || edges == nullptr) return geos_failed(geos, "line");
  const GEOSGeometry* outline = GEOSGetExteriorRing_r(geos.handle(), edges.get());
  const char meets = GEOSIntersects_r(geos.handle(), line.get(), outline);
  if (meets == 2) return geos_failed(geos, "intersects");
  if (meets == 1) return false;
  return !clip.raised && clip.pieces == 0;
}

// One polygon through ImgAugWrapper._augment_polygons after the Affine: removed (invalid, out of
// the image, two points or fewer) or its float32 points (the first clip piece, or the unclipped
// polygon when the clip raises or leaves nothing, as mmocr's except branch keeps it).
Result<bool> wrapper_polygon(const GeosContext& geos, std::span<const float> e, int h, int w,
                             std::vector<double>& out) {
  auto valid = imgaug_valid(geos, e);
  if (!valid.ok()) return valid.status();
  if (!*valid) return false;
  auto clip = imgaug_clip(geos, e, h, w);
  if (!clip.ok()) return clip.status();
  auto out_of_image = imgaug_out_of_image(geos, e, h, w, *clip);
  if (!out_of_image.ok()) return out_of_image.status();
  if (*out_of_image) return false;
  const bool clipped = !clip->raised && clip->pieces > 0;
  const std::span<const float> kept = clipped ? std::span<const float>(clip->first) : e;
  if (kept.size() <= 4) return false;
  out = to_double(kept);
  return true;
}

// The image's warp: imgaug's matrix with the half-pixel shift, nearest neighbour (cv2
// INTER_NEAREST, PixelOp code 1), zero border, same size. Nothing when imgaug skips the warp.
void push_affine_op(ChainState& state, float angle_deg) {
  const Mat3 m = imgaug_matrix(angle_deg, state.h, state.w, 0.5);
  if (is_identity(m)) return;
  PixelOp op;
  op.kind = PixelOp::Kind::kAffine;
  op.out_h = state.h;
  op.out_w = state.w;
  for (int i = 0; i < 6; ++i) op.matrix[i] = m.a[i / 3][i % 3];
  op.code = 1;
  state.ops.push_back(op);
}

// When no polygon is left mmocr returns None with gt_polygons as the Affine left them: imgaug's
// exterior of a float32 polygon is a view of mmocr's array, written in place (all points but a
// dropped closing point); a float64 polygon was copied and stays as it was.
void leave_in_place(ChainState& state, const std::vector<std::vector<float>>& exteriors) {
  for (size_t i = 0; i < state.polygons.size(); ++i) {
    ChainPolygon& p = state.polygons[i];
    if (!p.f32) continue;
    for (size_t k = 0; k < exteriors[i].size(); ++k) p.xy[k] = exteriors[i][k];
  }
}

// RandomRotate(max_angle 10) without canvas: ImgAugWrapper([Affine(rotate=(-10, 10), order 0,
// backend cv2)]) with its FixInvalidPolygon. Sets state.dropped when no polygon is left.
Status imgaug_random_rotate(ChainState& state, ChainStreams& streams) {
  const float angle = streams.imgaug_angle("RandomRotate", -kMaxAngleDeg, kMaxAngleDeg);
  const GeosContext& geos = thread_geos();
  if (geos.handle() == nullptr) return Status::internal("GEOS_init_r failed");
  const Mat3 m = imgaug_matrix(angle, state.h, state.w, 0.0);
  const bool moves = !is_identity(m) && !state.polygons.empty();
  std::vector<std::vector<float>> exteriors;
  for (const ChainPolygon& p : state.polygons) {
    exteriors.push_back(imgaug_exterior(p));
    if (moves) map_points(exteriors.back(), m);
  }
  std::vector<unsigned char> keep(state.polygons.size(), 0);
  std::vector<std::vector<double>> out(state.polygons.size());
  bool any = false;
  for (size_t i = 0; i < exteriors.size(); ++i) {
    auto stays = wrapper_polygon(geos, exteriors[i], state.h, state.w, out[i]);
    if (!stays.ok()) return stays.status();
    keep[i] = *stays ? 1 : 0;
    any = any || *stays;
  }
  if (!any) {
    if (moves) leave_in_place(state, exteriors);
    state.dropped = "RandomRotate";
    return Status();
  }
  for (size_t i = 0; i < state.polygons.size(); ++i) {
    state.polygons[i].xy = std::move(out[i]);
    state.polygons[i].f32 = true;
  }
  state.keep_only(keep);
  push_affine_op(state, angle);
  auto fixed = fix_invalid_polygons(state);
  if (!fixed.ok()) return fixed.status();
  if (!*fixed) state.dropped = "RandomRotate";
  return Status();
}

// ---- TextDetRandomCrop ---------------------------------------------------------------------

// numpy's float-to-int32 assignment: truncation toward zero.
int32_t to_int32(double v) { return static_cast<int32_t>(v); }

// The smallest (or largest) value of each half of the flat coordinate list: mmocr reads the
// polygon as reshape(2, -1), the first half of the list as "y" and the second as "x".
std::pair<double, double> half_extreme(const std::vector<double>& xy, bool largest) {
  const size_t half = xy.size() / 2;
  auto pick = [&](size_t from, size_t to) {
    double v = xy[from];
    for (size_t i = from; i < to; ++i) v = largest ? std::max(v, xy[i]) : std::min(v, xy[i]);
    return v;
  };
  return {pick(0, half), pick(half, xy.size())};
}

// _sample_offset's positive branch: the (y, x) offset ranges [tl, br] that keep some text.
void positive_range(const ChainState& state, int t_h, int t_w, int32_t tl[2], int32_t br[2]) {
  tl[0] = state.h + 1;
  tl[1] = state.w + 1;
  br[0] = br[1] = 0;
  for (const ChainPolygon& p : state.polygons) {
    const auto [lo0, lo1] = half_extreme(p.xy, false);
    if (lo0 <= tl[0]) tl[0] = to_int32(lo0);
    if (lo1 <= tl[1]) tl[1] = to_int32(lo1);
    const auto [hi0, hi1] = half_extreme(p.xy, true);
    if (hi0 > br[0]) br[0] = to_int32(hi0);
    if (hi1 > br[1]) br[1] = to_int32(hi1);
  }
  tl[0] = std::max(tl[0] - t_h, 0);
  tl[1] = std::max(tl[1] - t_w, 0);
  br[0] = std::min(std::max(br[0] - t_h, 0), state.h - t_h);
  br[1] = std::min(std::max(br[1] - t_w, 0), state.w - t_w);
}

// _sample_offset: the crop's top left (y, x).
std::pair<int64_t, int64_t> sample_offset(const ChainState& state, ChainStreams& streams) {
  const int t_h = std::min(kTargetPx, state.h), t_w = std::min(kTargetPx, state.w);
  constexpr const char* kStep = "TextDetRandomCrop";
  if (!state.polygons.empty() && streams.np_random_sample(kStep, "positive") < kPositiveRatio) {
    int32_t tl[2], br[2];
    positive_range(state, t_h, t_w, tl, br);
    const int64_t y = tl[0] < br[0] ? streams.py_randint(kStep, "offset_y", tl[0], br[0]) : 0;
    const int64_t x = tl[1] < br[1] ? streams.py_randint(kStep, "offset_x", tl[1], br[1]) : 0;
    return {y, x};
  }
  const int64_t y = state.h - t_h > 0 ? streams.py_randint(kStep, "offset_y", 0, state.h - t_h) : 0;
  const int64_t x = state.w - t_w > 0 ? streams.py_randint(kStep, "offset_x", 0, state.w - t_w) : 0;
  return {y, x};
}

// TextDetRandomCrop(736): skipped on a 736 x 736 image; otherwise a 736 x 736 window (clipped to
// the image) and the polygons cut to it, shifted by the integer offset in float64.
Status text_det_random_crop(ChainState& state, ChainStreams& streams) {
  if (state.h == kTargetPx && state.w == kTargetPx) return Status();
  const auto [y0, x0] = sample_offset(state, streams);
  const int64_t y1 = std::min<int64_t>(y0 + kTargetPx, state.h);
  const int64_t x1 = std::min<int64_t>(x0 + kTargetPx, state.w);
  const double box[4] = {double(x0), double(y0), double(x1), double(y1)};
  std::vector<unsigned char> keep(state.polygons.size(), 0);
  for (size_t i = 0; i < state.polygons.size(); ++i) {
    ChainPolygon& p = state.polygons[i];
    if (p.xy.size() < 2 * kShapelyMinPoints) continue;
    auto cut = crop_polygon(p.xy, box);
    if (!cut.ok()) return cut.status();
    if (cut->empty()) continue;
    for (size_t k = 0; k + 1 < cut->size(); k += 2) {
      (*cut)[k] -= box[0];
      (*cut)[k + 1] -= box[1];
    }
    p.xy = std::move(*cut);
    p.f32 = false;
    keep[i] = 1;
  }
  state.keep_only(keep);
  PixelOp op;
  op.kind = PixelOp::Kind::kCrop;
  op.rect[0] = static_cast<int>(x0);
  op.rect[1] = static_cast<int>(y0);
  op.rect[2] = static_cast<int>(x1);
  op.rect[3] = static_cast<int>(y1);
  op.out_h = static_cast<int>(y1 - y0);
  op.out_w = static_cast<int>(x1 - x0);
  state.ops.push_back(op);
  state.h = op.out_h;
  state.w = op.out_w;
  return Status();
}

// mmcv's Pad(size=(736, 736)): zeros to the right and bottom; the polygons stay.
void pad_to_target(ChainState& state) {
  if (state.h == kTargetPx && state.w == kTargetPx) return;
  PixelOp op;
  op.kind = PixelOp::Kind::kPad;
  op.out_h = kTargetPx;
  op.out_w = kTargetPx;
  state.ops.push_back(op);
  state.h = state.w = kTargetPx;
}

// The steps both chains share after their first ones, each followed by its trace entry; stops at
// a drop (the dropping step is traced too, as the reference's state stood).
Status shared_steps(ChainState& state, ChainStreams& streams) {
  TF_RETURN_IF_ERROR(short_scale_aspect_jitter(state, streams));
  state.mark("ShortScaleAspectJitter");
  random_flip(state, streams);
  state.mark("RandomFlip");
  TF_RETURN_IF_ERROR(imgaug_random_rotate(state, streams));
  state.mark("RandomRotate");
  if (!state.dropped.empty()) return Status();
  TF_RETURN_IF_ERROR(text_det_random_crop(state, streams));
  state.mark("TextDetRandomCrop");
  pad_to_target(state);
  state.mark("Pad");
  return Status();
}

}  // namespace

Status run_psenet(ChainState& state, ChainStreams& streams) {
  state.mark("ColorJitter");  // torch draws only; colour leaves the geometry alone
  auto kept = fix_invalid_polygons(state);
  if (!kept.ok()) return kept.status();
  if (!*kept) state.dropped = "FixInvalidPolygon";
  state.mark("FixInvalidPolygon");
  if (!state.dropped.empty()) return Status();
  return shared_steps(state, streams);
}

Status run_panet(ChainState& state, ChainStreams& streams) {
  TF_RETURN_IF_ERROR(shared_steps(state, streams));
  if (state.dropped.empty()) state.mark("ColorJitter");
  return Status();
}

}  // namespace textfeed::augment::mmocr
