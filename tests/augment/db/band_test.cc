// The DB border band kernels (augment/db/band.h): every kernel of a formula gives the same bits,
// and the fast formula stays within a few float32 ulps of the reference's, NaN where it has NaN.
// (The fast formula against PaddleOCR's own outputs: tests/python/test_golden_db.py.)
#include "augment/db/band.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace textfeed::augment::internal {
namespace {

constexpr DbBandKernel kKernels[] = {DbBandKernel::kScalar, DbBandKernel::kSse2,
                                     DbBandKernel::kAvx2};

// A band region of w x h pixels and the edges of one ring folded into it, as db_targets.cc does.
struct Band {
  long w, h;
  std::vector<float> values;
  Band(long w_, long h_) : w(w_), h(h_), values(static_cast<size_t>(w_ * h_), 1.0f) {}
  void fold(const std::vector<double>& ring, double width, DbBandFormula formula,
            DbBandKernel kernel) {
    const DbBandRegion r{0, 0, w - 1, h - 1, values.data()};
    const size_t n = ring.size() / 2;
    for (size_t i = 0; i < n; ++i) {
      const size_t j = (i + 1) % n;
      const double p1x = ring[2 * i], p1y = ring[2 * i + 1], p2x = ring[2 * j],
                   p2y = ring[2 * j + 1];
      const double sd = (p1x - p2x) * (p1x - p2x) + (p1y - p2y) * (p1y - p2y);
      fold_db_edge(r, DbEdge{p1x, p1y, p2x, p2y, sd, width}, formula, kernel);
    }
  }
};

// Rings that reach every branch: random float polygons, integer ones (pixels exactly on edges and
// vertices), one padded by its repeated last point (a degenerate edge: NaN on its pixel), thin
// long ones (the reference's cancellation near the line) and a tiny one.
std::vector<std::vector<double>> test_rings(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::vector<double>> rings;
  for (int k = 0; k < 6; ++k) {
    std::vector<double> ring;
    const int n = 3 + static_cast<int>(u(rng) * 12);
    const double cx = 20 + 60 * u(rng), cy = 20 + 60 * u(rng), rx = 5 + 30 * u(rng),
                 ry = 3 + 20 * u(rng);
    for (int i = 0; i < n; ++i) {
      const double t = 2 * M_PI * i / n + 0.2 * u(rng);
      ring.push_back(cx + rx * std::cos(t)), ring.push_back(cy + ry * std::sin(t));
    }
    rings.push_back(ring);
  }
  rings.push_back({10, 10, 90, 10, 90, 40, 10, 40});
  rings.push_back({10, 10, 70, 30, 40, 80, 40, 80, 40, 80});  // padded: two degenerate edges
  rings.push_back({3.25, 50.5, 97.75, 49.0, 97.5, 52.0, 3.0, 53.5});  // 94 x 3 px
  rings.push_back({50.2, 50.1, 51.1, 50.3, 50.6, 51.0});
  // Its first edge runs through the pixels (13, 49), (16, 48), ... with inexact ends: there the
  // reference's 1 - cosin^2 can round below zero (NaN).
  rings.push_back({10, 50, 10 + 200.0 / 3, 50 - 200.0 / 9, 80, 70, 15, 75});
  return rings;
}

float ulp(float v) { return std::nextafter(std::fabs(v), 2.0f) - std::fabs(v); }

TEST(DbBandTest, EveryKernelOfAFormulaGivesTheSameBits) {
  for (DbBandFormula formula : {DbBandFormula::kReference, DbBandFormula::kFast})
    for (unsigned seed = 1; seed <= 8; ++seed)
      for (const std::vector<double>& ring : test_rings(seed))
        for (double width : {0.7, 4.2, 13.0}) {
          Band want(101, 97);
          want.fold(ring, width, formula, DbBandKernel::kScalar);
          for (DbBandKernel kernel : kKernels) {
            if (!db_band_kernel_supported(kernel)) continue;
            Band got(101, 97);
            got.fold(ring, width, formula, kernel);
            ASSERT_EQ(0, std::memcmp(want.values.data(), got.values.data(), 4 * want.values.size()))
                << "formula " << static_cast<int>(formula) << " kernel " << static_cast<int>(kernel)
                << " seed " << seed << " width " << width;
          }
        }
}

TEST(DbBandTest, TheFastFormulaIsWithinAFewUlpsOfTheReferenceAndNanWhereItIs) {
  int nans = 0;
  for (unsigned seed = 1; seed <= 16; ++seed)
    for (const std::vector<double>& ring : test_rings(seed))
      for (double width : {0.7, 4.2, 13.0}) {
        Band ref(101, 97), fast(101, 97);
        ref.fold(ring, width, DbBandFormula::kReference, DbBandKernel::kScalar);
        fast.fold(ring, width, DbBandFormula::kFast, best_db_band_kernel());
        for (size_t i = 0; i < ref.values.size(); ++i) {
          const float a = ref.values[i], b = fast.values[i];
          ASSERT_EQ(std::isnan(a), std::isnan(b)) << "pixel " << i << " seed " << seed;
          if (std::isnan(a)) {
            ++nans;
            continue;
          }
          // Near an edge the reference's own float64 cancellation dominates: allow 1e-8 px of
          // distance beyond the four ulps (measured: under 1e-10 px).
          ASSERT_LE(std::fabs(a - b), 4 * ulp(a) + 1e-8 / width)
              << "pixel " << i << ": " << a << " vs " << b << " seed " << seed << " width "
              << width;
        }
      }
  EXPECT_GT(nans, 0);  // the padded ring's repeated point lies on a pixel
}

TEST(DbBandTest, PixelsOnAnEdgeGetZeroAndBeyondTheWidthOne) {
  for (DbBandFormula formula : {DbBandFormula::kReference, DbBandFormula::kFast}) {
    Band b(60, 40);
    b.fold({10, 10, 50, 10, 50, 30, 10, 30}, 5.0, formula, best_db_band_kernel());
    EXPECT_EQ(b.values[10 * 60 + 30], 0.0f);  // on the top edge
    EXPECT_EQ(b.values[20 * 60 + 30], 1.0f);  // 10 px from every edge
    EXPECT_NEAR(b.values[12 * 60 + 30], 2.0f / 5.0f, 1e-7);
    EXPECT_NEAR(b.values[7 * 60 + 53], std::sqrt(18.0f) / 5.0f, 1e-7);  // the corner's disk
  }
}

TEST(DbBandTest, PixelsOnASegmentAreNanWhereTheReferenceRoundsBelowZero) {
  const std::vector<double> ring = {10, 50, 10 + 200.0 / 3, 50 - 200.0 / 9, 80, 70, 15, 75};
  Band ref(101, 97), fast(101, 97);
  ref.fold(ring, 6.0, DbBandFormula::kReference, DbBandKernel::kScalar);
  fast.fold(ring, 6.0, DbBandFormula::kFast, best_db_band_kernel());
  int on_edge_nans = 0;
  for (int k = 1; k < 22; ++k) {  // (10 + 3k, 50 - k): on the first edge, no vertex
    const size_t i = static_cast<size_t>((50 - k) * 101 + 10 + 3 * k);
    // There the fast formula takes the reference's steps: the same bits, NaN or not.
    EXPECT_EQ(std::isnan(ref.values[i]), std::isnan(fast.values[i])) << k;
    if (std::isnan(ref.values[i]))
      ++on_edge_nans;
    else
      EXPECT_EQ(fast.values[i], ref.values[i]) << k;
  }
  EXPECT_GT(on_edge_nans, 0);
}

TEST(DbBandTest, TheScalarKernelIsAlwaysThereAndTheBestIsSupported) {
  EXPECT_TRUE(db_band_kernel_supported(DbBandKernel::kScalar));
  EXPECT_TRUE(db_band_kernel_supported(best_db_band_kernel()));
}

}  // namespace
}  // namespace textfeed::augment::internal
