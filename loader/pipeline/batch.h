// BatchLayout: where each tensor of a batch lives inside one contiguous batch buffer (a slot).
// One allocation per slot holds, in this order, each 64-byte aligned:
//   image  [B, 3, C, C]  float32 normalized (or uint8 with DType::kU8); the pipeline's own
//   then the target builder's tensors (augment/target_builder.h), [B, channels, side, side] each;
//   for EAST (augment/east/targets.h), with M = int(C * map_scale):
//     score  [B, 1, M, M]  float32
//     geo    [B, 5, M, M]  float32: d1 top, d2 bottom, d3 left, d4 right (px), angle (rad)
//     mask   [B, 1, M, M]  float32: "roi" (1 = valid; upstage) or "ignored" (1 = ignore; sakura)
// with C = crop_size. Workers write each sample straight into its row of every tensor.
// Eval batches (PipelineSpec::mode kEval) hold the image only, [B, 3, S, S] with S = image_size,
// the canvas of augment/inference.h; they carry no targets.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "augment/profile.h"
#include "augment/target_builder.h"
#include "base/batch_info.h"
#include "base/compact_row.h"
#include "base/image.h"
#include "base/status.h"
#include "base/tensor.h"

namespace textfeed::loader {

// A value type computed from the options and the target builder; identical on every side of the
// wire.
struct BatchLayout {
  // tensors[kImageTensor] is the image; the target builder's follow, in its order.
  static constexpr size_t kImageTensor = 0;

  int batch_size = 0;
  int crop_size = 0;
  std::vector<TensorDesc> tensors;
  size_t slot_bytes = 0;  // total, 64-byte multiple

  // The image from `options` (crop_size, dtype), then targets.tensors(options.crop_size).
  static BatchLayout make(int batch_size, const augment::AugmentOptions& options,
                          const augment::TargetBuilder& targets);
  // An eval batch's: the image only, `side` x `side` (crop_size is then `side`).
  static BatchLayout make_image_only(int batch_size, int side, DType dtype);
  const TensorDesc& image() const { return tensors[kImageTensor]; }
  // The target builder's tensors.
  std::span<const TensorDesc> targets() const {
    return std::span<const TensorDesc>(tensors).subspan(1);
  }
  // View of sample `i`'s row of tensors[t] inside a slot starting at `slot`: channels stacked as
  // planes (height channels * side, width side, 1 channel), e.g. the image's CHW as 3 planes.
  MutableImageView view(uint8_t* slot, size_t t, int i) const;
};

}  // namespace textfeed::loader
