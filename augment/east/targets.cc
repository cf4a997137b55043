// EAST targets (docs/targets.md §3): one even-odd fill for the score, per-box geometry summed in
// float32 like numpy, computed only inside each box's bounds; the ROI mask rasterized at full
// resolution and resized bilinearly to the map, only over the cells that ignored words touch.
#include "augment/east/targets.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "augment/east/shrink.h"

namespace textfeed::augment {

struct TargetScratch::Buffers {
  std::vector<cv::Point> score_pts;    // 4 per polygon, map px
  std::vector<cv::Point> ignored_pts;  // 4 per polygon, map or crop px (see write_mask)
  std::vector<const cv::Point*> contours;
  std::vector<int> contour_sizes;
  std::vector<unsigned char> box_mask;  // one box's shrunk polygon inside its bounds
  std::vector<float> roi_full;          // crop px ROI canvas, all ones between calls
  int roi_side = 0;                     // side of roi_full; 0 = not yet allocated
  std::vector<float> owner_area;        // Overlap::kSmallest: area of the box owning a pixel
  std::vector<unsigned short> cover;    // Overlap::kIgnore: boxes covering a pixel
};

TargetScratch::TargetScratch() : buffers_(std::make_unique<Buffers>()) {}
TargetScratch::~TargetScratch() = default;
TargetScratch::TargetScratch(TargetScratch&&) noexcept = default;
TargetScratch& TargetScratch::operator=(TargetScratch&&) noexcept = default;
TargetScratch::Buffers& TargetScratch::buffers() {
  if (!buffers_) buffers_ = std::make_unique<Buffers>();
  return *buffers_;
}

namespace {

using Buffers = TargetScratch::Buffers;

bool usable(const Quad8& v) {
  for (double c : v)
    if (!(std::abs(c) <= kMaxTargetCoord)) return false;  // also false for NaN
  return true;
}

// int32(round_half_even(scale * v)) per vertex, appended to `pts` (nearbyint rounds half to even
// in the default FE_TONEAREST mode, as numpy's around does).
void append_poly(const Quad8& v, double scale, std::vector<cv::Point>& pts) {
  for (int i = 0; i < 4; ++i)
    pts.emplace_back(static_cast<int>(std::nearbyint(scale * v[2 * i])),
                     static_cast<int>(std::nearbyint(scale * v[2 * i + 1])));
}

// Fills the 4-point polygons of `pts` with `value`: one call (OpenCV's even-odd rule across
// polygons, as the reference) or one call per polygon (union).
void fill_polys(cv::Mat& target, const std::vector<cv::Point>& pts, FillRule rule, double value,
                cv::Point offset, Buffers& buf) {
  const int n = static_cast<int>(pts.size() / 4);
  if (n == 0) return;
  if (rule == FillRule::kUnion) {
    for (int k = 0; k < n; ++k) {
      const cv::Point* p = pts.data() + 4 * k;
      const int four = 4;
      cv::fillPoly(target, &p, &four, 1, cv::Scalar(value), cv::LINE_8, 0, offset);
    }
    return;
  }
  buf.contours.resize(n);
  buf.contour_sizes.assign(n, 4);
  for (int k = 0; k < n; ++k) buf.contours[k] = pts.data() + 4 * k;
  cv::fillPoly(target, buf.contours.data(), buf.contour_sizes.data(), n, cv::Scalar(value),
               cv::LINE_8, 0, offset);
}

// Row-wise std::fill: cv::Mat::setTo copies a scalar pattern in small blocks, several times slower
// for the float maps here.
void fill(cv::Mat plane, float value) {  // a header over the caller's pixels
  for (int i = 0; i < plane.rows; ++i) {
    float* row = plane.ptr<float>(i);
    std::fill(row, row + plane.cols, value);
  }
}

cv::Mat plane(const MutableImageView& v, int index, int m) {
  return cv::Mat(m, m, CV_32F, v.data + static_cast<ptrdiff_t>(index) * m * v.stride_bytes,
                 static_cast<size_t>(v.stride_bytes));
}

Status check_view(const MutableImageView& v, int h, int w, const char* name) {
  if (v.data == nullptr || v.dtype != DType::kF32 || v.height != h || v.width != w ||
      v.channels != 1 || v.stride_bytes < static_cast<ptrdiff_t>(w * sizeof(float)))
    return Status::invalid_argument(std::string("targets: view '") + name + "' must be float32 " +
                                    std::to_string(h) + "x" + std::to_string(w) + ", one channel");
  return Status();
}

struct Maps {
  int m;       // map side
  int stride;  // int(1 / map_scale): map pixel (i, j) samples crop point (j g, i g)
  cv::Mat score, mask, geo[5];
};

// Fills the shrunk polygon `poly` (4 map points) with 1 in buf.box_mask, a bounds.width x
// bounds.height canvas over its bounding box clipped to the m x m map; returns those bounds
// (empty, and the mask untouched, when the polygon lies off the map).
cv::Rect fill_box_mask(const cv::Point* poly, int m, Buffers& buf) {
  int x0 = poly[0].x, x1 = poly[0].x, y0 = poly[0].y, y1 = poly[0].y;
  for (int k = 1; k < 4; ++k) {
    x0 = std::min(x0, poly[k].x), x1 = std::max(x1, poly[k].x);
    y0 = std::min(y0, poly[k].y), y1 = std::max(y1, poly[k].y);
  }
  // fillPoly paints only inside the vertices' inclusive bounds.
  const cv::Rect bounds = cv::Rect(x0, y0, x1 - x0 + 1, y1 - y0 + 1) & cv::Rect(0, 0, m, m);
  if (bounds.empty()) return bounds;
  buf.box_mask.assign(static_cast<size_t>(bounds.area()), 0);
  cv::Mat box(bounds.height, bounds.width, CV_8U, buf.box_mask.data());
  const int four = 4;
  cv::fillPoly(box, &poly, &four, 1, cv::Scalar(1), cv::LINE_8, 0, -bounds.tl());
  return bounds;
}

// Geometry of one box (docs/targets.md §3.3) over the pixels of its own shrunk polygon `poly` (4
// map points), restricted to its bounding box.
void add_box_geometry(Maps& maps, const Quad8& v, const cv::Point* poly, const AugmentOptions& o,
                      Buffers& buf) {
  const cv::Rect bounds = fill_box_mask(poly, maps.m, buf);
  if (bounds.empty()) return;
  const cv::Mat box(bounds.height, bounds.width, CV_8U, buf.box_mask.data());

  const double theta = angle_rad(min_rect_angle_deg(v, o.angle_error));
  const float theta_f = static_cast<float>(theta);
  const double c = std::cos(theta), s = std::sin(theta);
  const Quad8 r = rotate_quad(v, theta);
  const double xmin = std::min({r[0], r[2], r[4], r[6]}), xmax = std::max({r[0], r[2], r[4], r[6]});
  const double ymin = std::min({r[1], r[3], r[5], r[7]}), ymax = std::max({r[1], r[3], r[5], r[7]});
  const double ax = v[0], ay = v[1];
  const float area = static_cast<float>((xmax - xmin) * (ymax - ymin));
  const int g = maps.stride;
  for (int i = bounds.y; i < bounds.br().y; ++i) {
    const unsigned char* mrow = box.ptr<unsigned char>(i - bounds.y) - bounds.x;
    float* g0 = maps.geo[0].ptr<float>(i);
    float* g1 = maps.geo[1].ptr<float>(i);
    float* g2 = maps.geo[2].ptr<float>(i);
    float* g3 = maps.geo[3].ptr<float>(i);
    float* g4 = maps.geo[4].ptr<float>(i);
    const double dy = static_cast<double>(i * g) - ay;
    for (int j = bounds.x; j < bounds.br().x; ++j) {
      if (!mrow[j]) continue;
      const double dx = static_cast<double>(j * g) - ax;
      const double rx = (c * dx + (-s) * dy) + ax;
      const double ry = (s * dx + c * dy) + ay;
      const double d1 = std::max(0.0, ry - ymin), d2 = std::max(0.0, ymax - ry);
      const double d3 = std::max(0.0, rx - xmin), d4 = std::max(0.0, xmax - rx);
      if (o.overlap == Overlap::kSum) {
        // numpy: float32 map += float64 value, cast back per addition; the angle adds in float32.
        g0[j] = static_cast<float>(static_cast<double>(g0[j]) + d1);
        g1[j] = static_cast<float>(static_cast<double>(g1[j]) + d2);
        g2[j] = static_cast<float>(static_cast<double>(g2[j]) + d3);
        g3[j] = static_cast<float>(static_cast<double>(g3[j]) + d4);
        g4[j] = g4[j] + theta_f;
        continue;
      }
      const size_t at = static_cast<size_t>(i) * maps.m + j;
      if (o.overlap == Overlap::kIgnore && buf.cover[at] < 0xffff) ++buf.cover[at];
      if (o.overlap == Overlap::kSmallest) {
        if (!(area < buf.owner_area[at])) continue;  // an earlier box at least as small keeps it
        buf.owner_area[at] = area;
      }
      g0[j] = static_cast<float>(d1), g1[j] = static_cast<float>(d2),
      g2[j] = static_cast<float>(d3);
      g3[j] = static_cast<float>(d4), g4[j] = theta_f;
    }
  }
}

// UP ROI (docs/targets.md §3.6): ones at crop resolution, ignored quads filled with 0, resized to
// the map. The crop canvas lives in the scratch and is all ones between calls; only the cells that
// ignored quads touch are resized and then reset. With an integer factor g (crop = M g) each output
// pixel reads only its own g x g cell, so resizing a cell-aligned sub-rectangle gives the same
// values as resizing the whole canvas, and untouched cells stay exactly 1 (the weights of a cell
// sum to 1). Other sizes resize the whole canvas.
void write_roi_from_crop(Maps& maps, int crop_size, const AugmentOptions& o, Buffers& buf) {
  const size_t pixels = static_cast<size_t>(crop_size) * crop_size;
  if (buf.roi_side != crop_size) {
    buf.roi_full.assign(pixels, 1.f);
    buf.roi_side = crop_size;
  }
  cv::Mat full(crop_size, crop_size, CV_32F, buf.roi_full.data());
  fill_polys(full, buf.ignored_pts, o.fill_rule, 0.0, cv::Point(), buf);
  const int interp = o.roi_resize == RoiResize::kNearest ? cv::INTER_NEAREST : cv::INTER_LINEAR;
  const int g = maps.stride;
  const cv::Rect crop(0, 0, crop_size, crop_size);
  const size_t n = buf.ignored_pts.size() / 4;
  if (maps.m * g != crop_size) {
    cv::resize(full, maps.mask, maps.mask.size(), 0, 0, interp);
  } else {
    fill(maps.mask, 1.f);
    // Overlapping rectangles resize the same final canvas twice: same values.
    for (size_t k = 0; k < n; ++k) {
      const cv::Rect b =
          cv::boundingRect(cv::Mat(4, 1, CV_32SC2, buf.ignored_pts.data() + 4 * k)) & crop;
      if (b.empty()) continue;
      const int x0 = b.x / g * g, y0 = b.y / g * g;
      const cv::Rect cells(x0, y0, (b.br().x + g - 1) / g * g - x0,
                           (b.br().y + g - 1) / g * g - y0);
      cv::Mat dst =
          maps.mask(cv::Rect(cells.x / g, cells.y / g, cells.width / g, cells.height / g));
      cv::resize(full(cells), dst, dst.size(), 0, 0, interp);
    }
  }
  // Back to all ones: only the ignored quads' bounds were written.
  for (size_t k = 0; k < n; ++k) {
    const cv::Rect b =
        cv::boundingRect(cv::Mat(4, 1, CV_32SC2, buf.ignored_pts.data() + 4 * k)) & crop;
    if (!b.empty()) fill(full(b), 1.f);
  }
}

void write_mask(Maps& maps, int crop_size, const AugmentOptions& o, Buffers& buf) {
  if (o.mask == MaskKind::kIgnored) {
    fill(maps.mask, 0.f);
    fill_polys(maps.mask, buf.ignored_pts, o.fill_rule, 1.0, cv::Point(), buf);
  } else if (buf.ignored_pts.empty()) {
    fill(maps.mask, 1.f);  // what any resize of an all-ones canvas gives
  } else if (o.roi_resize == RoiResize::kRasterizeAtMap) {
    fill(maps.mask, 1.f);
    fill_polys(maps.mask, buf.ignored_pts, o.fill_rule, 0.0, cv::Point(), buf);
  } else {
    write_roi_from_crop(maps, crop_size, o, buf);
  }
}

// Overlap::kIgnore: pixels claimed by two or more boxes get no targets and are masked out.
void drop_overlaps(Maps& maps, const AugmentOptions& o, const Buffers& buf) {
  const float masked = o.mask == MaskKind::kIgnored ? 1.f : 0.f;
  for (int i = 0; i < maps.m; ++i) {
    const unsigned short* cover = buf.cover.data() + static_cast<size_t>(i) * maps.m;
    for (int j = 0; j < maps.m; ++j) {
      if (cover[j] < 2) continue;
      for (cv::Mat& gc : maps.geo) gc.ptr<float>(i)[j] = 0;
      maps.score.ptr<float>(i)[j] = 0;
      maps.mask.ptr<float>(i)[j] = masked;
    }
  }
}

// Everything after the argument checks; OpenCV may throw only on a broken invariant.
void write_targets(const TargetViews& out, int m, std::span<const double> vertices,
                   std::span<const unsigned char> labels, int crop_size, const AugmentOptions& o,
                   Buffers& buf) {
  Maps maps{
      m, static_cast<int>(1.0 / o.map_scale), plane(out.score, 0, m), plane(out.mask, 0, m), {}};
  for (int c = 0; c < 5; ++c) {
    maps.geo[c] = plane(out.geo, c, m);
    fill(maps.geo[c], 0.f);
  }
  fill(maps.score, 0.f);
  if (o.overlap == Overlap::kIgnore) buf.cover.assign(static_cast<size_t>(m) * m, 0);
  if (o.overlap == Overlap::kSmallest)
    buf.owner_area.assign(static_cast<size_t>(m) * m, std::numeric_limits<float>::infinity());

  // The ROI is drawn at crop resolution unless asked for at the map; the ignored map at the map.
  const double ignored_scale =
      o.mask == MaskKind::kRoi && o.roi_resize != RoiResize::kRasterizeAtMap ? 1.0 : o.map_scale;
  buf.score_pts.clear();
  buf.ignored_pts.clear();
  for (size_t b = 0; b < labels.size(); ++b) {
    Quad8 v;
    std::copy_n(vertices.begin() + 8 * b, 8, v.begin());
    if (!usable(v)) continue;
    if (o.fix_orientation) v = order_clockwise(v);
    const bool ignored = labels[b] == 0;
    if (ignored) append_poly(v, ignored_scale, buf.ignored_pts);
    if (ignored && o.ignored_targets == IgnoredTargets::kNone) continue;
    append_poly(shrink_quad(v), o.map_scale, buf.score_pts);
    add_box_geometry(maps, v, buf.score_pts.data() + buf.score_pts.size() - 4, o, buf);
  }
  fill_polys(maps.score, buf.score_pts, o.fill_rule, 1.0, cv::Point(), buf);
  write_mask(maps, crop_size, o, buf);
  if (o.overlap == Overlap::kIgnore) drop_overlaps(maps, o, buf);
  if (o.clamp_geo > 0)
    for (int c = 0; c < 4; ++c) cv::min(maps.geo[c], o.clamp_geo, maps.geo[c]);
}

}  // namespace

Status make_targets(const TargetViews& out, std::span<const double> vertices,
                    std::span<const unsigned char> labels, int crop_size, const AugmentOptions& o,
                    TargetScratch& scratch) {
  if (!(o.map_scale > 0 && o.map_scale <= 1) || crop_size < 1)
    return Status::invalid_argument("targets: map_scale " + std::to_string(o.map_scale) +
                                    " must be in (0, 1] and crop_size " +
                                    std::to_string(crop_size) + " positive");
  const int m = static_cast<int>(crop_size * o.map_scale);
  TF_RETURN_IF_ERROR(check_view(out.score, m, m, "score"));
  TF_RETURN_IF_ERROR(check_view(out.geo, 5 * m, m, "geo"));
  TF_RETURN_IF_ERROR(check_view(out.mask, m, m, "mask"));
  if (vertices.size() != labels.size() * 8)
    return Status::invalid_argument("targets: " + std::to_string(vertices.size()) +
                                    " coordinates for " + std::to_string(labels.size()) +
                                    " labels (8 per quad)");
  Buffers& buf = scratch.buffers();
  try {
    write_targets(out, m, vertices, labels, crop_size, o, buf);
  } catch (const cv::Exception& e) {  // not expected after the checks above; keep it a value
    buf.roi_side = 0;                 // the canvas may be half drawn
    return Status::internal(std::string("targets: OpenCV: ") + e.what());
  }
  return Status();
}

// EastTargetBuilder: the tensors and the checks of the words around make_targets().
std::vector<TargetTensor> EastTargetBuilder::tensors(int crop_size) const {
  const int m = static_cast<int>(crop_size * options_.map_scale);  // AugmentOptions::map_size()
  return {
      {"score", DType::kF32, 1, m},
      {"geo", DType::kF32, 5, m},
      {options_.mask == MaskKind::kRoi ? "roi" : "ignored", DType::kF32, 1, m},
  };
}

Status EastTargetBuilder::build(std::span<const MutableImageView> out, const PolygonsView& words,
                                std::span<const unsigned char> labels, int crop_size) {
  if (out.size() != 3)
    return Status::invalid_argument("EAST targets: " + std::to_string(out.size()) +
                                    " views for 3 tensors (score, geo, mask)");
  if (!words.consistent())
    return Status::invalid_argument("EAST targets: " + std::to_string(words.xy.size()) +
                                    " coordinates do not make the polygons their ends say");
  for (size_t k = 0; k < words.size(); ++k)
    if (words.points(k) != 4)
      return Status::invalid_argument("EAST targets: word " + std::to_string(k) + " has " +
                                      std::to_string(words.points(k)) +
                                      " points; EAST takes quads");
  return make_targets(TargetViews{out[0], out[1], out[2]}, words.xy, labels, crop_size, options_,
                      scratch_);
}

}  // namespace textfeed::augment
