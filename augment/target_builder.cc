// TargetBuilder: the builder of each target kind, and EAST's tensors and checks.
#include "augment/target_builder.h"

#include <string>

#include "augment/db_targets.h"
#include "augment/targets.h"

namespace textfeed::augment {

TargetKind target_kind(Profile profile) { return profile == Profile::kDb ? TargetKind::kDb : TargetKind::kEast; }

std::unique_ptr<TargetBuilder> make_target_builder(TargetKind kind, const AugmentOptions& options) {
  switch (kind) {
    case TargetKind::kEast:
      break;
    case TargetKind::kDb:
      return std::make_unique<DbTargetBuilder>(DbTargetOptions{options.shrink_ratio, options.thresh_min,
                                                               options.thresh_max,
                                                               static_cast<double>(options.min_text_size)});
  }
  return std::make_unique<EastTargetBuilder>(options);
}

std::vector<TargetTensor> EastTargetBuilder::tensors(int crop_size) const {
  const int m = static_cast<int>(crop_size * options_.map_scale);  // AugmentOptions::map_size()
  return {
      {"score", DType::kF32, 1, m},
      {"geo", DType::kF32, 5, m},
      {options_.mask == MaskKind::kRoi ? "roi" : "ignored", DType::kF32, 1, m},
  };
}

Status EastTargetBuilder::build(std::span<const MutableImageView> out, const PolygonsView& words,
                                std::span<const unsigned char> labels, int crop_size) {
  if (out.size() != 3)
    return Status::invalid_argument("EAST targets: " + std::to_string(out.size()) +
                                    " views for 3 tensors (score, geo, mask)");
  if (!words.consistent())
    return Status::invalid_argument("EAST targets: " + std::to_string(words.xy.size()) +
                                    " coordinates do not make the polygons their ends say");
  for (size_t k = 0; k < words.size(); ++k)
    if (words.points(k) != 4)
      return Status::invalid_argument("EAST targets: word " + std::to_string(k) + " has " +
                                      std::to_string(words.points(k)) + " points; EAST takes quads");
  return make_targets(TargetViews{out[0], out[1], out[2]}, words.xy, labels, crop_size, options_, scratch_);
}

}  // namespace textfeed::augment
