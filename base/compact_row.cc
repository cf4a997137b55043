// The compact rows' words: how far a receiver lets them reach.
#include "base/compact_row.h"

#include <cmath>
#include <sstream>

namespace textfeed {

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

}  // namespace textfeed
