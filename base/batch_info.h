// BatchInfo: what travels with a batch besides its tensors, as every layer sees it. The pipeline
// fills it (loader/pipeline/pipeline.h), the daemon sends it in a Batch message
// (transport/wire.h BatchHeader, which the codec maps to and from protocol.capnp's Batch), and a
// feed hands it to the training loop with the slot its rows live in (client/feed.h FeedBatch).
// A value type: plain data, copied and moved freely.
#pragma once

#include <cstdint>
#include <vector>

#include "base/compact_row.h"
#include "base/tensor.h"

namespace textfeed {

// The metadata of batch `batch` of epoch `epoch`: one entry per row in `indices`, and in
// `samples` and `compact` when they are not empty.
struct BatchInfo {
  uint64_t epoch = 0;
  uint64_t batch = 0;             // index within the epoch for this rank
  std::vector<uint32_t> indices;  // dataset index written into each row
  std::vector<SampleError> errors;
  std::vector<SampleMeta> samples;  // one per row in eval or with return_polygons, else empty
  PolygonCounts polygons;           // the invalid_polygon policy's counts, summed over the rows
  // One per row of a compact fill (loader BatchPipeline::fill_compact, the wire's compact
  // payload); empty in a full batch, and once a receiver has expanded the rows.
  std::vector<CompactRow> compact;
};

}  // namespace textfeed
