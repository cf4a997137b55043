// The DB family's training chain, PaddleOCR's (docs/targets.md §8): the words as polygons through
// the invalid_polygon policy, imgaug's flip, rotation and resize draws and the crop search on them
// (augment/db/geometry.h), one warp of the pixels onto the canvas (black beyond the resized crop),
// the photometric steps and normalize, and the probability, threshold and mask maps at the
// epoch's shrink ratio (augment/db/targets.h). No compact rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "augment/db/geometry.h"
#include "augment/db/targets.h"
#include "augment/family.h"
#include "augment/geometry/polygon_policy.h"
#include "augment/geometry/warp.h"
#include "base/image.h"

namespace textfeed::augment {

// The geometry options of a recipe's db fields.
DbGeometryOptions db_geometry_options(const AugmentOptions& options);
// The target options of a recipe's db fields.
DbTargetOptions db_target_options(const AugmentOptions& options);

class DbChain final : public Chain {
 public:
  explicit DbChain(const AugmentOptions& options);

  Status plan(const SampleWords& sample, Rng& rng, uint64_t epoch, PixelRequest& request) override;
  Status render(const PixelGrant& pixels, Rng& rng, uint64_t epoch, const ChainOutputs& out,
                StageTimes& times) override;
  void words_after(SampleMeta& meta) const override;
  PolygonCounts last_polygons() const override { return polygons_; }

  // The last sample's plan (for `textfeed show`).
  const DbGeometryPlan& last_plan() const { return plan_; }

 private:
  // The canvas from the fetched pixels: the resized crop's part warped, the rest black.
  Status render_canvas(const PixelGrant& pixels, StageTimes& times);

  AugmentOptions options_;
  DbGeometryOptions geometry_;
  PolygonPolicy policy_;
  DbTargetBuilder targets_;
  std::string name_;                   // the last planned sample's, for messages
  PolygonSet words_;                   // the sample's words after the policy
  std::vector<int32_t> ends_;          // words_.ends as the crop search takes them
  std::vector<unsigned char> ignore_;  // 1 = ignored, per word of words_
  DbGeometryPlan plan_;
  std::vector<uint32_t> crop_ends_;  // plan_.crop.ends as the targets take them
  std::vector<unsigned char> crop_labels_;
  Image canvas_;
  WarpScratch warp_scratch_;
  PolygonCounts polygons_;
};

}  // namespace textfeed::augment
