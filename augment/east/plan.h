// Geometry plan: the random geometric chain of the reference pipelines (docs/targets.md §2.1-2.2)
// run on the quads only — resize_img, adjust_height, rotate_img, crop_img — consuming the
// per-sample Rng in the reference's exact order, so Rng::numpy_legacy(seed) replays the reference's
// decisions bit for bit. Pixels are not touched: the plan yields one affine matrix that maps source
// pixels straight to the crop (docs/design.md "One warp").
#pragma once

#include <span>
#include <vector>

#include "augment/profile.h"
#include "base/quad.h"
#include "base/rng.h"
#include "base/status.h"

namespace textfeed::augment {

struct Size2 {
  int width = 0;
  int height = 0;
};

// A value type; reused across samples (its vectors keep their capacity).
struct GeometryPlan {
  Size2 source;             // the input's size (already resized when pre_resized)
  Size2 resized;            // after resize_img (== source when there is no resize)
  Size2 adjusted;           // after adjust_height
  Size2 before_crop;        // entering crop_img (rotation keeps the size, so == adjusted)
  Size2 upscaled;           // after crop_img's upscale to a shorter side >= crop_size
  double height_ratio = 1;  // adjust_height's drawn ratio
  double angle_deg = 0;     // rotate_img's drawn angle (PIL rotate: counter-clockwise)
  int crop_x = 0;           // crop start (sw, sh) in upscaled pixels
  int crop_y = 0;
  int tries = 0;                      // crop positions drawn
  bool fallback = false;              // no position cut no valid word: the last one was kept
  int64_t draws = 0;                  // Rng::uniform() calls consumed by the plan
  std::vector<double> vertices;       // n * 8, final crop coordinates
  std::vector<unsigned char> labels;  // n (crop_fallback = kIgnoreCut may zero cut words)
  // Source pixel (x, y) -> crop pixel: [m0 m1 m2; m3 m4 m5]. Pixel-index coordinates (a pixel's
  // centre is its integer position), with PIL's resampling conventions; see plan.cc.
  double matrix[6] = {1, 0, 0, 0, 1, 0};
};

// Plans one sample. `pre_resized`: the source pixels and quads already went through resize_img
// (a cache built with image_size); the resize step is then skipped and everything else is
// identical. Errors: kInvalidArgument (empty source, quads/labels mismatch, invalid options).
Status plan_geometry(GeometryPlan& out, int src_w, int src_h, std::span<const Quad> quads,
                     std::span<const unsigned char> labels, const AugmentOptions& options, Rng& rng,
                     bool pre_resized = false);

}  // namespace textfeed::augment
