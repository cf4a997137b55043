// Geometry plan invariants.
#include "augment/plan.h"

#include <gtest/gtest.h>

#include "augment/polygon.h"

namespace textfeed::augment {
namespace {

std::vector<Quad> row_of_words(int n) {
  std::vector<Quad> q;
  for (int k = 0; k < n; ++k) {
    const float x = 100.f + 70.f * k;
    q.push_back(Quad{{x, 300, x + 50, 300, x + 50, 330, x, 330}});
  }
  return q;
}

TEST(PlanTest, CropLiesInsideTheUpscaledImageAndUsesFourDraws) {
  const auto quads = row_of_words(0);
  AugmentOptions o = profile_defaults(Profile::kSakura);
  GeometryPlan p;
  for (uint64_t i = 0; i < 200; ++i) {
    Rng rng(1, 0, i);
    ASSERT_TRUE(plan_geometry(p, 400, 300, quads, {}, o, rng).ok());
    EXPECT_GE(std::min(p.upscaled.width, p.upscaled.height), 512);
    EXPECT_GE(p.crop_x, 0);
    EXPECT_LE(p.crop_x + 512, p.upscaled.width);
    EXPECT_LE(p.crop_y + 512, p.upscaled.height);
    EXPECT_EQ(p.draws, 4);  // height, angle, one crop try of two draws
  }
}

TEST(PlanTest, IgnoreCutMarksCutWordsOnFallback) {
  // Words everywhere: a 512 crop of a 600x600 image cannot avoid cutting some.
  std::vector<Quad> quads;
  for (int y = 0; y < 600; y += 40)
    for (int x = 0; x < 600; x += 70) quads.push_back(Quad{{float(x), float(y), float(x + 60), float(y), float(x + 60),
                                                            float(y + 30), float(x), float(y + 30)}});
  std::vector<unsigned char> labels(quads.size(), kLabelValid);
  AugmentOptions o = profile_defaults(Profile::kSakura);
  o.crop_max_tries = 50;
  o.crop_fallback = CropFallback::kIgnoreCut;
  GeometryPlan p;
  Rng rng(2, 0, 0);
  ASSERT_TRUE(plan_geometry(p, 600, 600, quads, labels, o, rng).ok());
  ASSERT_TRUE(p.fallback);
  EXPECT_EQ(p.tries, 50);
  int ignored = 0;
  for (unsigned char l : p.labels) ignored += (l == kLabelIgnored);
  EXPECT_GT(ignored, 0);
}

TEST(PlanTest, ZeroAreaValidWordDoesNotDivideByZero) {
  const std::vector<Quad> quads{Quad{{50, 50, 50, 50, 50, 50, 50, 50}}};
  const std::vector<unsigned char> labels{kLabelValid};
  GeometryPlan p;
  Rng rng(3, 0, 0);
  ASSERT_TRUE(plan_geometry(p, 1280, 720, quads, labels, profile_defaults(Profile::kSakura), rng).ok());
  EXPECT_EQ(p.tries, 1);
  for (double v : p.vertices) EXPECT_TRUE(std::isfinite(v));
}

TEST(PlanTest, RejectsEmptySourceAndMismatch) {
  GeometryPlan p;
  Rng rng(0, 0, 0);
  const auto quads = row_of_words(2);
  EXPECT_FALSE(plan_geometry(p, 0, 10, {}, {}, profile_defaults(Profile::kSakura), rng).ok());
  EXPECT_FALSE(plan_geometry(p, 100, 100, quads, {}, profile_defaults(Profile::kSakura), rng).ok());
}

}  // namespace
}  // namespace textfeed::augment
