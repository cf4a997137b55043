// DB crop: PaddleOCR's EastRandomCropData (crop_area + the keep-ratio resize into a square canvas)
// on polygons of any point count, with NumPy's semantics kept exactly (docs/targets.md "DB crop and
// imgaug geometry"): half-to-even rounding, int32 casts, Python slicing with negative starts, the
// region split that drops the last gap, the 50 tries and the whole-image fallback.
//
// Two draw modes: kNumpyLegacy consumes the Rng as NumPy 1.24's legacy RandomState.choice does
// (masked rejection on 32-bit outputs), so Rng::numpy_legacy(seed) replays np.random.seed(seed)
// bit for bit; kPipeline draws the same distributions (uniform indices) with Rng::below().
// Pure functions: no I/O, no threads, no globals; safe to call concurrently on distinct outputs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/rng.h"
#include "base/status.h"

namespace textfeed::augment {

// Polygons of any point count in one flat buffer: polygon i holds points [ends[i-1], ends[i])
// (ends[-1] = 0); point k is (xy[2k], xy[2k+1]) in pixels. A view: the spans must outlive the call.
struct DbPolygons {
  std::span<const double> xy;
  std::span<const int32_t> ends;
};

// Checks a polygon set: ends increasing, every polygon >= 1 point, xy.size() == 2 * ends.back(),
// every coordinate finite. kInvalidArgument names the polygon and point.
Status validate_polygons(DbPolygons polys);

struct CropBox {
  int x = 0;
  int y = 0;
  int w = 0;
  int h = 0;
};

enum class CropDraws {
  kNumpyLegacy,  // NumPy 1.24 RandomState.choice(a, size) with replace=True, p=None
  kPipeline,     // the pipeline's own stream: Rng::below(n)
};

// NumPy 1.24's legacy randint(0, n) (n >= 1) as RandomState.choice(a, size) draws each index: the
// smallest all-ones mask covering n - 1, 32-bit outputs masked and redrawn while above n - 1; n ==
// 1 consumes nothing.
uint32_t numpy_legacy_index(Rng& rng, uint32_t n);

// EastRandomCropData's arguments (PaddleOCR's DB configs: 640, 50, 0.1, keep_ratio true).
struct DbCropOptions {
  int size = 640;                    // canvas side, px, in 1..16384
  int max_tries = 50;                // crop_area tries, in 0..100000
  double min_crop_side_ratio = 0.1;  // in (0, 1]: a zero-width crop would divide by zero
};
Status validate(const DbCropOptions& o);

// The result of one call; a value type reused across samples (vectors keep their capacity).
struct DbCrop {
  CropBox crop;           // crop_area's box in the input frame (the whole image on fallback)
  bool fallback = false;  // no try succeeded, or no row/column was free of care polygons
  int tries = 0;          // tries drawn (0 when crop_area returned before the loop)
  double scale = 1;       // min(size / crop.w, size / crop.h)
  int out_w = 0;          // int(crop.w * scale), int(crop.h * scale): the resized crop, placed
  int out_h = 0;          // at the canvas's top-left; the rest of the canvas is zero
  std::vector<unsigned char> kept;    // per input polygon: 1 when not wholly outside the crop
  std::vector<double> xy;             // the kept polygons in canvas px (input point counts)
  std::vector<int32_t> ends;          // their ends, as DbPolygons
  std::vector<unsigned char> ignore;  // their ignore tags
};

// crop_area(): the box only. `polys` are the care polygons (ignored ones left out by the caller),
// in the frame of an img_w x img_h image. Errors: kInvalidArgument (bad size, options, polygons).
Status db_crop_area(CropBox& out, bool& fallback, int& tries, int img_w, int img_h, DbPolygons care,
                    const DbCropOptions& o, Rng& rng, CropDraws mode);

// EastRandomCropData.__call__ minus the pixels: the box from the care polygons (ignore[i] == 0),
// then every polygon moved into canvas px and kept unless wholly outside [0, out_w] x [0, out_h].
// `ignore` has one tag per polygon. Errors: kInvalidArgument.
Status db_crop(DbCrop& out, int img_w, int img_h, DbPolygons polys,
               std::span<const unsigned char> ignore, const DbCropOptions& o, Rng& rng,
               CropDraws mode);

}  // namespace textfeed::augment
