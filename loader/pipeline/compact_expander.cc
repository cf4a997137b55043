// CompactExpander: a compact row checked, then jittered, normalized and given its targets.
#include "loader/pipeline/compact_expander.h"

#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "augment/colour/photometric.h"
#include "augment/family.h"

namespace textfeed::loader {

namespace {
Status check_row(const CompactRow& row, size_t i, const augment::AugmentOptions& o) {
  const auto bad = [&](const std::string& why) {
    return Status::corrupt("compact row " + std::to_string(i) + ": " + why);
  };
  // Each factor is a draw from the recipe's range (draw_color_params): anything else is no draw
  // of this spec, and a far one would take the colour arithmetic out of its domain.
  const ColorParams& c = row.color;
  const std::pair<double, augment::UniformRange> factors[4] = {{c.brightness, o.brightness},
                                                               {c.contrast, o.contrast},
                                                               {c.saturation, o.saturation},
                                                               {c.hue, o.hue}};
  for (const auto& [v, range] : factors)
    if (!(v >= range.lo && v <= range.hi)) return bad("a colour factor outside the recipe's range");
  bool seen[4] = {false, false, false, false};
  for (ColorOp op : c.order) {
    const auto k = static_cast<unsigned>(op);
    if (k >= 4 || seen[k]) return bad("the colour ops' order is not a permutation of the four");
    seen[k] = true;
  }
  if (row.quads.size() != row.labels.size() * 8)
    return bad(std::to_string(row.quads.size()) + " coordinates for " +
               std::to_string(row.labels.size()) + " words (8 each)");
  // Not-a-number is no plan's. A daemon sends only the words the targets see, within
  // kCompactReachSides crop sides (base/compact_row.h): one reaching further is no honest daemon's,
  // and would move the targets.
  for (double v : row.quads)
    if (!std::isfinite(v)) return bad("a word coordinate is not finite");
  if (const std::string far = beyond_compact_reach(row, o.crop_size); !far.empty()) return bad(far);
  for (unsigned char l : row.labels)
    if (l > 1) return bad("a word label other than 0 or 1");
  return Status();
}
}  // namespace

Status compact_supported(const PipelineSpec& spec) {
  if (spec.mode != Mode::kTrain)
    return Status::invalid_argument(
        "the compact payload is for training batches (eval batches have no targets)");
  TF_RETURN_IF_ERROR(augment::check_compact_rows(spec.augment.profile));
  if (spec.return_polygons)
    return Status::invalid_argument(
        "the compact payload carries the words once already: it does not take "
        "return_polygons (use the full payload)");
  return Status();
}

Result<std::unique_ptr<CompactExpander>> CompactExpander::create(const PipelineSpec& requested) {
  const PipelineSpec spec = effective_spec(requested);
  TF_RETURN_IF_ERROR(compact_supported(spec));
  TF_RETURN_IF_ERROR(augment::validate(spec.augment));
  std::unique_ptr<CompactExpander> e(new CompactExpander());
  e->options_ = spec.augment;
  e->targets_ = augment::make_target_builder(spec.augment);
  e->layout_ = BatchLayout::make(spec.sampler.batch_size, spec.augment, *e->targets_);
  return e;
}

Status CompactExpander::expand(const uint8_t* crops, std::span<const CompactRow> rows,
                               uint8_t* slot) {
  const int c = layout_.crop_size;
  if (rows.size() > static_cast<size_t>(layout_.batch_size))
    return Status::corrupt(std::to_string(rows.size()) + " compact rows for batches of " +
                           std::to_string(layout_.batch_size));
  const size_t num_targets = layout_.tensors.size() - 1;
  std::array<MutableImageView, augment::kMaxTargetTensors> targets;
  for (size_t i = 0; i < rows.size(); ++i) {
    TF_RETURN_IF_ERROR(check_row(rows[i], i, options_));
    const int r = static_cast<int>(i);
    const ImageView crop{crops + compact_row_bytes(c) * i, c,         c, 3,
                         static_cast<ptrdiff_t>(c) * 3,    DType::kU8};
    TF_RETURN_IF_ERROR(augment::apply_photometric(layout_.view(slot, BatchLayout::kImageTensor, r),
                                                  crop, rows[i].color, options_));
    for (size_t k = 0; k < num_targets; ++k) targets[k] = layout_.view(slot, k + 1, r);
    TF_RETURN_IF_ERROR(targets_
                           ->build(std::span<const MutableImageView>(targets.data(), num_targets),
                                   augment::PolygonsView::quads(rows[i].quads), rows[i].labels, c)
                           .with_context("compact row " + std::to_string(i)));
  }
  return Status();
}

}  // namespace textfeed::loader
