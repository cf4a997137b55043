// numpy 1.24's default argsort of float64 keys (kind='quicksort', which is an introsort), written
// out so that equal keys come out in the order numpy puts them. That order is not stable and
// FCENet's start point depends on it (augment/fcenet/targets.h, docs/targets.md §9.2).
// numpy >= 1.25 sorts with AVX-512 code on CPUs that have it, in another order; mmocr's own
// targets then depend on the numpy version.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace textfeed::augment {

// The indices that sort `keys` ascending, as np.argsort(keys) in numpy 1.24: median-of-3
// quicksort down to 16 elements, insertion sort below, heapsort past a depth of 2 * log2(n).
// NaN keys sort last. Thread-safety: reentrant.
std::vector<int64_t> numpy_argsort(std::span<const double> keys);

// np.argsort(keys, kind='heapsort') in numpy 1.24 (the introsort's fallback). Exposed to test it.
std::vector<int64_t> numpy_argsort_heapsort_for_testing(std::span<const double> keys);

}  // namespace textfeed::augment
