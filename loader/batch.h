// BatchLayout: where each tensor of a batch lives inside one contiguous batch buffer (a slot).
// One allocation per slot holds, in this order, each 64-byte aligned:
//   image  [B, 3, C, C]  float32 normalized (or uint8 with DType::kU8)
//   score  [B, 1, M, M]  float32
//   geo    [B, 5, M, M]  float32: d1 top, d2 bottom, d3 left, d4 right (px), angle (rad)
//   mask   [B, 1, M, M]  float32: "roi" (1 = valid; upstage) or "ignored" (1 = ignore; sakura)
// with C = crop_size and M = int(C * map_scale). Workers write each sample straight into its
// row of every tensor.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "augment/profile.h"
#include "base/image.h"
#include "base/status.h"
#include "base/tensor.h"

namespace textfeed::loader {

enum class TensorId : unsigned char { kImage = 0, kScore = 1, kGeo = 2, kMask = 3 };
inline constexpr int kNumTensors = 4;

// A value type computed from the options; identical on every side of the wire.
struct BatchLayout {
  int batch_size = 0;
  int crop_size = 0;
  int map_size = 0;
  std::array<TensorDesc, kNumTensors> tensors{};
  size_t slot_bytes = 0;  // total, 64-byte multiple

  static BatchLayout make(int batch_size, const augment::AugmentOptions& options);
  const TensorDesc& tensor(TensorId id) const { return tensors[static_cast<int>(id)]; }
  // Views of sample `i`'s rows inside a slot starting at `slot`. Image: CHW as 3 planes stacked
  // (height 3*C, 1 channel); maps: channels stacked the same way.
  MutableImageView view(uint8_t* slot, TensorId id, int i) const;
};

// Metadata that travels with a batch.
struct BatchInfo {
  uint64_t epoch = 0;
  uint64_t batch = 0;             // index within the epoch for this rank
  std::vector<uint32_t> indices;  // dataset index written into each row
  std::vector<SampleError> errors;
};

}  // namespace textfeed::loader
