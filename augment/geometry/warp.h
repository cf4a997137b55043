// The one warp: source pixels -> the square crop, black outside the source (docs/design.md "One
// warp"). Along a source axis that the warp scales (axis_scales), the part of the source the crop
// reads is first resized as PIL's bilinear resize does (a triangle filter, widened by the downscale
// when it shrinks), as the references resize before they rotate; one bilinear step then does the
// rest (rotation, shift, a scale near 1).
#pragma once

#include <optional>
#include <vector>

#include "augment/geometry/resample.h"
#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment {

// Reusable buffers (per worker thread): they grow to the largest read region seen and are then
// reused, so a steady state allocates nothing. Not thread-safe.
struct WarpScratch {
  std::vector<uint8_t> horizontal;  // the horizontal pass's rows (when x is resized)
  std::vector<uint8_t> resized;     // the part of the resized source the crop reads (when y is)
  std::vector<int32_t> spans;       // the bytes of each of its rows that the crop reads
  internal::PilTaps taps_x, taps_y;
};

// The largest output step per source pixel, along either source axis, of a source -> crop matrix.
double max_scale(const double m[6]);
// The column norms of a source -> crop matrix (the output step per source pixel along each source
// axis), and which axes the warp resizes before its bilinear step, as the references resize before
// they rotate: an axis it shrinks (antialiasing: PIL's filter widens with the downscale), and an
// axis it enlarges unless the source is a DCT-scaled decode (the decode stands in for the
// references' own resize there; its remaining enlargement is small, loader/decode/decode.h). A
// scale that is 1 up to rounding resizes nothing, as PIL skips a pass whose size does not change.
inline constexpr double kUnitScaleTolerance = 1e-6;
struct AxisScales {
  double sx = 1, sy = 1;
  bool resize_x = false, resize_y = false;
};
AxisScales axis_scales(const double m[6], bool dct_scaled = false);
// The size of an axis of `size` pixels resized by `scale`: round(size * scale) (half to even, as
// numpy's around), at least 1.
int resized_size(int size, double scale);
// How far outside the crop's inverse image (in source pixels of m) the warp reads: the widened
// filter, its 3 spare resized pixels and the bilinear step.
double read_margin(const double m[6]);
// The box, in `m`'s source pixel coordinates, that the square crop of side `crop` (pixel edges
// -0.5 .. crop - 0.5), or a width x height one, maps back to. nullopt for a singular matrix.
struct SourceBounds {
  double x0, y0, x1, y1;
};
std::optional<SourceBounds> crop_source_bounds(const double m[6], int crop);
std::optional<SourceBounds> crop_source_bounds(const double m[6], int width, int height);

// Where a source view lies in the image it was cut from (a decoded window of it): that image's
// size and the view's origin, in the view's pixels. The resize runs on the grid of that whole
// image, so that a window warps to the same bytes as the whole image does wherever the crop reads
// inside the window. All zero: the view is the whole image.
struct SourceFrame {
  int width = 0, height = 0, x0 = 0, y0 = 0;
};

// `matrix` maps FULL-size source pixel coordinates to crop coordinates (GeometryPlan::matrix);
// for a window (`frame`), the window's own pixel coordinates.
// `src` may be a decode at 1/k of full size (DCT scaling): pass src_scale = 1/k; pixel centres
// map as x_full + 0.5 = (x_src + 0.5) * k. `out` is a uint8 HWC view of 3 channels (the square
// crop, or db's part of its canvas that the image covers).
// Errors: kInvalidArgument (views of the wrong shape or type, a frame that does not hold `src`).
Status warp_to_crop(const MutableImageView& out, const ImageView& src, const double matrix[6],
                    double src_scale, WarpScratch& scratch, const SourceFrame& frame = {});

}  // namespace textfeed::augment
