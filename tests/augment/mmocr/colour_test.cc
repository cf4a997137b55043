// The mmocr profiles' colour draws against torchvision's ColorJitter (docs/targets.md §9.4): every
// sample jittered, each enabled factor uniform in [1 - b, 1 + b] (Kolmogorov-Smirnov), the
// disabled ones exactly 1 (hue 0), and the order of the four operations a uniform permutation
// (chi-square over the 24 orders). N = 10^4 draws; critical values at alpha = 0.001.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "augment/colour/photometric.h"
#include "augment/profile.h"
#include "base/rng.h"

namespace textfeed::augment {
namespace {

constexpr int kDraws = 10000;
// Kolmogorov-Smirnov: D * sqrt(N) > 1.95 rejects uniformity at alpha = 0.001.
constexpr double kKsCritical = 1.95;
// Chi-square with 23 degrees of freedom, alpha = 0.001.
constexpr double kChi2Critical = 49.73;

double ks_statistic(std::vector<double> v, double lo, double hi) {
  std::sort(v.begin(), v.end());
  double d = 0;
  const double n = static_cast<double>(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double f = (v[i] - lo) / (hi - lo);
    d = std::max({d, (i + 1) / n - f, f - i / n});
  }
  return d * std::sqrt(n);
}

struct Draws {
  std::vector<double> brightness, contrast, saturation, hue;
  std::map<std::array<int, 4>, int> orders;
  int applied = 0;
};

Draws draw(Profile profile) {
  const AugmentOptions o = profile_defaults(profile);
  Draws d;
  for (int i = 0; i < kDraws; ++i) {
    Rng rng(7, 0, static_cast<uint64_t>(i));
    const ColorParams c = draw_color_params(o, rng);
    d.applied += c.applied ? 1 : 0;
    d.brightness.push_back(c.brightness);
    d.contrast.push_back(c.contrast);
    d.saturation.push_back(c.saturation);
    d.hue.push_back(c.hue);
    std::array<int, 4> order{};
    for (int k = 0; k < 4; ++k) order[k] = static_cast<int>(c.order[k]);
    ++d.orders[order];
  }
  return d;
}

void expect_uniform(const std::vector<double>& v, double lo, double hi, const char* what) {
  EXPECT_GE(*std::min_element(v.begin(), v.end()), lo) << what;
  EXPECT_LE(*std::max_element(v.begin(), v.end()), hi) << what;
  EXPECT_LT(ks_statistic(v, lo, hi), kKsCritical) << what;
}

void expect_constant(const std::vector<double>& v, double value, const char* what) {
  for (double x : v) ASSERT_EQ(x, value) << what;
}

void expect_uniform_orders(const Draws& d) {
  ASSERT_EQ(d.orders.size(), 24u);
  double chi2 = 0;
  const double expected = kDraws / 24.0;
  for (const auto& [order, count] : d.orders)
    chi2 += (count - expected) * (count - expected) / expected;
  EXPECT_LT(chi2, kChi2Critical);
}

TEST(MmocrColourTest, PsenetPanetTextsnakeJitterBrightnessAndSaturationAlways) {
  for (Profile p : {Profile::kPsenet, Profile::kPanet, Profile::kTextsnake}) {
    const Draws d = draw(p);
    EXPECT_EQ(d.applied, kDraws);
    expect_uniform(d.brightness, 1 - 32.0 / 255, 1 + 32.0 / 255, "brightness");
    expect_uniform(d.saturation, 0.5, 1.5, "saturation");
    expect_constant(d.contrast, 1.0, "contrast");
    expect_constant(d.hue, 0.0, "hue");
    expect_uniform_orders(d);
  }
}

TEST(MmocrColourTest, FcenetAlsoJittersContrast) {
  const Draws d = draw(Profile::kFcenet);
  EXPECT_EQ(d.applied, kDraws);
  expect_uniform(d.brightness, 1 - 32.0 / 255, 1 + 32.0 / 255, "brightness");
  expect_uniform(d.contrast, 0.5, 1.5, "contrast");
  expect_uniform(d.saturation, 0.5, 1.5, "saturation");
  expect_constant(d.hue, 0.0, "hue");
  expect_uniform_orders(d);
}

}  // namespace
}  // namespace textfeed::augment
