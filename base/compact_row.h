// The compact payload (docs/design.md "Compact payload"): instead of a full batch, a daemon sends
// each row's warped uint8 crop (before the colour jitter), its colour draw and its words after the
// augmentation; the receiving process runs the colour jitter, the normalization and the targets
// itself (loader/pipeline/compact_expander.h), and gets the full batch byte for byte. For EAST
// profiles in training: a 1024 crop is 3 MiB this way against 12 MiB of float32 image and its maps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/tensor.h"

namespace textfeed {

// The four colour operations of a colour jitter, in the order a draw applies them.
enum class ColorOp : unsigned char { kBrightness, kContrast, kSaturation, kHue };

// One sample's colour jitter draw (augment/colour/photometric.h draws and applies it).
struct ColorParams {
  bool applied = false;
  double brightness = 1, contrast = 1, saturation = 1;  // factors, 1 = identity
  double hue = 0;                                       // shift in turns, 0 = identity
  ColorOp order[4] = {ColorOp::kBrightness, ColorOp::kContrast, ColorOp::kSaturation,
                      ColorOp::kHue};
};

// What a row needs besides its crop to be finished by its receiver: its colour draw and its words
// after the augmentation (the words the family's targets can see; augment/east/chain.h
// keep_visible_words for EAST).
struct CompactRow {
  ColorParams color;
  std::vector<double> quads;          // 8 coordinates per word, crop px
  std::vector<unsigned char> labels;  // per word: 1 = text, 0 = ignored
};

// How far a sent word may reach: every coordinate within this many crop sides of the crop, in
// [-64 C, 65 C] for a crop of C px. The daemon sends only the words the targets can see
// (augment::keep_visible_words), and those stay well inside it but for a word over 63 crop sides
// long or an annotation far outside its image; a receiver refuses a row with a coordinate beyond it
// as no honest daemon's (a word moved far away would change the targets). A daemon whose visible
// word reaches further fails the batch instead (use the full payload).
inline constexpr double kCompactReachSides = 64;

// "word W reaches X px, beyond 64 crop sides of the C px crop" for the first coordinate of `row`
// beyond kCompactReachSides crop sides of a `crop_size` crop (or not finite); "" when none is.
std::string beyond_compact_reach(const CompactRow& row, int crop_size);

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

}  // namespace textfeed
