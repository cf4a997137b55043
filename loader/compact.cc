// The compact rows' words: what a daemon sends of them, and how far a receiver lets them reach.
#include "loader/compact.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "augment/targets.h"

namespace textfeed::loader {

namespace {

// Whether the target builder draws the quad at all (make_targets: usable()).
bool drawn(std::span<const double> q) {
  return std::all_of(q.begin(), q.end(),
                     [](double v) { return std::abs(v) <= augment::kMaxTargetCoord; });
}

// Every corner more than one crop side off the crop on one side: the quad, its shrunk quad and its
// box lie there too, so no pixel of the crop or of the maps is painted, and an even-odd fill of
// the others meets an even number of its edges on every row, all off the image.
bool wholly_off(std::span<const double> q, double c) {
  bool left = true, right = true, above = true, below = true;
  for (int k = 0; k < 4; ++k) {
    const double x = q[2 * k], y = q[2 * k + 1];
    left = left && x < -c, right = right && x > 2 * c;
    above = above && y < -c, below = below && y > 2 * c;
  }
  return left || right || above || below;
}

}  // namespace

void keep_visible_words(std::span<const double> quads, std::span<const unsigned char> labels,
                        int crop_size, CompactRow& row) {
  row.quads.clear();
  row.labels.clear();
  for (size_t w = 0; w < labels.size() && 8 * w + 8 <= quads.size(); ++w) {
    const std::span<const double> q = quads.subspan(8 * w, 8);
    if (!drawn(q) || wholly_off(q, crop_size)) continue;
    row.quads.insert(row.quads.end(), q.begin(), q.end());
    row.labels.push_back(labels[w]);
  }
}

std::string beyond_compact_reach(const CompactRow& row, int crop_size) {
  const double c = crop_size, lo = -kCompactReachSides * c, hi = (kCompactReachSides + 1) * c;
  for (size_t i = 0; i < row.quads.size(); ++i) {
    if (row.quads[i] >= lo && row.quads[i] <= hi) continue;
    std::ostringstream s;
    s << "word " << i / 8 << " reaches " << row.quads[i] << " px, beyond " << kCompactReachSides
      << " crop sides of the " << crop_size << " px crop";
    return s.str();
  }
  return {};
}

}  // namespace textfeed::loader
