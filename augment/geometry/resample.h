// The resampling kernels under the one warp (augment/geometry/warp.h) and the inference resize
// (augment/inference.h): PIL's separable bilinear (triangle) resize, pass by pass and for a part of
// the output only, and a bilinear affine warp in 6-bit fixed point. Each has a baseline build and,
// on x86-64 CPUs with AVX2, a second build (resample_avx2.cc) chosen at run time; both give the
// same bytes. Internal to augment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace textfeed::augment::internal {

// PIL's weights for output pixels [begin, end) of a resize of one axis from `in_size` to
// `out_size` pixels (its precompute_coeffs for the triangle filter, whose support is one pixel
// widened by the downscale, then its normalize_coeffs to 22-bit fixed point). Every output has
// exactly `taps` weights (the widest of PIL's windows in the range) starting at source pixel
// first[o - begin]: PIL's window, moved inwards at the edges and padded with zero weights, so that
// a pass needs no per-pixel count. The weights are nonnegative (a triangle filter).
struct PilTaps {
  int begin = 0, end = 0, taps = 0;
  std::vector<int> first;
  std::vector<int32_t> weights;  // (end - begin) x taps
  std::vector<int16_t> packed;  // the same weights as the AVX2 horizontal pass reads them, or empty
  int min_source() const { return first.empty() ? 0 : first.front(); }
  int end_source() const { return first.empty() ? 0 : first.back() + taps; }
};
// Reuses t's buffers (no allocation once they have grown). in_size, out_size >= 1;
// 0 <= begin < end <= out_size. `horizontal`: also lay the weights out for the AVX2 horizontal
// pass (`packed`; without it that pass runs its baseline loop).
void pil_taps(int in_size, int out_size, int begin, int end, bool horizontal, PilTaps& t);

// PIL's horizontal pass: `rows` rows of 3-channel pixels, source column c at in + 3 (c - in_col0),
// into t.end - t.begin pixels per row at `out`. Rounded and clamped as PIL does.
void pil_horizontal(const uint8_t* in, ptrdiff_t in_stride, int in_col0, int rows, const PilTaps& t,
                    uint8_t* out, ptrdiff_t out_stride);
// PIL's vertical pass: output rows [from, to) (within [t.begin, t.end)), row o at out + (o -
// t.begin) * out_stride, from source rows t.first[o - t.begin] ..., source row r at in + (r -
// in_row0) * in_stride; `bytes` bytes per row. `out` must not overlap the source rows. With
// `spans`, row o makes only its bytes [spans[2 (o - t.begin)], spans[2 (o - t.begin) + 1]) (within
// [0, bytes)) and leaves the others as they were.
void pil_vertical(const uint8_t* in, ptrdiff_t in_stride, int in_row0, int bytes, const PilTaps& t,
                  uint8_t* out, ptrdiff_t out_stride, int from, int to,
                  const int32_t* spans = nullptr);

// Bilinear warp into `dst` (dst_w x dst_h, 3 channels) of `src` through `inv`, which maps a
// destination pixel centre (x, y) to the source: (inv[0] x + inv[1] y + inv[2], inv[3] x + inv[4] y
// + inv[5]). Source coordinates are taken in 1/64 px (float32 arithmetic, rounded to nearest),
// neighbours outside the source count as black (OpenCV's BORDER_CONSTANT 0).
struct BilinearJob {
  const uint8_t* src;
  ptrdiff_t src_stride;
  int src_w, src_h;
  uint8_t* dst;
  ptrdiff_t dst_stride;
  int dst_w, dst_h;
  double inv[6];
};
void bilinear_warp(const BilinearJob& job);
// Destination rows [y_begin, y_end) of it.
void bilinear_warp_rows(const BilinearJob& job, int y_begin, int y_end);

// The baseline build of each, whatever the CPU (for tests that compare the two).
namespace baseline {
void pil_horizontal(const uint8_t* in, ptrdiff_t in_stride, int in_col0, int rows, const PilTaps& t,
                    uint8_t* out, ptrdiff_t out_stride);
void pil_vertical(const uint8_t* in, ptrdiff_t in_stride, int in_row0, int bytes, const PilTaps& t,
                  uint8_t* out, ptrdiff_t out_stride, int from, int to,
                  const int32_t* spans = nullptr);
void bilinear_rows(const BilinearJob& job, int y_begin, int y_end);
}  // namespace baseline

}  // namespace textfeed::augment::internal
