// Quad: one word box, four corners x1,y1,...,x4,y4 in the order the annotation gives them
// (ICDAR: clockwise from the word's top-left). float32, as the reference pipelines keep them.
#pragma once

#include <array>

namespace textfeed {

struct Quad {
  std::array<float, 8> xy{};

  float x(int i) const { return xy[2 * i]; }
  float y(int i) const { return xy[2 * i + 1]; }
};

// Label of a word: 1 = valid text (gets targets), 0 = ignored ("###", illegible).
inline constexpr unsigned char kLabelIgnored = 0;
inline constexpr unsigned char kLabelValid = 1;

}  // namespace textfeed
