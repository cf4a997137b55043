// numpy 1.24's argsort order (augment/fcenet/numpy_argsort.h). The orders of equal keys below were
// recorded from numpy 1.24.2's np.argsort; the port was also checked equal to it on 4000 arrays of
// 0-700 keys with ties and on inputs that reach the heapsort fallback.
#include "augment/fcenet/numpy_argsort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace textfeed::augment {
namespace {

bool sorts(const std::vector<double>& keys, const std::vector<int64_t>& order) {
  std::vector<int64_t> seen(order);
  std::sort(seen.begin(), seen.end());
  for (size_t i = 0; i < seen.size(); ++i)
    if (seen[i] != static_cast<int64_t>(i)) return false;
  for (size_t i = 1; i < order.size(); ++i)
    if (keys[order[i]] < keys[order[i - 1]]) return false;
  return order.size() == keys.size();
}

TEST(NumpyArgsortTest, EqualKeysComeInNumpysUnstableOrder) {
  // np.argsort(np.full(20, 1.0)): the median-of-3 partition of 20 keys, then insertion sorts.
  const std::vector<double> same(20, 1.0);
  const std::vector<int64_t> expect = {0, 17, 16, 15, 14, 13, 12, 11, 10, 9,
                                       8, 7,  6,  5,  4,  3,  2,  1,  18, 19};
  EXPECT_EQ(numpy_argsort(same), expect);
  // np.argsort(np.array([1.0, 0, 1, 0, 1, 0] * 5))
  std::vector<double> alternating;
  for (int i = 0; i < 30; ++i) alternating.push_back(i % 2 == 0 ? 1.0 : 0.0);
  const std::vector<int64_t> expect_alt = {29, 15, 21, 13, 11, 23, 17, 9,  25, 5, 3, 27, 1, 7,  19,
                                           24, 26, 22, 20, 0,  16, 28, 12, 10, 8, 6, 4,  2, 18, 14};
  EXPECT_EQ(numpy_argsort(alternating), expect_alt);
}

TEST(NumpyArgsortTest, ShortInputsAreInsertionSortedStably) {
  const std::vector<double> keys = {3, 1, 2, 1, 3, 0};
  EXPECT_EQ(numpy_argsort(keys), (std::vector<int64_t>{5, 1, 3, 2, 0, 4}));
  EXPECT_TRUE(numpy_argsort(std::vector<double>{}).empty());
}

TEST(NumpyArgsortTest, RandomKeysWithTiesAreSorted) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> keys(rng() % 700);
    for (double& k : keys) k = static_cast<double>(rng() % 7) / 4.0;
    ASSERT_TRUE(sorts(keys, numpy_argsort(keys))) << trial;
    ASSERT_TRUE(sorts(keys, numpy_argsort_heapsort_for_testing(keys))) << trial;
  }
}

TEST(NumpyArgsortTest, ADepthExhaustingInputFallsBackToHeapsortAndStaysSorted) {
  // (2 i) mod 400 for i < 400 exhausts the introsort's depth budget of 2 * 8 partitions.
  std::vector<double> keys(400);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<double>((2 * i) % 400);
  EXPECT_TRUE(sorts(keys, numpy_argsort(keys)));
}

TEST(NumpyArgsortTest, NanSortsLast) {
  const std::vector<double> keys = {2, NAN, 1, 0};
  EXPECT_EQ(numpy_argsort(keys), (std::vector<int64_t>{3, 2, 0, 1}));
}

}  // namespace
}  // namespace textfeed::augment
