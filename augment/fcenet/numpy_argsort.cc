// numpy 1.24's argsort of float64 keys (numpy_argsort.h): the same partitions, swaps and
// fallbacks as its aquicksort_ and aheapsort_, so that equal keys end in the same order.
#include "augment/fcenet/numpy_argsort.h"

#include <numeric>
#include <utility>

namespace textfeed::augment {
namespace {

// Partitions spanning more than this many positions (hi - lo) are split; smaller ones are
// insertion-sorted (numpy's SMALL_QUICKSORT).
constexpr int64_t kSmallQuicksort = 15;

// numpy's float order: NaN after every number.
bool less(double a, double b) { return a < b || (b != b && a == a); }

// npy_get_msb: the index of the highest set bit (the introsort's depth budget is twice it).
int msb(uint64_t n) {
  int depth = 0;
  while (n >>= 1) ++depth;
  return depth;
}

// aheapsort_ on idx[0, n): a max-heap in 1-based positions, sifted down with strict compares.
void heapsort(std::span<const double> v, int64_t* idx, int64_t n) {
  auto at = [idx](int64_t pos) -> int64_t& { return idx[pos - 1]; };
  auto sift = [&](int64_t from, int64_t end) {
    const int64_t moving = at(from);
    int64_t i = from;
    for (int64_t j = from << 1; j <= end;) {
      if (j < end && less(v[at(j)], v[at(j + 1)])) ++j;
      if (!less(v[moving], v[at(j)])) break;
      at(i) = at(j);
      i = j;
      j += j;
    }
    at(i) = moving;
  };
  for (int64_t l = n >> 1; l > 0; --l) sift(l, n);
  for (int64_t end = n; end > 1;) {
    std::swap(at(1), at(end));
    --end;
    sift(1, end);
  }
}

void insertion_sort(std::span<const double> v, std::vector<int64_t>& idx, int64_t lo, int64_t hi) {
  for (int64_t i = lo + 1; i <= hi; ++i) {
    const int64_t moving = idx[i];
    const double key = v[moving];
    int64_t j = i;
    for (; j > lo && less(key, v[idx[j - 1]]); --j) idx[j] = idx[j - 1];
    idx[j] = moving;
  }
}

// One median-of-3 partition of idx[lo, hi]; returns the pivot's final position.
int64_t partition(std::span<const double> v, std::vector<int64_t>& idx, int64_t lo, int64_t hi) {
  const int64_t mid = lo + ((hi - lo) >> 1);
  if (less(v[idx[mid]], v[idx[lo]])) std::swap(idx[mid], idx[lo]);
  if (less(v[idx[hi]], v[idx[mid]])) std::swap(idx[hi], idx[mid]);
  if (less(v[idx[mid]], v[idx[lo]])) std::swap(idx[mid], idx[lo]);
  const double pivot = v[idx[mid]];
  int64_t i = lo, j = hi - 1;
  std::swap(idx[mid], idx[j]);
  for (;;) {
    do ++i;
    while (less(v[idx[i]], pivot));
    do --j;
    while (less(pivot, v[idx[j]]));
    if (i >= j) break;
    std::swap(idx[i], idx[j]);
  }
  std::swap(idx[i], idx[hi - 1]);
  return i;
}

struct Pending {
  int64_t lo;
  int64_t hi;
  int depth;
};

}  // namespace

std::vector<int64_t> numpy_argsort(std::span<const double> keys) {
  std::vector<int64_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), int64_t{0});
  std::vector<Pending> stack;
  int64_t lo = 0, hi = static_cast<int64_t>(keys.size()) - 1;
  int depth = 2 * msb(keys.size());
  for (;;) {
    // The depth budget is checked only for a range taken from the stack (and the first one).
    if (depth < 0) {
      heapsort(keys, idx.data() + lo, hi - lo + 1);
    } else {
      while (hi - lo > kSmallQuicksort) {
        const int64_t p = partition(keys, idx, lo, hi);
        // The larger side waits on the stack; the smaller one goes on.
        if (p - lo < hi - p) {
          stack.push_back({p + 1, hi, --depth});
          hi = p - 1;
        } else {
          stack.push_back({lo, p - 1, --depth});
          lo = p + 1;
        }
      }
      insertion_sort(keys, idx, lo, hi);
    }
    if (stack.empty()) break;
    lo = stack.back().lo;
    hi = stack.back().hi;
    depth = stack.back().depth;
    stack.pop_back();
  }
  return idx;
}

std::vector<int64_t> numpy_argsort_heapsort_for_testing(std::span<const double> keys) {
  std::vector<int64_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), int64_t{0});
  if (!idx.empty()) heapsort(keys, idx.data(), static_cast<int64_t>(idx.size()));
  return idx;
}

}  // namespace textfeed::augment
