// DB geometry: imgaug 0.4.0's keypoint mapping of known draws (hand-computed), the image map's
// agreement with it, the plan's invariants and the one-warp canvas.
#include "augment/db/geometry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace textfeed::augment {
namespace {

std::vector<double> mapped(std::vector<double> xy, int w, int h, DbDraws d, int* ow = nullptr,
                           int* oh = nullptr) {
  int a = 0, b = 0;
  map_db_keypoints(xy, w, h, d, a, b);
  if (ow) *ow = a;
  if (oh) *oh = b;
  return xy;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want,
                 double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << i;
}

TEST(DbGeometryTest, FliplrMapsXToWidthMinusX) {
  expect_near(mapped({10, 20, 0, 0, 100, 50}, 100, 50, {true, 0, 1}), {90, 20, 100, 0, 0, 50});
}

TEST(DbGeometryTest, RotationTurnsAboutTheImageCentreClockwiseOnScreen) {
  // 90 degrees about (50, 25): (60, 25) -> (50, 35), (0, 0) -> (75, -25).
  expect_near(mapped({60, 25, 0, 0, 50, 25}, 100, 50, {false, 90, 1}), {50, 35, 75, -25, 50, 25});
  // 30 degrees: x' = c dx - s dy + cx, y' = s dx + c dy + cy.
  const double c = std::cos(M_PI / 6), s = std::sin(M_PI / 6);
  expect_near(mapped({70, 5}, 100, 50, {false, 30, 1}),
              {c * 20 - s * -20 + 50, s * 20 + c * -20 + 25});
}

TEST(DbGeometryTest, ResizeRoundsHalfToEvenAndScalesByTheSizeRatio) {
  int w = 0, h = 0;
  expect_near(mapped({10, 20}, 100, 50, {false, 0, 2}, &w, &h), {20, 40});
  EXPECT_EQ(w, 200);
  EXPECT_EQ(h, 100);
  expect_near(mapped({5, 7}, 5, 7, {false, 0, 0.5}, &w, &h), {2, 4});  // 2.5 -> 2, 3.5 -> 4
  EXPECT_EQ(w, 2);
  EXPECT_EQ(h, 4);
  EXPECT_EQ(db_resized_side(1, 0.1), 1);  // never below 1
}

TEST(DbGeometryTest, TheStepsComposeInOrderFlipRotateResize) {
  // (10, 20) on 100x50: flip -> (90, 20); 90 deg about (50, 25) -> (55, 65); x2 -> (110, 130).
  expect_near(mapped({10, 20}, 100, 50, {true, 90, 2}), {110, 130});
}

TEST(DbGeometryTest, ARotationImgaugTakesForTheIdentityMovesNothing) {
  expect_near(mapped({10, 20}, 100, 100, {false, 1e-6, 1}), {10, 20}, 0);
  EXPECT_NE(mapped({10, 20}, 100, 100, {false, 1e-2, 1})[0], 10);
}

TEST(DbGeometryTest, TheImageMapIsTheKeypointMapInPixelCentres) {
  // A keypoint sits at pixel index + 0.5 in imgaug's conventions; the canvas resize uses
  // out_w / crop_w where the polygons use `scale`, so compare after that factor.
  const DbDraws d{true, 7.5, 1.7};
  int rw = 0, rh = 0;
  const std::vector<double> src{3, 4, 250, 17, 120, 190, 299, 199};
  const auto kp = mapped(src, 300, 200, d, &rw, &rh);
  DbCrop c;
  c.crop = CropBox{40, 30, 333, 211};
  c.scale = std::min(640.0 / 333, 640.0 / 211);
  c.out_w = static_cast<int>(333 * c.scale);
  c.out_h = static_cast<int>(211 * c.scale);
  double m[6];
  db_image_matrix(m, 300, 200, d, true, rw, rh, c);
  const double kx = static_cast<double>(c.out_w) / 333, ky = static_cast<double>(c.out_h) / 211;
  for (size_t k = 0; k < src.size(); k += 2) {
    const double x = src[k] - 0.5, y = src[k + 1] - 0.5;
    EXPECT_NEAR(m[0] * x + m[1] * y + m[2] + 0.5, (kp[k] - 40) * kx, 1e-6);
    EXPECT_NEAR(m[3] * x + m[4] * y + m[5] + 0.5, (kp[k + 1] - 30) * ky, 1e-6);
  }
}

TEST(DbGeometryTest, ThePlanKeepsPolygonsInsideTheCanvasAndFollowsTheKeypointMap) {
  std::vector<double> xy;
  std::vector<int32_t> ends;
  for (int i = 0; i < 6; ++i) {
    const double x = 40 + 90 * i, y = 60 + 50 * (i % 3);
    xy.insert(xy.end(), {x, y, x + 60, y, x + 60, y + 20, x + 30, y + 28, x, y + 20});
    ends.push_back(static_cast<int32_t>(xy.size() / 2));
  }
  const std::vector<unsigned char> ignore{0, 0, 1, 0, 0, 0};
  for (uint64_t index = 0; index < 50; ++index) {
    Rng rng(7, 0, index);
    DbGeometryPlan p;
    ASSERT_TRUE(plan_db_geometry(p, 640, 360, {xy, ends}, ignore, DbGeometryOptions{}, rng).ok());
    EXPECT_GE(p.draws.resize, 0.5);
    EXPECT_LE(p.draws.resize, 3);
    EXPECT_LE(std::abs(p.draws.angle_deg), 10);
    EXPECT_EQ(p.resized_w, db_resized_side(640, p.draws.resize));
    EXPECT_LE(p.crop.crop.x + p.crop.crop.w, p.resized_w);
    EXPECT_LE(p.crop.out_w, 640);
    EXPECT_LE(p.crop.out_h, 640);
    // Kept polygons step by step: keypoint map, then (x - crop) * scale.
    std::vector<double> moved = xy;
    int rw = 0, rh = 0;
    map_db_keypoints(moved, 640, 360, p.draws, rw, rh);
    size_t k_out = 0;
    for (size_t i = 0; i < ends.size(); ++i) {
      if (!p.crop.kept[i]) continue;
      for (int32_t k = i == 0 ? 0 : ends[i - 1]; k < ends[i]; ++k, ++k_out) {
        EXPECT_NEAR(p.crop.xy[2 * k_out], (moved[2 * k] - p.crop.crop.x) * p.crop.scale, 1e-9);
        EXPECT_NEAR(p.crop.xy[2 * k_out + 1], (moved[2 * k + 1] - p.crop.crop.y) * p.crop.scale,
                    1e-9);
      }
    }
    EXPECT_EQ(2 * k_out, p.crop.xy.size());
  }
}

TEST(DbGeometryTest, TheCanvasIsOneWarpOfTheSource) {
  // A linear ramp survives bilinear sampling exactly: canvas(u, v) = ramp(M^-1 (u, v)).
  const int w = 200, h = 120;
  std::vector<uint8_t> src(static_cast<size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < 3; ++ch)
        src[(static_cast<size_t>(y) * w + x) * 3 + ch] = static_cast<uint8_t>(x + ch);
  std::vector<double> xy{20, 20, 180, 20, 180, 100, 20, 100};
  std::vector<int32_t> ends{4};
  DbGeometryPlan p;
  Rng rng(11, 0, 3);
  ASSERT_TRUE(
      plan_db_geometry(p, w, h, {xy, ends}, std::vector<unsigned char>{0}, DbGeometryOptions{}, rng)
          .ok());
  ASSERT_TRUE(p.rotate_image);
  std::vector<uint8_t> canvas(640 * 640 * 3, 77);
  const MutableImageView dst{canvas.data(), 640, 640, 3, 640 * 3, DType::kU8};
  const ImageView in{src.data(), h, w, 3, w * 3, DType::kU8};
  ASSERT_TRUE(render_db_canvas(dst, in, p).ok());
  const double* m = p.matrix;
  const double det = m[0] * m[4] - m[1] * m[3];
  int checked = 0;
  for (int v = 0; v < p.crop.out_h; v += 13) {
    for (int u = 0; u < p.crop.out_w; u += 13) {
      const double du = u - m[2], dv = v - m[5];
      const double x = (m[4] * du - m[1] * dv) / det, y = (-m[3] * du + m[0] * dv) / det;
      if (x < 2 || y < 2 || x > w - 4 || y > h - 4) continue;
      EXPECT_NEAR(canvas[(static_cast<size_t>(v) * 640 + u) * 3], x, 1.0) << u << "," << v;
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
  // Outside the resized crop the canvas is zero.
  ASSERT_TRUE(p.crop.out_w < 640 || p.crop.out_h < 640);
  EXPECT_EQ(canvas[(static_cast<size_t>(639) * 640 + 639) * 3], 0);
}

TEST(DbGeometryTest, BadOptionsAreErrors) {
  DbGeometryOptions o;
  o.min_resize = 0;
  EXPECT_FALSE(validate(o).ok());
  o = {};
  o.flip_p = 1.5;
  EXPECT_FALSE(validate(o).ok());
  o = {};
  o.max_rotate_deg = -1;
  EXPECT_FALSE(validate(o).ok());
  EXPECT_TRUE(validate(DbGeometryOptions{}).ok());
}

}  // namespace
}  // namespace textfeed::augment
