// EAST targets from the final crop vertices (docs/targets.md §3): score map, 5-channel geometry map
// and the ROI mask (upstage, 1 = valid) or ignored map (sakura, 1 = ignore), written into the
// caller's float32 views at side M = int(crop_size * map_scale). EastTargetBuilder is the
// pipeline's way in (augment/target_builder.h); make_targets is the function it calls.
#pragma once

#include <memory>
#include <span>

#include "augment/profile.h"
#include "augment/target_builder.h"
#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment {

// Outputs, float32 (channels 1), rows may be padded (stride_bytes >= 4 * M). Every pixel is
// written, whatever the views held before.
//   score: M x M, 1 inside the shrunk words.
//   geo:   5 planes stacked in one view of height 5M, width M (CHW): d1 top, d2 bottom, d3 left,
//          d4 right (full-resolution crop px), angle (rad).
//   mask:  M x M; MaskKind::kRoi: 1 = valid, fractional on the borders of ignored words after
//          the linear resize; MaskKind::kIgnored: 1 = ignore.
struct TargetViews {
  MutableImageView score;
  MutableImageView geo;
  MutableImageView mask;
};

// Reusable buffers of make_targets (polygon lists, one box's mask, the full-resolution ROI canvas,
// overlap bookkeeping). They grow to the largest sample seen and are then reused, so a worker that
// keeps one scratch allocates nothing per sample. A resource type: movable, not copyable; not
// thread-safe (one per worker thread).
class TargetScratch {
 public:
  TargetScratch();
  ~TargetScratch();
  TargetScratch(TargetScratch&&) noexcept;
  TargetScratch& operator=(TargetScratch&&) noexcept;
  TargetScratch(const TargetScratch&) = delete;
  TargetScratch& operator=(const TargetScratch&) = delete;

  struct Buffers;      // defined in targets.cc (holds OpenCV types)
  Buffers& buffers();  // for make_targets; a moved-from scratch gets fresh buffers

 private:
  std::unique_ptr<Buffers> buffers_;
};

// The largest |coordinate| (crop px) of a quad make_targets uses: a quad with one beyond it, or
// not finite, is left out (int32 map coordinates and OpenCV's fixed-point edges stay far from
// overflow, and no crop is this large).
inline constexpr double kMaxTargetCoord = 1e6;

// Writes the EAST targets of n words into `out` (every pixel of the three maps).
// `vertices`: n quads, 8 doubles each (x1,y1,...,x4,y4 in crop px, any order, may leave the crop);
// `labels`: n labels, 0 = ignored ("###" / illegible), anything else = valid.
// Semantics follow docs/targets.md §3 for options.profile's defaults and the fix flags in
// `options`: map_scale, mask, angle_error, fill_rule, overlap, ignored_targets, roi_resize,
// fix_orientation, clamp_geo (other fields are not read; crop_size comes from the argument). Quads
// with a non-finite or absurd (|c| > kMaxTargetCoord) coordinate are left out; degenerate quads (a
// point, a segment) still paint what the reference paints and never produce NaN. Errors:
// kInvalidArgument (map_scale outside (0, 1], crop_size < 1, view sizes or dtypes that do not match
// M, vertices.size() != 8 * labels.size()); nothing is written then. Thread-safety: reentrant;
// `scratch` must not be shared between concurrent calls.
Status make_targets(const TargetViews& out, std::span<const double> vertices,
                    std::span<const unsigned char> labels, int crop_size,
                    const AugmentOptions& options, TargetScratch& scratch);

// The EAST targets as a TargetBuilder. Tensors, float32, M = int(crop_size *
// options.map_scale): "score" (1 x M x M), "geo" (5 x M x M), and "roi" or "ignored" (1 x M x M,
// options.mask). build() is make_targets() with this builder's scratch: it reads the options
// make_targets reads, and takes quads only (kInvalidArgument for a word of another point count).
class EastTargetBuilder final : public TargetBuilder {
 public:
  explicit EastTargetBuilder(const AugmentOptions& options) : options_(options) {}

  std::vector<TargetTensor> tensors(int crop_size) const override;
  Status build(std::span<const MutableImageView> out, const PolygonsView& words,
               std::span<const unsigned char> labels, int crop_size) override;

 private:
  AugmentOptions options_;
  TargetScratch scratch_;
};

}  // namespace textfeed::augment
