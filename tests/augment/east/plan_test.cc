// Geometry plan invariants.
#include "augment/east/plan.h"

#include <gtest/gtest.h>

#include <cmath>

#include "augment/geometry/polygon.h"

namespace textfeed::augment {
namespace {

// Fraction of word `i`'s hull area inside the crop square [0, len]^2 (final crop coordinates).
double inside_fraction(const GeometryPlan& p, size_t i, double len) {
  const auto pts = quad_points(std::span<const double, 8>(p.vertices.data() + 8 * i, 8));
  const auto hull = convex_hull(pts);
  return clipped_area(hull, 0, 0, len, len) / polygon_area(hull);
}

std::vector<Quad> grid_of_words(int w, int h, int step_x, int step_y) {
  std::vector<Quad> quads;
  for (int y = 10; y + 30 < h; y += step_y)
    for (int x = 10; x + 60 < w; x += step_x)
      quads.push_back(Quad{{float(x), float(y), float(x + 60), float(y), float(x + 60),
                            float(y + 30), float(x), float(y + 30)}});
  return quads;
}

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
    for (int x = 0; x < 600; x += 70)
      quads.push_back(Quad{{float(x), float(y), float(x + 60), float(y), float(x + 60),
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
  ASSERT_TRUE(
      plan_geometry(p, 1280, 720, quads, labels, profile_defaults(Profile::kSakura), rng).ok());
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

TEST(PlanTest, AcceptedCropNeverCutsAValidWord) {
  const auto quads = grid_of_words(1000, 800, 150, 110);
  std::vector<unsigned char> labels(quads.size(), kLabelValid);
  labels[3] = kLabelIgnored;  // ignored words are never checked
  const AugmentOptions o = profile_defaults(Profile::kSakura);
  GeometryPlan p;
  int accepted = 0;
  for (uint64_t i = 0; i < 300; ++i) {
    Rng rng(4, 0, i);
    ASSERT_TRUE(plan_geometry(p, 1000, 800, quads, labels, o, rng).ok());
    EXPECT_EQ(p.draws, 2 + 2 * p.tries);
    if (p.fallback) {
      EXPECT_EQ(p.tries, o.crop_max_tries);
      continue;
    }
    ++accepted;
    for (size_t k = 0; k < quads.size(); ++k) {
      if (labels[k] != kLabelValid) continue;
      const double f = inside_fraction(p, k, o.crop_size);
      EXPECT_FALSE(f >= o.cut_low && f <= o.cut_high)
          << "sample " << i << " word " << k << " fraction " << f;
    }
  }
  EXPECT_GT(accepted, 0);
}

TEST(PlanTest, IgnoreCutMarksExactlyTheCutValidWords) {
  const auto quads = grid_of_words(600, 600, 70, 40);
  std::vector<unsigned char> labels(quads.size(), kLabelValid);
  labels[0] = kLabelIgnored;
  AugmentOptions o = profile_defaults(Profile::kSakura);
  o.crop_max_tries = 20;
  GeometryPlan keep, mark;
  for (uint64_t i = 0; i < 20; ++i) {
    o.crop_fallback = CropFallback::kKeepLast;
    Rng a(6, 0, i);
    ASSERT_TRUE(plan_geometry(keep, 600, 600, quads, labels, o, a).ok());
    o.crop_fallback = CropFallback::kIgnoreCut;
    Rng b(6, 0, i);
    ASSERT_TRUE(plan_geometry(mark, 600, 600, quads, labels, o, b).ok());
    ASSERT_TRUE(keep.fallback);
    EXPECT_EQ(keep.vertices, mark.vertices);  // same draws, same crop: only labels differ
    EXPECT_EQ(keep.labels, labels);
    EXPECT_EQ(mark.labels[0], kLabelIgnored);
    for (size_t k = 1; k < quads.size(); ++k) {
      const double f = inside_fraction(mark, k, o.crop_size);
      const bool cut = f >= o.cut_low && f <= o.cut_high;
      EXPECT_EQ(mark.labels[k], cut ? kLabelIgnored : kLabelValid)
          << "word " << k << " fraction " << f;
    }
  }
}

TEST(PlanTest, PreResizedInputPlansTheSameAfterTheResizeStep) {
  // A 3000x4000 source with image_size 2048: r = 0.512, resized to (1536, 2048).
  const int w = 3000, h = 4000;
  std::vector<Quad> quads;
  for (int k = 0; k < 40; ++k) {
    const float x = 100.f + 70.f * (k % 8), y = 200.f + 90.f * k;
    quads.push_back(Quad{{x, y, x + 55, y + 3, x + 54, y + 40, x - 1, y + 37}});
  }
  const std::vector<unsigned char> labels(quads.size(), kLabelValid);
  const AugmentOptions o = profile_defaults(Profile::kUpstage);
  const float r = static_cast<float>(2048.0 / 4000);
  std::vector<Quad> resized = quads;
  for (Quad& q : resized)
    for (float& v : q.xy) v *= r;  // float32 like the reference's resize_img
  GeometryPlan full, pre;
  for (uint64_t i = 0; i < 50; ++i) {
    Rng a(8, 0, i), b(8, 0, i);
    ASSERT_TRUE(plan_geometry(full, w, h, quads, labels, o, a).ok());
    ASSERT_TRUE(plan_geometry(pre, 1536, 2048, resized, labels, o, b, /*pre_resized=*/true).ok());
    EXPECT_EQ(full.resized.width, 1536);
    EXPECT_EQ(full.resized.height, 2048);
    EXPECT_EQ(pre.resized.width, 1536);
    EXPECT_EQ(pre.adjusted.height, full.adjusted.height);
    EXPECT_EQ(pre.upscaled.width, full.upscaled.width);
    EXPECT_EQ(pre.draws, full.draws);
    EXPECT_EQ(pre.crop_x, full.crop_x);
    EXPECT_EQ(pre.crop_y, full.crop_y);
    EXPECT_EQ(pre.vertices, full.vertices);
    EXPECT_EQ(pre.labels, full.labels);
    // The pixel matrices differ only by the resize: full = pre * resize (pixel-centre convention).
    const double sx = 1536.0 / w, sy = 2048.0 / h;
    const double rs[6] = {sx, 0, 0.5 * sx - 0.5, 0, sy, 0.5 * sy - 0.5};
    const double* m = pre.matrix;
    const double composed[6] = {m[0] * rs[0], m[1] * rs[4], m[0] * rs[2] + m[1] * rs[5] + m[2],
                                m[3] * rs[0], m[4] * rs[4], m[3] * rs[2] + m[4] * rs[5] + m[5]};
    for (int k = 0; k < 6; ++k) EXPECT_NEAR(full.matrix[k], composed[k], 1e-9) << k;
  }
}

TEST(PlanTest, PixelMatrixFollowsTheVerticesWithinTheConventionGap) {
  // The vertices use x' = x s, the pixels PIL's x' + 0.5 = (x + 0.5) s: after the plan they differ
  // by at most 0.5 |s - 1| per resize (plus the rotation of that offset), well under 2 px here.
  const auto quads = row_of_words(6);
  const std::vector<unsigned char> labels(quads.size(), kLabelIgnored);
  const AugmentOptions o = profile_defaults(Profile::kUpstage);
  GeometryPlan p;
  for (uint64_t i = 0; i < 50; ++i) {
    Rng rng(9, 0, i);
    ASSERT_TRUE(plan_geometry(p, 1200, 900, quads, labels, o, rng).ok());
    for (size_t k = 0; k < quads.size(); ++k)
      for (int c = 0; c < 4; ++c) {
        const double x = quads[k].xy[2 * c], y = quads[k].xy[2 * c + 1];
        const double* m = p.matrix;
        EXPECT_NEAR(m[0] * x + m[1] * y + m[2], p.vertices[8 * k + 2 * c], 2.0);
        EXPECT_NEAR(m[3] * x + m[4] * y + m[5], p.vertices[8 * k + 2 * c + 1], 2.0);
      }
  }
}

}  // namespace
}  // namespace textfeed::augment

namespace textfeed::augment {
namespace {

// Images of extreme aspect: the reference's arithmetic gives an empty side (3000x1 resized to
// 2048 wide is 2048x0; a height jitter can round a 1 px image to 0) or one past int (1e8x1
// upscaled to a 1024 px shorter side). Each is an error naming the step, never a division by zero
// or an out-of-range conversion (UBSan: "inf is outside the range of int").
TEST(PlanTest, ExtremeAspectRatiosAreRefusedNamingTheStep) {
  const std::vector<Quad> none;
  const std::vector<unsigned char> no_labels;
  struct Case {
    Profile profile;
    int w, h;
    bool pre_resized;
    const char* step;
  };
  for (const Case& c : {Case{Profile::kUpstage, 3000, 1, false, "resize_img"},
                        Case{Profile::kUpstage, 1, 3000, false, "resize_img"},
                        Case{Profile::kSakura, 100'000'000, 1, false, "upscale"},
                        Case{Profile::kSakura, 1, 100'000'000, false, "upscale"}}) {
    AugmentOptions o = profile_defaults(c.profile);
    GeometryPlan p;
    Rng rng(1, 0, 0);
    const Status s = plan_geometry(p, c.w, c.h, none, no_labels, o, rng, c.pre_resized);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.w << "x" << c.h << ": " << s.to_string();
    EXPECT_NE(s.message().find(c.step), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(std::to_string(c.w) + "x" + std::to_string(c.h)), std::string::npos)
        << s.message();
  }
  // A 1 px high image whose height jitter rounds it to 0.
  AugmentOptions o = profile_defaults(Profile::kSakura);
  o.height_jitter = 0.9;
  bool refused = false;
  for (uint64_t seed = 0; seed < 64 && !refused; ++seed) {
    GeometryPlan p;
    Rng rng(seed, 0, 0);
    const Status s = plan_geometry(p, 500, 1, none, no_labels, o, rng);
    if (!s.ok()) {
      EXPECT_NE(s.message().find("adjust_height"), std::string::npos) << s.message();
      refused = true;
    } else {
      EXPECT_GE(p.adjusted.height, 1);
    }
  }
  EXPECT_TRUE(refused);
}

TEST(PlanTest, NarrowButTrainableImagesStillPlan) {
  const std::vector<Quad> none;
  const std::vector<unsigned char> no_labels;
  for (auto [w, h] : {std::pair{2048, 1}, std::pair{1, 2048}, std::pair{4096, 2}}) {
    AugmentOptions o = profile_defaults(Profile::kUpstage);
    GeometryPlan p;
    Rng rng(3, 0, 0);
    ASSERT_TRUE(plan_geometry(p, w, h, none, no_labels, o, rng).ok()) << w << "x" << h;
    EXPECT_GE(p.upscaled.width, o.crop_size);
    EXPECT_GE(p.upscaled.height, o.crop_size);
  }
}

}  // namespace
}  // namespace textfeed::augment
