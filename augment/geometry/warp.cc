// warp_to_crop: compose the decode scale into the plan's matrix, resize the axes it scales as PIL
// does (only the part the crop reads), then the bilinear step straight into the caller's crop.
#include "augment/geometry/warp.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <utility>

#include "augment/geometry/resample.h"

namespace textfeed::augment {
namespace {

using internal::bilinear_warp;
using internal::BilinearJob;
using internal::pil_horizontal;
using internal::pil_taps;
using internal::pil_vertical;

// The bilinear step from `from` into `out` through m (from -> out): it reads the inverse.
BilinearJob bilinear_job(const MutableImageView& out, const ImageView& from, const double m[6]) {
  const double d = m[0] * m[4] - m[1] * m[3];
  BilinearJob job{from.data,        from.stride_bytes, from.width, from.height, out.data,
                  out.stride_bytes, out.width,         out.height, {}};
  job.inv[0] = m[4] / d, job.inv[1] = -m[1] / d, job.inv[3] = -m[3] / d, job.inv[4] = m[0] / d;
  job.inv[2] = -(job.inv[0] * m[2] + job.inv[1] * m[5]);
  job.inv[5] = -(job.inv[3] * m[2] + job.inv[4] * m[5]);
  return job;
}

// Grows a buffer to n bytes, and at once to `expect` (what any rotation of this crop may need),
// so that samples after the first do not touch fresh pages again.
void grow(std::vector<uint8_t>& v, size_t n, size_t expect) {
  if (v.size() < n) v.resize(std::max(n + n / 4, expect));
}

// m := m * S, where S maps pixel x of an image scaled by `s` (centre convention) to the unscaled
// image: x_full = (x + 0.5) / s - 0.5.
void compose_scale(double m[6], double sx, double sy) {
  const double ax = 1 / sx, bx = 0.5 / sx - 0.5, ay = 1 / sy, by = 0.5 / sy - 0.5;
  const double r[6] = {m[0] * ax, m[1] * ay, m[0] * bx + m[1] * by + m[2],
                       m[3] * ax, m[4] * ay, m[3] * bx + m[4] * by + m[5]};
  std::copy(r, r + 6, m);
}

// The bytes of each of `rows` source rows (of `cols` pixels) that the bilinear step of `job` reads,
// as [begin, end) pairs: the step reads rows floor(v) and floor(v) + 1 and columns floor(u) and
// floor(u) + 1 (u, v rounded to 1/64 px), so a row's span covers the u of every destination pixel
// whose v lies within a pixel of it, with a pixel more on each side. u is affine, so over the
// destination rectangle cut by that band of v it is extreme at a vertex: a corner inside the band
// or where an edge crosses one of the band's lines. A row no pixel reads gets an empty span. A
// rotated crop reads a parallelogram of its bounding box: this leaves the rest unmade.
void read_spans(const BilinearJob& job, int rows, int cols, std::vector<int32_t>& spans) {
  spans.resize(2 * static_cast<size_t>(rows));
  const double* m = job.inv;
  const double xs[4] = {0, job.dst_w - 1.0, job.dst_w - 1.0, 0},
               ys[4] = {0, 0, job.dst_h - 1.0, job.dst_h - 1.0};
  double vs[4];
  for (int i = 0; i < 4; ++i) vs[i] = m[3] * xs[i] + m[4] * ys[i] + m[5];
  for (int k = 0; k < rows; ++k) {
    const double lo = k - 1.05, hi = k + 1.05;
    double umin = 1e300, umax = -1e300;
    const auto take = [&](double x, double y) {
      const double u = m[0] * x + m[1] * y + m[2];
      umin = std::min(umin, u), umax = std::max(umax, u);
    };
    for (int i = 0; i < 4; ++i) {
      const int j = (i + 1) % 4;
      if (vs[i] >= lo && vs[i] <= hi) take(xs[i], ys[i]);
      for (const double line : {lo, hi})
        if ((vs[i] - line) * (vs[j] - line) < 0) {
          const double t = (line - vs[i]) / (vs[j] - vs[i]);
          take(xs[i] + t * (xs[j] - xs[i]), ys[i] + t * (ys[j] - ys[i]));
        }
    }
    int c0 = 0, c1 = 0;
    if (umin <= umax) {
      c0 =
          static_cast<int>(std::clamp(std::floor(umin - 0.05) - 1, 0.0, static_cast<double>(cols)));
      c1 = static_cast<int>(std::clamp(std::floor(umax + 0.05) + 3, static_cast<double>(c0),
                                       static_cast<double>(cols)));
    }
    spans[2 * static_cast<size_t>(k)] = 3 * c0, spans[2 * static_cast<size_t>(k) + 1] = 3 * c1;
  }
}

// Destination rows per band of the banded path: the resized rows a band reads are made just
// before it reads them, while they are still in the cache.
constexpr int kBandRows = 32;
// The resized part that a rotated crop reads at most: its bounding box, whose side is up to
// sqrt(2) times the crop's longer side (kBoxSideScale: a little over), plus the part's margins
// (kSpareResizedPx on each side, with room to spare). Scratch buffers grow to that at once
// (grow()).
constexpr double kBoxSideScale = 1.45;
constexpr double kBoxMarginPx = 16;
// Resized pixels the part keeps beyond the crop's inverse image on each side of an axis, for the
// bilinear step.
constexpr int kSpareResizedPx = 3;

// The view's place in the image it was cut from (the whole image when `frame` is empty), after
// checking the views and the scale as warp_to_crop documents.
Result<SourceFrame> checked_frame(const MutableImageView& out, const ImageView& src,
                                  double src_scale, const SourceFrame& frame) {
  if (src.empty() || src.channels != 3 || src.dtype != DType::kU8)
    return Status::invalid_argument("warp: source must be a non-empty RGB uint8 image");
  if (out.empty() || out.channels != 3 || out.dtype != DType::kU8)
    return Status::invalid_argument("warp: output must be an RGB uint8 view");
  if (!(src_scale > 0)) return Status::invalid_argument("warp: src_scale must be positive");
  const SourceFrame f = frame.width > 0 ? frame : SourceFrame{src.width, src.height, 0, 0};
  if (f.x0 < 0 || f.y0 < 0 || f.width < 1 || f.height < 1 || f.x0 > f.width - src.width ||
      f.y0 > f.height - src.height)
    return Status::invalid_argument("warp: the frame does not hold the source view");
  return f;
}

void fill_black(const MutableImageView& out) {
  for (int y = 0; y < out.height; ++y)
    std::fill_n(out.row(y), static_cast<size_t>(out.width) * 3, uint8_t{0});
}

// One axis of the whole image in the resize: `size` pixels resized to `n` (`k` = size / n image
// pixels per resized pixel; not resized: n = size), of which the view holds [lo, hi).
struct AxisGrid {
  bool resize, horizontal;
  int size, n;
  double k;
  int lo, hi;
};

// Resized pixels [a, z) of an axis: those the crop reads (its inverse image is [b0, b1] in image
// pixels) whose filter stays in the view. Computes the taps into t when the axis resizes.
std::pair<int, int> resized_range(const AxisGrid& g, double b0, double b1, internal::PilTaps& t) {
  const double n = g.n;
  int a =
      static_cast<int>(std::clamp(std::floor((b0 + 0.5) / g.k - 0.5) - kSpareResizedPx, 0.0, n));
  int z = static_cast<int>(
      std::clamp(std::ceil((b1 + 0.5) / g.k - 0.5) + (kSpareResizedPx + 1), 0.0, n));
  if (!g.resize) return {std::max(a, g.lo), std::min(z, g.hi)};
  if (z <= a) return {a, z};
  pil_taps(g.size, g.n, a, z, g.horizontal, t);
  int a2 = a, z2 = z;  // `first` grows with the output pixel: trim from both ends
  while (a2 < z2 && t.first[static_cast<size_t>(a2 - a)] < g.lo) ++a2;
  while (z2 > a2 && t.first[static_cast<size_t>(z2 - 1 - a)] + t.taps > g.hi) --z2;
  if (a2 != a || z2 != z) {
    if (z2 > a2) pil_taps(g.size, g.n, a2, z2, g.horizontal, t);
    a = a2, z = z2;
  }
  return {a, z};
}

// The part of the resized image that the crop reads: resized columns [j0, j1), rows [i0, i1).
struct ResizedPart {
  int j0 = 0, j1 = 0, i0 = 0, i1 = 0;
  double kx = 1, ky = 1;  // image pixels per resized pixel
  int cols() const { return j1 - j0; }
  int rows() const { return i1 - i0; }
};

// The part, for g (m with the view's origin moved to the frame's): the crop's inverse image in
// resized pixels, kSpareResizedPx more on each side for the bilinear step, and no pixel whose
// filter reaches past the view (a window holds what the crop reads and more; see
// loader/pipeline/producer.cc). Taps into scratch for the axes that resize.
ResizedPart plan_part(const MutableImageView& out, const ImageView& src, const SourceFrame& f,
                      const double g[6], const AxisScales& sh, WarpScratch& scratch) {
  const SourceBounds b = *crop_source_bounds(g, out.width, out.height);  // det was checked
  const int nx = sh.resize_x ? resized_size(f.width, sh.sx) : f.width;
  const int ny = sh.resize_y ? resized_size(f.height, sh.sy) : f.height;
  ResizedPart p;
  p.kx = static_cast<double>(f.width) / nx, p.ky = static_cast<double>(f.height) / ny;
  const AxisGrid x{sh.resize_x, true, f.width, nx, p.kx, f.x0, f.x0 + src.width};
  const AxisGrid y{sh.resize_y, false, f.height, ny, p.ky, f.y0, f.y0 + src.height};
  std::tie(p.j0, p.j1) = resized_range(x, b.x0, b.x1, scratch.taps_x);
  std::tie(p.i0, p.i1) = resized_range(y, b.y0, b.y1, scratch.taps_y);
  return p;
}

// Rows of pixels in memory: row r of the image at data + (r - row0) * stride.
struct Rows {
  const uint8_t* data;
  ptrdiff_t stride;
  int row0;
};

// What the vertical pass (or the row copy) reads, starting at the part's first column: the
// horizontal pass's output (made here, as PIL does it first) when x resizes, else the view.
Rows horizontal_pass(const ImageView& src, const SourceFrame& f, const AxisScales& sh,
                     const ResizedPart& p, double expect, WarpScratch& scratch) {
  // The image's rows the two passes read.
  const int r0 = sh.resize_y ? scratch.taps_y.min_source() : p.i0;
  const int r1 = sh.resize_y ? scratch.taps_y.end_source() : p.i1;
  const uint8_t* in = src.data + static_cast<ptrdiff_t>(r0 - f.y0) * src.stride_bytes;
  if (!sh.resize_x) return {in + 3 * static_cast<ptrdiff_t>(p.j0 - f.x0), src.stride_bytes, r0};
  const int cols = p.cols();
  grow(scratch.horizontal, static_cast<size_t>(r1 - r0) * cols * 3,
       static_cast<size_t>(expect * (sh.resize_y ? std::max(1.0, 1.0 / sh.sy) : 1.0)));
  pil_horizontal(in, src.stride_bytes, f.x0, r1 - r0, scratch.taps_x, scratch.horizontal.data(),
                 static_cast<ptrdiff_t>(cols) * 3);
  return {scratch.horizontal.data(), static_cast<ptrdiff_t>(cols) * 3, r0};
}

// Makes rows [a, z) of the part in scratch.resized (image rows i0 + a ...), each only where the
// bilinear step reads it (spans): by the vertical pass, or copied when y does not resize.
void make_rows(const Rows& v_in, const ResizedPart& p, bool resize_y, WarpScratch& scratch, int a,
               int z) {
  if (z <= a) return;
  const int32_t* spans = scratch.spans.data();
  const ptrdiff_t stride = static_cast<ptrdiff_t>(p.cols()) * 3;
  if (resize_y) {
    pil_vertical(v_in.data, v_in.stride, v_in.row0, p.cols() * 3, scratch.taps_y,
                 scratch.resized.data(), stride, p.i0 + a, p.i0 + z, spans);
    return;
  }
  for (int k = a; k < z; ++k)  // v_in holds rows i0.. (row0 = i0 when y is not resized)
    if (spans[2 * k + 1] > spans[2 * k])
      std::memcpy(scratch.resized.data() + k * stride + spans[2 * k],
                  v_in.data + k * v_in.stride + spans[2 * k],
                  static_cast<size_t>(spans[2 * k + 1] - spans[2 * k]));
}

// The resized rows [need0, need1) that destination rows [y, y1) of `job` read: between the least
// and the greatest v of the band's corners (v is affine), plus the bilinear neighbour.
std::pair<int, int> band_rows(const BilinearJob& job, int y, int y1, int rows) {
  double vmin = 1e300, vmax = -1e300;
  for (const int cy : {y, y1 - 1})
    for (const int cx : {0, job.dst_w - 1}) {
      const double v = job.inv[3] * cx + job.inv[4] * cy + job.inv[5];
      vmin = std::min(vmin, v), vmax = std::max(vmax, v);
    }
  return {static_cast<int>(std::clamp(std::floor(vmin) - 1, 0.0, static_cast<double>(rows))),
          static_cast<int>(std::clamp(std::floor(vmax) + 3, 0.0, static_cast<double>(rows)))};
}

// The bilinear step band by band from the part (r: part -> crop), each band's resized rows made
// just before it reads them. Made rows stay one interval [lo, hi) (bands are adjacent, so their
// row ranges overlap or touch).
void warp_banded(const MutableImageView& out, const Rows& v_in, const ResizedPart& p,
                 const double r[6], bool resize_y, double expect, WarpScratch& scratch) {
  const int rows = p.rows(), cols = p.cols();
  grow(scratch.resized, static_cast<size_t>(rows) * cols * 3, static_cast<size_t>(expect));
  const ImageView from{scratch.resized.data(),           rows,      cols, 3,
                       static_cast<ptrdiff_t>(cols) * 3, DType::kU8};
  const BilinearJob job = bilinear_job(out, from, r);
  read_spans(job, rows, cols, scratch.spans);
  int lo = 0, hi = 0;
  for (int y = 0; y < out.height; y += kBandRows) {
    const int y1 = std::min(y + kBandRows, out.height);
    const auto [need0, need1] = band_rows(job, y, y1, rows);
    if (hi <= lo) {
      make_rows(v_in, p, resize_y, scratch, need0, need1), lo = need0, hi = need1;
    } else {
      if (need0 < lo) make_rows(v_in, p, resize_y, scratch, need0, lo), lo = need0;
      if (need1 > hi) make_rows(v_in, p, resize_y, scratch, hi, need1), hi = need1;
    }
    internal::bilinear_warp_rows(job, y, y1);
  }
}

// warp_to_crop through PIL's resize of the axes m scales, on the grid of the whole image (out_size
// = round(size * scale)), for the part the crop reads only; then the bilinear step from the part.
void warp_resized(const MutableImageView& out, const ImageView& src, const SourceFrame& f,
                  const double m[6], const AxisScales& sh, bool copy_rows, WarpScratch& scratch) {
  // From here on, source coordinates are the whole image's: g = m with the view's origin moved to
  // (x0, y0).
  const double g[6] = {m[0], m[1], m[2] - m[0] * f.x0 - m[1] * f.y0,
                       m[3], m[4], m[5] - m[3] * f.x0 - m[4] * f.y0};
  const ResizedPart p = plan_part(out, src, f, g, sh, scratch);
  if (p.cols() <= 0 || p.rows() <= 0) return fill_black(out);  // the crop reads nothing of src
  const double side = kBoxSideScale * std::max(out.width, out.height) + kBoxMarginPx;
  const double expect = side * side * 3;  // bytes
  const Rows in = horizontal_pass(src, f, sh, p, expect, scratch);
  // Resized pixel (u, v) of the part -> image pixel: x = (u + j0 + 0.5) kx - 0.5.
  const double bx = (p.j0 + 0.5) * p.kx - 0.5, by = (p.i0 + 0.5) * p.ky - 0.5;
  const double r[6] = {g[0] * p.kx, g[1] * p.ky, g[0] * bx + g[1] * by + g[2],
                       g[3] * p.kx, g[4] * p.ky, g[3] * bx + g[4] * by + g[5]};
  if (sh.resize_y || copy_rows) return warp_banded(out, in, p, r, sh.resize_y, expect, scratch);
  bilinear_warp(
      bilinear_job(out, ImageView{in.data, p.rows(), p.cols(), 3, in.stride, DType::kU8}, r));
}

}  // namespace

double max_scale(const double m[6]) {
  return std::max(std::hypot(m[0], m[3]), std::hypot(m[1], m[4]));
}

AxisScales axis_scales(const double m[6], bool dct_scaled) {
  AxisScales a;
  a.sx = std::hypot(m[0], m[3]), a.sy = std::hypot(m[1], m[4]);
  auto resize = [&](double s) {
    return s < 1 - kUnitScaleTolerance || (!dct_scaled && s > 1 + kUnitScaleTolerance);
  };
  a.resize_x = resize(a.sx), a.resize_y = resize(a.sy);
  return a;
}

int resized_size(int size, double scale) {
  return static_cast<int>(std::clamp(std::nearbyint(size * scale), 1.0, 2147483647.0 / 4));
}

double read_margin(const double m[6]) {
  const AxisScales a = axis_scales(m);
  return 2.0 + 5.0 / std::min({a.sx, a.sy, 1.0});
}

std::optional<SourceBounds> crop_source_bounds(const double m[6], int crop) {
  return crop_source_bounds(m, crop, crop);
}

std::optional<SourceBounds> crop_source_bounds(const double m[6], int width, int height) {
  const double det = m[0] * m[4] - m[1] * m[3];
  if (!(std::abs(det) > 0) || !std::isfinite(det)) return std::nullopt;
  const double ia = m[4] / det, ib = -m[1] / det, ic = -m[3] / det, id = m[0] / det;
  SourceBounds b{1e300, 1e300, -1e300, -1e300};
  for (const double cx : {-0.5, width - 0.5})
    for (const double cy : {-0.5, height - 0.5}) {
      const double x = ia * (cx - m[2]) + ib * (cy - m[5]), y = ic * (cx - m[2]) + id * (cy - m[5]);
      b.x0 = std::min(b.x0, x), b.x1 = std::max(b.x1, x), b.y0 = std::min(b.y0, y),
      b.y1 = std::max(b.y1, y);
    }
  return b;
}

Status warp_to_crop(const MutableImageView& out, const ImageView& src, const double matrix[6],
                    double src_scale, WarpScratch& scratch, const SourceFrame& frame) {
  TF_ASSIGN_OR_RETURN(const SourceFrame f, checked_frame(out, src, src_scale, frame));
  double m[6];
  std::copy(matrix, matrix + 6, m);
  if (src_scale != 1.0) compose_scale(m, src_scale, src_scale);
  const double det = m[0] * m[4] - m[1] * m[3];
  if (!(std::abs(det) > 0) || !std::isfinite(det) || !std::isfinite(m[2]) || !std::isfinite(m[5]))
    return Status::invalid_argument("warp: singular matrix");
  const AxisScales sh = axis_scales(m, src_scale != 1.0);
  // A rotation without a resize still goes through the banded path, the rows copied instead of
  // resized: a rotated row reads a cache line from each of ~100 source rows, which no hardware
  // prefetcher predicts, while a band's rows just copied are in the cache.
  const bool copy_rows = !sh.resize_x && !sh.resize_y && m[3] != 0;
  if (sh.resize_x || sh.resize_y || copy_rows)
    warp_resized(out, src, f, m, sh, copy_rows, scratch);
  else
    bilinear_warp(bilinear_job(out, src, m));
  return Status();
}

}  // namespace textfeed::augment
