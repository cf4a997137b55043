// warp_to_crop: compose the decode scale into the plan's matrix, resize the axes it scales as PIL
// does (only the part the crop reads), then the bilinear step straight into the caller's crop.
#include "augment/warp.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "augment/resample.h"

namespace textfeed::augment {
namespace {

using internal::BilinearJob;
using internal::bilinear_warp;
using internal::pil_horizontal;
using internal::pil_taps;
using internal::pil_vertical;

// The bilinear step from `from` into `out` through m (from -> out): it reads the inverse.
BilinearJob bilinear_job(const MutableImageView& out, const ImageView& from, const double m[6]) {
  const double d = m[0] * m[4] - m[1] * m[3];
  BilinearJob job{from.data, from.stride_bytes, from.width, from.height, out.data, out.stride_bytes, out.width,
                  out.height, {}};
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

}  // namespace

double max_scale(const double m[6]) { return std::max(std::hypot(m[0], m[3]), std::hypot(m[1], m[4])); }

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

std::optional<SourceBounds> crop_source_bounds(const double m[6], int crop) { return crop_source_bounds(m, crop, crop); }

std::optional<SourceBounds> crop_source_bounds(const double m[6], int width, int height) {
  const double det = m[0] * m[4] - m[1] * m[3];
  if (!(std::abs(det) > 0) || !std::isfinite(det)) return std::nullopt;
  const double ia = m[4] / det, ib = -m[1] / det, ic = -m[3] / det, id = m[0] / det;
  SourceBounds b{1e300, 1e300, -1e300, -1e300};
  for (const double cx : {-0.5, width - 0.5})
    for (const double cy : {-0.5, height - 0.5}) {
      const double x = ia * (cx - m[2]) + ib * (cy - m[5]), y = ic * (cx - m[2]) + id * (cy - m[5]);
      b.x0 = std::min(b.x0, x), b.x1 = std::max(b.x1, x), b.y0 = std::min(b.y0, y), b.y1 = std::max(b.y1, y);
    }
  return b;
}

Status warp_to_crop(const MutableImageView& out, const ImageView& src, const double matrix[6], double src_scale,
                    WarpScratch& scratch, const SourceFrame& frame_in) {
  if (src.empty() || src.channels != 3 || src.dtype != DType::kU8)
    return Status::invalid_argument("warp: source must be a non-empty RGB uint8 image");
  if (out.empty() || out.channels != 3 || out.dtype != DType::kU8)
    return Status::invalid_argument("warp: output must be an RGB uint8 view");
  if (!(src_scale > 0)) return Status::invalid_argument("warp: src_scale must be positive");
  const SourceFrame f = frame_in.width > 0 ? frame_in : SourceFrame{src.width, src.height, 0, 0};
  if (f.x0 < 0 || f.y0 < 0 || f.width < 1 || f.height < 1 || f.x0 > f.width - src.width ||
      f.y0 > f.height - src.height)
    return Status::invalid_argument("warp: the frame does not hold the source view");
  double m[6];
  std::copy(matrix, matrix + 6, m);
  if (src_scale != 1.0) compose_scale(m, src_scale, src_scale);
  const double det = m[0] * m[4] - m[1] * m[3];
  if (!(std::abs(det) > 0) || !std::isfinite(det) || !std::isfinite(m[2]) || !std::isfinite(m[5]))
    return Status::invalid_argument("warp: singular matrix");
  const auto black = [&] {
    for (int y = 0; y < out.height; ++y) std::fill_n(out.row(y), static_cast<size_t>(out.width) * 3, uint8_t{0});
    return Status();
  };
  const AxisScales sh = axis_scales(m, src_scale != 1.0);
  // A rotation without a resize still goes through the banded path below, the rows copied instead
  // of resized: a rotated row reads a cache line from each of ~100 source rows, which no hardware
  // prefetcher predicts, while a band's rows just copied are in the cache.
  const bool copy_rows = !sh.resize_x && !sh.resize_y && m[3] != 0;
  ImageView from = src;
  if (sh.resize_x || sh.resize_y || copy_rows) {
    // PIL's resize of the scaled axes, on the grid of the whole image (out_size =
    // round(size * scale)), for the part the crop reads only: the crop's inverse image in resized
    // pixels, 3 more on each side for the bilinear step, and no pixel whose filter reaches past
    // the view (a window holds what the crop reads and more; see loader/producer.cc). From here
    // on, source coordinates are the whole image's: g = m with the view's origin moved to (x0, y0).
    const double g[6] = {m[0], m[1], m[2] - m[0] * f.x0 - m[1] * f.y0, m[3], m[4], m[5] - m[3] * f.x0 - m[4] * f.y0};
    const SourceBounds b = *crop_source_bounds(g, out.width, out.height);  // det was checked above
    const int nx = sh.resize_x ? resized_size(f.width, sh.sx) : f.width;
    const int ny = sh.resize_y ? resized_size(f.height, sh.sy) : f.height;
    const double kx = static_cast<double>(f.width) / nx, ky = static_cast<double>(f.height) / ny;
    // Resized pixels [a, z) of an axis: those the crop reads whose filter stays in the view's
    // [lo, hi) source pixels. Taps are computed (into t) for the axes that resize.
    auto axis = [](bool resize, bool horizontal, double b0, double b1, double k, int size, int n, int lo,
                   int hi, internal::PilTaps& t, int& a, int& z) {
      a = static_cast<int>(std::clamp(std::floor((b0 + 0.5) / k - 0.5) - 3, 0.0, static_cast<double>(n)));
      z = static_cast<int>(std::clamp(std::ceil((b1 + 0.5) / k - 0.5) + 4, 0.0, static_cast<double>(n)));
      if (!resize) {
        a = std::max(a, lo), z = std::min(z, hi);
        return;
      }
      if (z <= a) return;
      pil_taps(size, n, a, z, horizontal, t);
      int a2 = a, z2 = z;  // `first` grows with the output pixel: trim from both ends
      while (a2 < z2 && t.first[static_cast<size_t>(a2 - a)] < lo) ++a2;
      while (z2 > a2 && t.first[static_cast<size_t>(z2 - 1 - a)] + t.taps > hi) --z2;
      if (a2 != a || z2 != z) {
        if (z2 > a2) pil_taps(size, n, a2, z2, horizontal, t);
        a = a2, z = z2;
      }
    };
    int j0, j1, i0, i1;
    axis(sh.resize_x, true, b.x0, b.x1, kx, f.width, nx, f.x0, f.x0 + src.width, scratch.taps_x, j0, j1);
    axis(sh.resize_y, false, b.y0, b.y1, ky, f.height, ny, f.y0, f.y0 + src.height, scratch.taps_y, i0, i1);
    if (j1 <= j0 || i1 <= i0) return black();  // the crop reads nothing of the source
    // The whole image's columns and rows the two passes read.
    const int c0 = sh.resize_x ? scratch.taps_x.min_source() : j0;
    const int r0 = sh.resize_y ? scratch.taps_y.min_source() : i0, r1 = sh.resize_y ? scratch.taps_y.end_source() : i1;
    const int cols = j1 - j0, rows = i1 - i0;
    // The resized part a rotated crop of this size reads at most: its bounding box (sides up to
    // sqrt(2) times the crop's) with the margins.
    const double side = 1.45 * std::max(out.width, out.height) + 16;
    const double expect = side * side * 3;
    // `in` starts at whole-image row in_row0, column c0 (or the horizontal pass's first column).
    const uint8_t* in = src.data + static_cast<ptrdiff_t>(r0 - f.y0) * src.stride_bytes;
    ptrdiff_t in_stride = src.stride_bytes;
    const int in_row0 = r0;
    if (sh.resize_x) {  // horizontal first, as PIL: rows r0..r1, resized columns j0..j1
      grow(scratch.horizontal, static_cast<size_t>(r1 - r0) * cols * 3,
           static_cast<size_t>(expect * (sh.resize_y ? std::max(1.0, 1.0 / sh.sy) : 1.0)));
      pil_horizontal(in, in_stride, f.x0, r1 - r0, scratch.taps_x, scratch.horizontal.data(),
                     static_cast<ptrdiff_t>(cols) * 3);
      in = scratch.horizontal.data();
      in_stride = static_cast<ptrdiff_t>(cols) * 3;
    } else {
      in += 3 * static_cast<ptrdiff_t>(c0 - f.x0);
    }
    // The vertical pass's input; its output rows are made band by band below, just before the
    // bilinear step reads them (they are then still in the cache).
    const uint8_t* v_in = in;
    const ptrdiff_t v_stride = in_stride;
    const bool banded = sh.resize_y || copy_rows;
    if (banded) {
      grow(scratch.resized, static_cast<size_t>(rows) * cols * 3, static_cast<size_t>(expect));
      in = scratch.resized.data();
      in_stride = static_cast<ptrdiff_t>(cols) * 3;
    }
    from = ImageView{in, rows, cols, 3, in_stride, DType::kU8};
    // Resized pixel (u, v) of this part -> whole-image pixel: x = (u + j0 + 0.5) kx - 0.5.
    const double bx = (j0 + 0.5) * kx - 0.5, by = (i0 + 0.5) * ky - 0.5;
    const double r[6] = {g[0] * kx, g[1] * ky, g[0] * bx + g[1] * by + g[2],
                         g[3] * kx, g[4] * ky, g[3] * bx + g[4] * by + g[5]};
    std::copy(r, r + 6, m);
    if (banded) {
      const BilinearJob job = bilinear_job(out, from, m);
      read_spans(job, rows, cols, scratch.spans);
      const int32_t* spans = scratch.spans.data();
      // Each band of destination rows reads resized rows between the least and the greatest v of
      // its corners (v is affine), plus the bilinear neighbour: make those not made yet. Made rows
      // stay one interval [lo, hi) (bands are adjacent, so their row ranges overlap or touch).
      constexpr int kBand = 32;
      int lo = 0, hi = 0;
      for (int y = 0; y < out.height; y += kBand) {
        const int y1 = std::min(y + kBand, out.height);
        double vmin = 1e300, vmax = -1e300;
        for (const int cy : {y, y1 - 1})
          for (const int cx : {0, out.width - 1}) {
            const double v = job.inv[3] * cx + job.inv[4] * cy + job.inv[5];
            vmin = std::min(vmin, v), vmax = std::max(vmax, v);
          }
        const int need0 = static_cast<int>(std::clamp(std::floor(vmin) - 1, 0.0, static_cast<double>(rows)));
        const int need1 = static_cast<int>(std::clamp(std::floor(vmax) + 3, 0.0, static_cast<double>(rows)));
        auto make = [&](int a, int z) {  // rows [a, z) of this part (whole-image rows i0 + a ...)
          if (z <= a) return;
          if (sh.resize_y) {
            pil_vertical(v_in, v_stride, in_row0, cols * 3, scratch.taps_y, scratch.resized.data(),
                         in_stride, i0 + a, i0 + z, spans);
            return;
          }
          for (int k = a; k < z; ++k)  // v_in holds rows i0.. (r0 = i0 when y is not resized)
            if (spans[2 * k + 1] > spans[2 * k])
              std::memcpy(scratch.resized.data() + k * in_stride + spans[2 * k],
                          v_in + k * v_stride + spans[2 * k],
                          static_cast<size_t>(spans[2 * k + 1] - spans[2 * k]));
        };
        if (hi <= lo) {
          make(need0, need1), lo = need0, hi = need1;
        } else {
          if (need0 < lo) make(need0, lo), lo = need0;
          if (need1 > hi) make(hi, need1), hi = need1;
        }
        internal::bilinear_warp_rows(job, y, y1);
      }
      return Status();
    }
  }
  bilinear_warp(bilinear_job(out, from, m));
  return Status();
}

}  // namespace textfeed::augment
