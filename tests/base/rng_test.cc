// Rng: numpy legacy replay is bit-exact; derived streams are deterministic and distinct.
#include "base/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace textfeed {
namespace {

TEST(RngTest, NumpyLegacyMatchesKnownValues) {
  // np.random.seed(0); np.random.rand(3)
  Rng r0 = Rng::numpy_legacy(0);
  EXPECT_EQ(r0.uniform(), 0.5488135039273248);
  EXPECT_EQ(r0.uniform(), 0.7151893663724195);
  EXPECT_EQ(r0.uniform(), 0.6027633760716439);
  // np.random.seed(42); np.random.rand()
  Rng r42 = Rng::numpy_legacy(42);
  EXPECT_EQ(r42.uniform(), 0.3745401188473625);
  EXPECT_EQ(r42.uniform(), 0.9507143064099162);
  EXPECT_EQ(r42.draws(), 2);
}

TEST(RngTest, DerivedStreamsAreDeterministic) {
  Rng a(7, 3, 100), b(7, 3, 100);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.uniform(), b.uniform());
}

TEST(RngTest, DerivedStreamsDifferAcrossSeedEpochIndex) {
  std::set<double> firsts;
  for (uint64_t seed = 0; seed < 4; ++seed)
    for (uint64_t epoch = 0; epoch < 4; ++epoch)
      for (uint64_t index = 0; index < 64; ++index)
        firsts.insert(Rng(seed, epoch, index).uniform());
  EXPECT_EQ(firsts.size(), 4u * 4u * 64u);
}

TEST(RngTest, UniformMomentsAndRange) {
  Rng r(1, 0, 0);
  const int n = 200000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum2 += u * u;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // 4-sigma bounds: sd(mean) = sqrt(1/12/n).
  EXPECT_NEAR(mean, 0.5, 4 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 0.002);
}

TEST(RngTest, BelowIsUniformAndInRange) {
  Rng r(2, 0, 0);
  int counts[6] = {};
  const int n = 60000;
  for (int i = 0; i < n; ++i) {
    uint32_t v = r.below(6);
    ASSERT_LT(v, 6u);
    ++counts[v];
  }
  double chi2 = 0;
  for (int c : counts) chi2 += (c - n / 6.0) * (c - n / 6.0) / (n / 6.0);
  EXPECT_LT(chi2, 15.09);  // chi-square, 5 dof, alpha = 0.01
}

}  // namespace
}  // namespace textfeed
