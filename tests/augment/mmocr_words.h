// The words of one test sample for the mmocr target functions (augment/geometry/text_kernels.h's
// TextKernelWords): polygons owned here and viewed by the function under test, and the
// axis-aligned boxes most tests draw.
#pragma once

#include <cstdint>
#include <vector>

#include "augment/geometry/text_kernels.h"

namespace textfeed::augment::testing {

// Flat xy, point counts and ignore flags on a height x width canvas. view() borrows them: it is
// valid while this object lives and is not changed.
struct Words {
  std::vector<float> xy;
  std::vector<int32_t> npts;
  std::vector<uint8_t> ignored;
  int height = 0;
  int width = 0;

  Words(int h, int w) : height(h), width(w) {}

  // Appends polygon `poly` (x0, y0, x1, y1, ...); `ignore` marks it '###'.
  Words& add(const std::vector<float>& poly, bool ignore = false) {
    xy.insert(xy.end(), poly.begin(), poly.end());
    npts.push_back(static_cast<int32_t>(poly.size() / 2));
    ignored.push_back(ignore ? 1 : 0);
    return *this;
  }

  TextKernelWords view() const { return {xy, npts, ignored, height, width}; }
};

// The clockwise quad (x0, y0) (x1, y0) (x1, y1) (x0, y1), in px.
inline std::vector<float> rect(float x0, float y0, float x1, float y1) {
  return {x0, y0, x1, y0, x1, y1, x0, y1};
}

// The quad of the box at (x, y) that is bw wide and bh high, in px.
inline std::vector<float> box(float x, float y, float bw, float bh) {
  return rect(x, y, x + bw, y + bh);
}

}  // namespace textfeed::augment::testing
