// The EAST family's training chain (docs/targets.md §2-3): the reference's geometric draws on the
// quads (augment/east/plan.h), one warp to the crop, the colour jitter fused with normalize, and
// the score, geometry and mask maps (augment/east/targets.h). Its rows can travel compact: the
// warped crop, the colour draw and the words the targets can see.
#pragma once

#include <memory>
#include <span>

#include "augment/east/plan.h"
#include "augment/east/targets.h"
#include "augment/family.h"
#include "augment/geometry/warp.h"
#include "base/compact_row.h"
#include "base/image.h"

namespace textfeed::augment {

class EastChain final : public Chain {
 public:
  explicit EastChain(const AugmentOptions& options);

  Status plan(const SampleWords& sample, Rng& rng, uint64_t epoch, PixelRequest& request) override;
  Status render(const PixelGrant& pixels, Rng& rng, uint64_t epoch, const ChainOutputs& out,
                StageTimes& times) override;
  void words_after(SampleMeta& meta) const override;

  // The last sample's plan (for `textfeed show`).
  const GeometryPlan& last_plan() const { return plan_; }

 private:
  AugmentOptions options_;
  GeometryPlan plan_;
  Image crop_;
  WarpScratch warp_scratch_;
  EastTargetBuilder targets_;
};

// The words of `quads` (8 coordinates each, crop px) and `labels` that the EAST targets can see,
// into row.quads and row.labels: those the target builder leaves out (a coordinate beyond
// kMaxTargetCoord or not finite) and those wholly more than one crop side off the crop (every
// corner beyond it on one side) are left out; they paint no pixel of any target, so the targets of
// what is kept are the same bytes.
void keep_visible_words(std::span<const double> quads, std::span<const unsigned char> labels,
                        int crop_size, CompactRow& row);

}  // namespace textfeed::augment
