// DeferredRow: what a receiver needs besides a row's warped uint8 crop to finish the row itself —
// the colour draw and the words after the augmentation (the compact payload, loader/compact.h).
#pragma once

#include <vector>

#include "augment/photometric.h"

namespace textfeed::augment {

struct DeferredRow {
  ColorParams color;
  std::vector<double> quads;          // 8 coordinates per word, crop px
  std::vector<unsigned char> labels;  // per word: 1 = text, 0 = ignored
};

}  // namespace textfeed::augment
