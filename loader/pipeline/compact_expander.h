// CompactExpander: the receiving side of the compact payload (base/compact_row.h): a compact row
// and its crop become the full batch row (colour jitter, normalization, targets), the same bytes
// BatchPipeline::fill writes, since it runs the same code on the same inputs.
#pragma once

#include <memory>
#include <span>

#include "augment/target_builder.h"
#include "base/compact_row.h"
#include "base/status.h"
#include "loader/pipeline/batch.h"
#include "loader/spec/spec.h"

namespace textfeed::loader {

// Whether batches of `spec` can travel compact: training with an EAST profile (db draws its
// targets from polygons after a crop search, and eval has no targets). Errors: kInvalidArgument
// saying why not.
Status compact_supported(const PipelineSpec& spec);

// A resource type (the target builder's scratch); not thread-safe: one per thread.
class CompactExpander {
 public:
  // Errors: compact_supported()'s, the options' (kInvalidArgument).
  static Result<std::unique_ptr<CompactExpander>> create(const PipelineSpec& spec);
  // The layout expand() writes (BatchPipeline::layout() of the same spec).
  const BatchLayout& layout() const { return layout_; }
  // Writes rows.size() rows of `slot` from `crops` (compact_row_bytes per row) and `rows`.
  // Errors: kCorrupt naming the row (a colour draw or words no pipeline makes: non-finite values,
  // a coordinate beyond kCompactReachSides crop sides, an order that is not a permutation, quads
  // and labels that disagree), the builders' errors.
  Status expand(const uint8_t* crops, std::span<const CompactRow> rows, uint8_t* slot);

 private:
  CompactExpander() = default;
  augment::AugmentOptions options_;
  BatchLayout layout_;
  std::unique_ptr<augment::TargetBuilder> targets_;
};

}  // namespace textfeed::loader
