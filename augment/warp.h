// The one warp: source pixels -> the square crop, bilinear with a black border, in one resampling
// (docs/design.md "One warp"); where the scale is below 0.5, the region the crop reads is first shrunk
// by 2^k (2x2 box averages, k times) so that the bilinear step never skips source pixels.
#pragma once

#include <optional>
#include <vector>

#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment {

// Reusable buffers (per worker thread): they grow to the largest read region seen and are then
// reused, so a steady state allocates nothing. Not thread-safe.
struct WarpScratch {
  std::vector<uint8_t> shrunk;  // the pre-shrunk read region (the warp's input when it is used)
  std::vector<uint8_t> halved;  // the other buffer of the halving cascade
};

// The largest output step per source pixel, along either source axis, of a source -> crop matrix.
double max_scale(const double m[6]);
// How many times the warp halves its source at `scale` (max_scale of its matrix) before the
// bilinear step: the least k that leaves that step a scale of at least 0.5 (0 from 0.5 up).
int preshrink_halvings(double scale);
// The box, in `m`'s source pixel coordinates, that the square crop of side `crop` (pixel edges
// -0.5 .. crop - 0.5), or a width x height one, maps back to. nullopt for a singular matrix.
struct SourceBounds {
  double x0, y0, x1, y1;
};
std::optional<SourceBounds> crop_source_bounds(const double m[6], int crop);
std::optional<SourceBounds> crop_source_bounds(const double m[6], int width, int height);

// `matrix` maps FULL-size source pixel coordinates to crop coordinates (GeometryPlan::matrix).
// `src` may be a decode at 1/k of full size (DCT scaling): pass src_scale = 1/k; pixel centres
// map as x_full + 0.5 = (x_src + 0.5) * k. `out` is a uint8 HWC view of 3 channels (the square
// crop, or db's part of its canvas that the image covers).
// Errors: kInvalidArgument (views of the wrong shape or type).
Status warp_to_crop(const MutableImageView& out, const ImageView& src, const double matrix[6], double src_scale,
                    WarpScratch& scratch);

}  // namespace textfeed::augment
