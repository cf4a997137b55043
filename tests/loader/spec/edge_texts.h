// Texts just outside a row's bound, at each end a text can reach (tests of the spec's tables at
// every edge: tests/loader/spec/spec_fields_test.cc, tests/transport/field_edges_test.cc).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "base/field_table.h"

namespace textfeed::testing {

// For a number: the nearest value past each end (an open end itself); for a text: one byte too
// few and too many; for a text list: one name too few and too many. An end no text can pass (0
// of a uint64, of a length or of a count) and the 0 a zero_is_off bound allows are left out.
// Bool and enum rows have no bound: none.
template <class O>
std::vector<std::string> edge_texts(const Field<O>& f) {
  const FieldBound& b = f.bound;
  std::vector<std::string> out;
  const auto keep = [&](double v) {
    if (!(b.zero_is_off && v == 0)) out.push_back(field_detail::number_text(v));
  };
  switch (f.kind) {
    case FieldKind::kInt:
      keep(b.lo_open ? b.lo : b.lo - 1);
      keep(b.hi_open ? b.hi : b.hi + 1);
      break;
    case FieldKind::kDouble:
      keep(b.lo_open ? b.lo : std::nextafter(b.lo, -INFINITY));
      keep(b.hi_open ? b.hi : std::nextafter(b.hi, INFINITY));
      break;
    case FieldKind::kUint64:
      if (b.lo > 0) out.push_back(std::to_string(static_cast<uint64_t>(b.lo) - 1));
      if (b.hi < 0x1p64) out.push_back(std::to_string(static_cast<uint64_t>(b.hi) + 1));
      break;
    case FieldKind::kText:
      if (b.lo > 0) out.push_back(std::string(static_cast<size_t>(b.lo) - 1, 'a'));
      out.push_back(std::string(static_cast<size_t>(b.hi) + 1, 'a'));
      break;
    case FieldKind::kTextList:
      for (const double count : {b.lo - 1, b.hi + 1}) {
        if (count < 0) continue;
        std::string names;
        for (int k = 0; k < static_cast<int>(count); ++k)
          names += (k ? ",n" : "n") + std::to_string(k);
        out.push_back(names);
      }
      break;
    default:
      break;
  }
  return out;
}

}  // namespace textfeed::testing
