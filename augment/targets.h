// EAST targets from the final crop vertices (TARGETS.md §3): score map, 5-channel geometry map and
// the ROI mask (upstage, 1 = valid) or ignored map (sakura, 1 = ignore), written into the caller's
// float32 views at side map_size = int(crop_size * map_scale).
#pragma once

#include <span>
#include <vector>

#include "augment/profile.h"
#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment {

// Outputs, float32, dense rows: score M x M; geo 5 planes stacked (height 5M, width M): d1 top,
// d2 bottom, d3 left, d4 right (full-resolution px), angle (rad); mask M x M.
struct TargetViews {
  MutableImageView score;
  MutableImageView geo;
  MutableImageView mask;
};

// Reusable buffers (per worker thread). Not thread-safe.
class TargetScratch {
 public:
  std::vector<float> roi_full;         // crop_size^2, upstage ROI before its resize
  std::vector<unsigned char> box_mask; // one box's shrunk polygon, inside its bounds
  std::vector<float> owner_area;       // Overlap::kSmallest
  std::vector<unsigned short> cover;   // Overlap::kIgnore / kLast bookkeeping
};

// Writes every pixel of the three maps. `vertices` holds n quads (n*8 doubles, crop px),
// `labels` n labels. Boxes with non-finite or absurd (> 1e6 px) coordinates are left out.
// Errors: kInvalidArgument (sizes of the views or spans do not match the options).
Status make_targets(const TargetViews& out, std::span<const double> vertices,
                    std::span<const unsigned char> labels, int crop_size, const AugmentOptions& options,
                    TargetScratch& scratch);

}  // namespace textfeed::augment
