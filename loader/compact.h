// The compact payload (docs/design.md "Compact payload"): instead of a full batch, a daemon sends
// each row's warped uint8 crop (before the colour jitter), its colour draw and its words after the
// augmentation; the receiving process runs the colour jitter, the normalization and the targets
// itself (CompactExpander), and gets the full batch byte for byte. For EAST profiles in training:
// a 1024 crop is 3 MiB this way against 12 MiB of float32 image and its maps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "augment/photometric.h"
#include "base/tensor.h"

namespace textfeed::loader {

// What a row needs besides its crop.
struct CompactRow {
  augment::ColorParams color;
  std::vector<double> quads;          // 8 coordinates per word, crop px (GeometryPlan::vertices)
  std::vector<unsigned char> labels;  // per word: 1 = text, 0 = ignored
};

// Bytes of one row's crop: `crop_size` x `crop_size` RGB, uint8, HWC.
inline size_t compact_row_bytes(int crop_size) {
  return static_cast<size_t>(crop_size) * crop_size * 3;
}

// The payload of a compact batch of `rows` rows: one tensor "crop", uint8 [rows, C, C, 3].
inline TensorDesc compact_tensor(size_t rows, int crop_size) {
  TensorDesc t;
  t.name = "crop";
  t.dtype = DType::kU8;
  t.shape = {static_cast<int64_t>(rows), crop_size, crop_size, 3};
  t.sample_bytes = compact_row_bytes(crop_size);
  t.size_bytes = t.sample_bytes * rows;
  return t;
}

}  // namespace textfeed::loader
