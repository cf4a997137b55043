// DB (DBNet) targets as PaddleOCR's MakeBorderMap then MakeShrinkMap compute them, bit for bit
// (docs/targets.md, "DB targets"): the threshold map and its mask from the border band of every
// valid polygon, then the shrink map and its mask from the polygons clipped to the canvas. The
// polygon engines are the reference's own: Clipper 6.4.2 (offsets) and GEOS (area and length).
// DbTargetBuilder is the pipeline's way in (augment/target_builder.h); make_db_targets is the
// function it calls.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "augment/target_builder.h"
#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment {

// What the DB targets are made with; PaddleOCR's defaults. shrink_ratio in (0, 1) is what both
// MakeBorderMap and MakeShrinkMap use (see db_shrink_ratio for the epoch-dependent value);
// thresh_min <= thresh_max in [0, 1]; min_text_size (px) >= 0: a polygon whose clipped height or
// width is below it is ignored.
struct DbTargetOptions {
  double shrink_ratio = 0.4;
  double thresh_min = 0.3;
  double thresh_max = 0.7;
  double min_text_size = 8;
  // How the threshold map's distances are computed: false (the default), within a few float32
  // ulps of the reference (its branch, a stable distance to the line, the root in float32);
  // true, the reference's float64 steps bit for bit (about twice the band's cost; for checking).
  // The masks, the shrink map and the ignore tags are the same either way.
  bool exact_threshold = false;
};

// Checks the ranges above. Errors: kInvalidArgument naming the field.
Status validate(const DbTargetOptions& options);

// The ratio PaddleOCR's newer configs use at `epoch` of `total_epochs`: base + 0.2 * epoch / total
// (same operation order). Requires total_epochs > 0.
double db_shrink_ratio(double base, int epoch, int total_epochs);

// Bounds on what make_db_targets accepts (a clear kInvalidArgument beyond them): points per
// polygon (the border band costs points x band area), |coordinate| in px (far inside Clipper's
// range and int32, so every conversion the reference makes is defined), canvas side in px.
inline constexpr size_t kMaxDbPolygonPoints = 1024;
inline constexpr double kMaxDbCoordinate = 1e6;
inline constexpr int kMaxDbCanvasSide = 16384;

// Outputs, float32, channels 1, all of the same H x W (the canvas); rows may be padded. Every
// pixel is written, whatever the views held before.
//   threshold_map:  thresh_min + (thresh_max - thresh_min) * (1 - clipped distance / band) on the
//                   border band of valid polygons, thresh_min elsewhere.
//   threshold_mask: 1 inside the band polygons (the valid polygons grown by the band), else 0.
//   shrink_map:     1 inside the shrunk valid polygons.
//   shrink_mask:    0 inside ignored (given, tiny, zero-area, unshrinkable) polygons, else 1.
struct DbTargetViews {
  MutableImageView threshold_map;
  MutableImageView threshold_mask;
  MutableImageView shrink_map;
  MutableImageView shrink_mask;
};

// Reusable state of make_db_targets: a GEOS reentrant context (created here, finished in the
// destructor) and the buffers of one polygon's band. A resource type: movable, not copyable; not
// thread-safe (one per worker thread).
class DbScratch {
 public:
  DbScratch();
  ~DbScratch();
  DbScratch(DbScratch&&) noexcept;
  DbScratch& operator=(DbScratch&&) noexcept;
  DbScratch(const DbScratch&) = delete;
  DbScratch& operator=(const DbScratch&) = delete;

  struct State;  // defined in db_targets.cc (GEOS handle, buffers)
  State& state();

 private:
  std::unique_ptr<State> state_;
};

// Writes the DB targets of `polygons` (canvas px, any point count >= 3; a polygon padded by
// repeating its last point gives what the reference gives on the padded array) with `labels`
// (one per polygon, 0 = ignored) into `out`, and each polygon's ignore tag after MakeShrinkMap
// into `ignore_out` (1 = ignored: given, tiny, zero-area or unshrinkable).
// Errors: kInvalidArgument (views not all float32 H x W with 1 <= H, W <= kMaxDbCanvasSide;
// labels/ignore_out sizes != polygons.size(); inconsistent polygons; a polygon with < 3 or more
// than kMaxDbPolygonPoints points; a NaN, infinite or |c| > kMaxDbCoordinate coordinate; a ring
// GEOS refuses; a valid polygon whose border offset is empty, where the reference raises), each
// naming the polygon and the reason; kInternal (GEOS or Clipper failed). Nothing is written when
// the input is rejected up front; after a later error the views are unspecified. Thread-safety:
// reentrant; `scratch` must not be shared between concurrent calls.
Status make_db_targets(const DbTargetViews& out, const PolygonsView& polygons,
                       std::span<const unsigned char> labels, const DbTargetOptions& options,
                       DbScratch& scratch, std::span<unsigned char> ignore_out);

// The DB targets as a TargetBuilder. Tensors, float32, 1 x side x side each:
// "threshold_map", "threshold_mask", "shrink_map", "shrink_mask". build() is make_db_targets()
// with this builder's scratch and options. set_shrink_ratio() changes the ratio for later builds
// (the epoch-dependent ratio, db_shrink_ratio); like build(), it is not thread-safe.
class DbTargetBuilder final : public TargetBuilder {
 public:
  explicit DbTargetBuilder(const DbTargetOptions& options) : options_(options) {}

  std::vector<TargetTensor> tensors(int crop_size) const override;
  Status build(std::span<const MutableImageView> out, const PolygonsView& words,
               std::span<const unsigned char> labels, int crop_size) override;

  void set_shrink_ratio(double ratio) { options_.shrink_ratio = ratio; }
  const DbTargetOptions& options() const { return options_; }
  // The ignore tags of the last build (after MakeShrinkMap), one per word.
  std::span<const unsigned char> ignore_tags() const { return ignore_; }

 private:
  DbTargetOptions options_;
  DbScratch scratch_;
  std::vector<unsigned char> ignore_;
};

}  // namespace textfeed::augment
