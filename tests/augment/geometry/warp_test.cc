// The one warp: identity plans crop exactly; DCT-scaled sources map to the same place.
#include "augment/geometry/warp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include "augment/east/plan.h"
#include "augment/geometry/resample.h"
#include "augment/inference.h"

namespace textfeed::augment {
namespace {

TEST(WarpTest, TranslationIsAnExactCrop) {
  const int w = 200, h = 150;
  Image src(h, w, 3);
  for (size_t i = 0; i < src.size_bytes(); ++i) src.data()[i] = static_cast<uint8_t>(i * 7 + 3);
  Image out(64, 64, 3);
  const double m[6] = {1, 0, -30, 0, 1, -40};
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).ok());
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(out.data()[(y * 64 + x) * 3 + c], src.data()[((y + 40) * w + x + 30) * 3 + c]);
}

TEST(WarpTest, OutsideIsBlack) {
  Image src(50, 50, 3);
  std::fill(src.data(), src.data() + src.size_bytes(), 200);
  Image out(32, 32, 3);
  const double m[6] = {1, 0, 100, 0, 1, 100};  // the source lands far outside the crop
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).ok());
  for (size_t i = 0; i < out.size_bytes(); ++i) ASSERT_EQ(out.data()[i], 0);
}

TEST(WarpTest, HalfScaleSourceLandsInTheSamePlace) {
  // A smooth ramp decoded at full and at half size warps to nearly the same crop.
  const int w = 512, h = 512;
  Image full(h, w, 3), half(h / 2, w / 2, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        full.data()[(y * w + x) * 3 + c] = static_cast<uint8_t>((x + y) / 4);
  for (int y = 0; y < h / 2; ++y)
    for (int x = 0; x < w / 2; ++x)
      for (int c = 0; c < 3; ++c)
        half.data()[(y * w / 2 + x) * 3 + c] = static_cast<uint8_t>((2 * x + 2 * y + 2) / 4);
  const double m[6] = {0.5, 0, -10, 0, 0.5, -10};
  Image a(100, 100, 3), b(100, 100, 3);
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(a.mutable_view(), full.view(), m, 1.0, scratch).ok());
  ASSERT_TRUE(warp_to_crop(b.mutable_view(), half.view(), m, 0.5, scratch).ok());
  int worst = 0;
  for (size_t i = 0; i < a.size_bytes(); ++i)
    worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]));
  EXPECT_LE(worst, 2);
}

TEST(WarpTest, StrongDownscaleResizesFirstAndKeepsTheMean) {
  Image src(1000, 1000, 3);
  for (int y = 0; y < 1000; ++y)
    for (int x = 0; x < 1000; ++x)
      for (int c = 0; c < 3; ++c)
        src.data()[(y * 1000 + x) * 3 + c] = ((x + y) % 2) ? 255 : 0;  // checkerboard
  const double m[6] = {0.1, 0, 0, 0, 0.1, 0};
  Image out(100, 100, 3);
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).ok());
  EXPECT_GT(scratch.resized.size(), 0u);
  // Anti-aliased: the checkerboard averages to mid grey instead of aliasing to black or white.
  for (int y = 5; y < 95; ++y) ASSERT_NEAR(out.data()[(y * 100 + 50) * 3], 127, 3);
}

TEST(WarpTest, RejectsWrongViews) {
  Image src(10, 10, 1), out(8, 8, 3);
  const double m[6] = {1, 0, 0, 0, 1, 0};
  WarpScratch scratch;
  EXPECT_EQ(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).code(),
            Code::kInvalidArgument);
}

TEST(WarpTest, IdentityPlanIsAnExactCropOfTheSource) {
  // No resize, no height jitter, no rotation: the plan's matrix is a pure shift by the crop start.
  const int w = 800, h = 600;
  Image src(h, w, 3);
  for (size_t i = 0; i < src.size_bytes(); ++i)
    src.data()[i] = static_cast<uint8_t>((i * 2654435761u) >> 24);
  AugmentOptions o = profile_defaults(Profile::kSakura);
  o.height_jitter = 0;
  o.rotate_deg = 0;
  GeometryPlan p;
  Image out(512, 512, 3);
  WarpScratch scratch;
  for (uint64_t i = 0; i < 5; ++i) {
    Rng rng(10, 0, i);
    ASSERT_TRUE(plan_geometry(p, w, h, {}, {}, o, rng).ok());
    ASSERT_EQ(p.upscaled.width, w);
    ASSERT_EQ(p.upscaled.height, h);
    ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), p.matrix, 1.0, scratch).ok());
    for (int y = 0; y < 512; ++y)
      for (int x = 0; x < 512 * 3; ++x)
        ASSERT_EQ(out.data()[y * 512 * 3 + x],
                  src.data()[(y + p.crop_y) * w * 3 + p.crop_x * 3 + x])
            << "sample " << i << " at " << x / 3 << "," << y;
  }
}

TEST(WarpTest, ScratchIsReusedAcrossSamples) {
  Image src(1200, 1600, 3);
  for (size_t i = 0; i < src.size_bytes(); ++i) src.data()[i] = static_cast<uint8_t>(i * 31);
  Image out(128, 128, 3);
  WarpScratch scratch;
  // Samples that shrink by 5 to 10, rotated and shifted. Once the scratch has served the
  // largest of them (a warm-up pass), later passes never reallocate it.
  const double samples[4][6] = {{0.2, 0, -10, 0, 0.2, -5},
                                {0.15, 0.01, 0, -0.01, 0.15, 3},
                                {0.1, 0, 0, 0, 0.1, 0},
                                {0.2, 0.05, -40, -0.05, 0.2, 0}};
  for (const auto& m : samples)
    ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).ok());
  const uint8_t* buffer = scratch.resized.data();
  const size_t capacity = scratch.resized.capacity();
  ASSERT_NE(buffer, nullptr);
  for (int pass = 0; pass < 3; ++pass)
    for (const auto& m : samples) {
      ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).ok());
      EXPECT_EQ(scratch.resized.data(), buffer);
      EXPECT_EQ(scratch.resized.capacity(), capacity);
    }
}

// The warp makes the resized rows band by band, just before its bilinear step reads them: it must
// never read a row (or a column) it has not made. Whatever a scratch held before, the crop does not
// change: a scratch filled with 0xAB gives the bytes of a new one (zeroed), for rotations either
// way and large, the height shrunk, stretched and kept, and crops that reach past the source.
TEST(WarpTest, WhatAScratchHeldBeforeNeverReachesTheCrop) {
  Image src(700, 520, 3);
  uint32_t h = 12345;
  for (size_t i = 0; i < src.size_bytes(); ++i) {
    h = h * 1664525u + 1013904223u;
    src.data()[i] = static_cast<uint8_t>(h >> 24);
  }
  for (const double deg : {-10.0, -3.0, 0.5, 7.0, 10.0, 30.0, 90.0})
    for (const double sy : {0.8, 1.0, 1.2})
      for (const double shift : {0.0, 150.0, -200.0}) {
        const double a = deg * M_PI / 180, c = std::cos(a), s = std::sin(a);
        // source -> crop: scale the height, rotate about (260, 350), move by `shift`.
        const double m[6] = {c, -s * sy, 130 - (c * 260 - s * 350 * sy) + shift,
                             s, c * sy,  175 - (s * 260 + c * 350 * sy) - shift / 2};
        Image fresh(384, 384, 3), poisoned(384, 384, 3);
        WarpScratch clean, dirty;
        ASSERT_TRUE(warp_to_crop(fresh.mutable_view(), src.view(), m, 1.0, clean).ok());
        ASSERT_TRUE(warp_to_crop(poisoned.mutable_view(), src.view(), m, 1.0, dirty).ok());
        std::fill(dirty.resized.begin(), dirty.resized.end(), uint8_t{0xAB});
        std::fill(poisoned.data(), poisoned.data() + poisoned.size_bytes(),
                  uint8_t{0x5A});  // every pixel written
        ASSERT_TRUE(warp_to_crop(poisoned.mutable_view(), src.view(), m, 1.0, dirty).ok());
        EXPECT_EQ(std::memcmp(fresh.data(), poisoned.data(), fresh.size_bytes()), 0)
            << deg << " deg, height x" << sy << ", shift " << shift;
      }
}

// Plain bilinear warp (output pixel -> inverse-mapped source point, black outside): the reference.
void bilinear_warp(Image& out, const Image& src, const double m[6]) {
  const double det = m[0] * m[4] - m[1] * m[3];
  const double ia = m[4] / det, ib = -m[1] / det, ic = -m[3] / det, id = m[0] / det;
  auto at = [&](int x, int y, int k) -> double {
    if (x < 0 || y < 0 || x >= src.width() || y >= src.height()) return 0;
    return src.data()[(static_cast<size_t>(y) * src.width() + x) * 3 + k];
  };
  for (int y = 0; y < out.height(); ++y)
    for (int x = 0; x < out.width(); ++x) {
      const double sx = ia * (x - m[2]) + ib * (y - m[5]), sy = ic * (x - m[2]) + id * (y - m[5]);
      const int x0 = static_cast<int>(std::floor(sx)), y0 = static_cast<int>(std::floor(sy));
      const double fx = sx - x0, fy = sy - y0;
      for (int k = 0; k < 3; ++k) {
        const double v = (1 - fy) * ((1 - fx) * at(x0, y0, k) + fx * at(x0 + 1, y0, k)) +
                         fy * ((1 - fx) * at(x0, y0 + 1, k) + fx * at(x0 + 1, y0 + 1, k));
        out.data()[(static_cast<size_t>(y) * out.width() + x) * 3 + k] =
            static_cast<uint8_t>(v + 0.5);
      }
    }
}

TEST(WarpTest, ResizingTheReadRegionKeepsTheGeometry) {
  // A smooth image (no detail to alias), odd size, rotated and shifted so the read region starts
  // inside the source: the resize-then-warp must agree with a direct bilinear warp.
  const int w = 2001, h = 1777;
  Image src(h, w, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = src.data() + (static_cast<size_t>(y) * w + x) * 3;
      p[0] = static_cast<uint8_t>(127.5 + 120 * std::sin(x / 90.0) * std::cos(y / 70.0));
      p[1] = static_cast<uint8_t>(x * 255 / w);
      p[2] = static_cast<uint8_t>(y * 255 / h);
    }
  const double a = 0.3, c = std::cos(0.1), sn = std::sin(0.1);
  for (const double tx : {-150.0, -20.0, 40.0}) {
    const double m[6] = {a * c, a * sn, tx, -a * sn, a * c, -60};  // scale 0.3 on both axes
    Image shrunk(256, 256, 3), direct(256, 256, 3);
    WarpScratch scratch;
    ASSERT_TRUE(warp_to_crop(shrunk.mutable_view(), src.view(), m, 1.0, scratch).ok());
    ASSERT_FALSE(scratch.resized.empty());
    ASSERT_LT(scratch.resized.size(),
              static_cast<size_t>(w * 0.3) * (h * 0.3) * 3);  // only the read region
    bilinear_warp(direct, src, m);
    double sum = 0;
    int worst = 0;
    for (int y = 2; y < 254; ++y)
      for (int x = 2; x < 254; ++x) {
        // Skip the image's own edge (a 1-2 px band where the border blends in differently).
        bool edge = false;
        for (const int dy : {-2, 2})
          for (const int dx : {-2, 2}) {
            const uint8_t* q = direct.data() + ((y + dy) * 256 + x + dx) * 3;
            edge |= q[0] == 0 && q[1] == 0 && q[2] == 0;
          }
        if (edge) continue;
        for (int k = 0; k < 3; ++k) {
          const int e =
              std::abs(shrunk.data()[(y * 256 + x) * 3 + k] - direct.data()[(y * 256 + x) * 3 + k]);
          worst = std::max(worst, e);
          sum += e;
        }
      }
    EXPECT_LE(worst, 6) << "tx " << tx;
    EXPECT_LT(sum / (252.0 * 252 * 3), 1.0) << "tx " << tx;
  }
}

TEST(WarpTest, CropOutsideAShrunkSourceIsBlack) {
  Image src(900, 900, 3);
  std::fill(src.data(), src.data() + src.size_bytes(), 200);
  Image out(64, 64, 3);
  std::fill(out.data(), out.data() + out.size_bytes(), 7);
  const double m[6] = {0.2, 0, 500, 0, 0.2, 500};  // the shrunk source lands far from the crop
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(out.mutable_view(), src.view(), m, 1.0, scratch).ok());
  for (size_t i = 0; i < out.size_bytes(); ++i) ASSERT_EQ(out.data()[i], 0);
}

Image noise(int h, int w, uint32_t seed) {
  Image img(h, w, 3);
  uint32_t v = seed;
  for (size_t i = 0; i < img.size_bytes(); ++i)
    v = v * 1664525u + 1013904223u, img.data()[i] = static_cast<uint8_t>(v >> 24);
  return img;
}

TEST(WarpTest, AShrinkOfBothAxesIsPilsResize) {
  // A pure downscale by out/in on each axis: the resize is PIL's on the whole source's grid and the
  // bilinear step lands on its pixel centres, so the crop equals PIL's resize byte for byte.
  const Image src = noise(301, 517, 5);
  for (const auto& [ow, oh] :
       {std::pair{400, 250}, std::pair{517, 123}, std::pair{200, 301}, std::pair{64, 40}}) {
    const double m[6] = {static_cast<double>(ow) / 517, 0,
                         0.5 * ow / 517 - 0.5,          0,
                         static_cast<double>(oh) / 301, 0.5 * oh / 301 - 0.5};
    Image got(oh, ow, 3), want(oh, ow, 3);
    WarpScratch scratch;
    ASSERT_TRUE(warp_to_crop(got.mutable_view(), src.view(), m, 1.0, scratch).ok());
    InferenceScratch is;
    pil_bilinear_resize(src.view(), want.mutable_view(), is);
    ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size_bytes())) << ow << "x" << oh;
  }
}

TEST(WarpTest, ResizedPartMatchesTheWholeResize) {
  // The same downscale, cropped: only the part the crop reads is resized, with the weights of the
  // whole grid, so a window of the full resize comes out.
  const Image src = noise(700, 900, 9);
  const int ow = 600, oh = 500;  // the whole resize
  Image full(oh, ow, 3);
  InferenceScratch is;
  pil_bilinear_resize(src.view(), full.mutable_view(), is);
  const double sx = static_cast<double>(ow) / 900, sy = static_cast<double>(oh) / 700;
  const int cx = 123, cy = 77;
  const double m[6] = {sx, 0, 0.5 * sx - 0.5 - cx, 0, sy, 0.5 * sy - 0.5 - cy};
  Image got(200, 256, 3);
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(got.mutable_view(), src.view(), m, 1.0, scratch).ok());
  EXPECT_LT(scratch.resized.size(), static_cast<size_t>(ow) * oh * 3 / 2);
  for (int y = 0; y < 200; ++y)
    ASSERT_EQ(
        0, std::memcmp(got.data() + y * 256 * 3, full.data() + ((y + cy) * ow + cx) * 3, 256 * 3))
        << y;
}

TEST(WarpTest, BilinearStepIsWithinThreeOfExactBilinear) {
  // The bilinear step alone, rotating and enlarging: 6-bit weights against the double-precision
  // reference.
  const Image src = noise(300, 400, 3);
  const double a = 0.17, c = std::cos(a), sn = std::sin(a);
  const double m[6] = {1.3 * c, 1.3 * sn, -60, -1.3 * sn, 1.3 * c, 40};
  Image got(256, 320, 3), want(256, 320, 3);
  const double det = m[0] * m[4] - m[1] * m[3];
  internal::BilinearJob job{
      src.data(), src.stride_bytes(), 400, 300, got.data(), got.stride_bytes(), 320, 256, {}};
  job.inv[0] = m[4] / det, job.inv[1] = -m[1] / det, job.inv[3] = -m[3] / det,
  job.inv[4] = m[0] / det;
  job.inv[2] = -(job.inv[0] * m[2] + job.inv[1] * m[5]),
  job.inv[5] = -(job.inv[3] * m[2] + job.inv[4] * m[5]);
  internal::bilinear_warp(job);
  bilinear_warp(want, src, m);
  int worst = 0;
  for (size_t i = 0; i < got.size_bytes(); ++i)
    worst = std::max(worst, std::abs(got.data()[i] - want.data()[i]));
  EXPECT_LE(worst, 3);  // a 1/128 px coordinate step on noise of full contrast
}

TEST(WarpTest, AnEnlargedAxisIsResizedFirstUnlessTheSourceIsDctScaled) {
  // Enlarging y by 1.15 on noise: resized first (PIL's linear interpolation onto the grid of
  // round(h * 1.15) rows), then the bilinear step; a DCT-scaled source goes straight to it.
  const Image src = noise(200, 240, 8);
  const double m[6] = {1, 0,    -20,
                       0, 1.15, 0.5 * 1.15 - 0.5 - 30};  // pixel centres: (y + 0.5) 1.15 - 0.5
  EXPECT_TRUE(axis_scales(m).resize_y);
  EXPECT_FALSE(axis_scales(m).resize_x);
  EXPECT_FALSE(axis_scales(m, true).resize_y);
  Image got(128, 128, 3);
  WarpScratch scratch;
  ASSERT_TRUE(warp_to_crop(got.mutable_view(), src.view(), m, 1.0, scratch).ok());
  // The crop is PIL's 240 x 200 -> 240 x 230 resize from row 30 and column 20.
  InferenceScratch is;
  Image wide(230, 240, 3);
  pil_bilinear_resize(src.view(), wide.mutable_view(), is);
  for (int y = 0; y < 128; ++y)
    ASSERT_EQ(
        0, std::memcmp(got.data() + y * 128 * 3, wide.data() + ((y + 30) * 240 + 20) * 3, 128 * 3))
        << y;
}

TEST(ResampleTest, EveryBuildGivesTheSameBytes) {
  // The run-time choice (AVX2 where the CPU has it) against the baseline build, on matrices that
  // put the source's edges, corners and outside inside the crop, and on sources of a few pixels.
  for (const auto& [h, w] :
       {std::pair{257, 391}, std::pair{2, 3}, std::pair{1, 1}, std::pair{5, 40}}) {
    const Image src = noise(h, w, static_cast<uint32_t>(h * w));
    for (int k = 0; k < 24; ++k) {
      const double ang = 0.37 * k - 3, s = 0.6 + 0.15 * (k % 9);
      const double inv[6] = {s * std::cos(ang),  s * std::sin(ang), -40.0 + 13 * (k % 7),
                             -s * std::sin(ang), s * std::cos(ang), -30.0 + 11 * (k % 5)};
      Image a(97, 203, 3), b(97, 203, 3);
      internal::BilinearJob job{
          src.data(), src.stride_bytes(), w, h, a.data(), a.stride_bytes(), 203, 97, {}};
      std::copy(inv, inv + 6, job.inv);
      internal::bilinear_warp(job);
      job.dst = b.data();
      internal::baseline::bilinear_rows(job, 0, 97);
      ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size_bytes()))
          << h << "x" << w << " case " << k;
    }
  }
  {
    // Rows whose every pixel reads inside the source, of every width from 8 to 40: the vector
    // loop's last groups end at the row's end, or just before it.
    const Image big = noise(90, 120, 9);
    for (int w = 8; w <= 40; ++w)
      for (const double ang : {0.0, 0.1, -0.17}) {
        const double inv[6] = {std::cos(ang),  std::sin(ang), 30.5,
                               -std::sin(ang), std::cos(ang), 30.25};
        Image a(24, w, 3), b(24, w, 3);
        internal::BilinearJob job{
            big.data(), big.stride_bytes(), 120, 90, a.data(), a.stride_bytes(), w, 24, {}};
        std::copy(inv, inv + 6, job.inv);
        internal::bilinear_warp(job);
        job.dst = b.data();
        internal::baseline::bilinear_rows(job, 0, 24);
        ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size_bytes()))
            << w << " columns, angle " << ang;
      }
  }
  const Image src = noise(120, 333, 4);
  for (const auto& [in, out] :
       {std::pair{333, 200}, std::pair{333, 47}, std::pair{333, 332}, std::pair{333, 5},
        std::pair{333, 541}, std::pair{333, 266}, std::pair{333, 11}, std::pair{333, 120}}) {
    internal::PilTaps t;
    internal::pil_taps(333, out, 0, out, true, t);
    std::vector<uint8_t> a(static_cast<size_t>(120) * out * 3), b(a.size());
    internal::pil_horizontal(src.data(), src.stride_bytes(), 0, 120, t, a.data(), out * 3);
    internal::baseline::pil_horizontal(src.data(), src.stride_bytes(), 0, 120, t, b.data(),
                                       out * 3);
    ASSERT_EQ(a, b) << out;
    if (out > 20) {  // a part of the output, its source starting at the first column it reads
      internal::pil_taps(333, out, 7, out - 6, true, t);
      const int c0 = t.min_source(), cols = out - 13;
      std::vector<uint8_t> e(static_cast<size_t>(120) * cols * 3), f(e.size());
      internal::pil_horizontal(src.data() + 3 * c0, src.stride_bytes(), c0, 120, t, e.data(),
                               cols * 3);
      internal::baseline::pil_horizontal(src.data() + 3 * c0, src.stride_bytes(), c0, 120, t,
                                         f.data(), cols * 3);
      ASSERT_EQ(e, f) << out << ", part";
      for (int y = 0; y < 120; ++y)
        ASSERT_EQ(0, std::memcmp(&e[static_cast<size_t>(y) * cols * 3],
                                 &a[(static_cast<size_t>(y) * out + 7) * 3],
                                 static_cast<size_t>(cols) * 3))
            << out << ", part, row " << y;
    }
    // Weights without the horizontal pass's AVX2 layout: that pass runs its baseline loop.
    internal::pil_taps(333, out, 0, out, false, t);
    ASSERT_TRUE(t.packed.empty());
    internal::pil_horizontal(src.data(), src.stride_bytes(), 0, 120, t, a.data(), out * 3);
    ASSERT_EQ(a, b) << out;
    internal::pil_taps(120, out % 120 + 1, 0, out % 120 + 1, false, t);
    std::vector<uint8_t> c(static_cast<size_t>(out % 120 + 1) * 333 * 3), d(c.size());
    internal::pil_vertical(src.data(), src.stride_bytes(), 0, 333 * 3, t, c.data(), 333 * 3,
                           t.begin, t.end);
    internal::baseline::pil_vertical(src.data(), src.stride_bytes(), 0, 333 * 3, t, d.data(),
                                     333 * 3, t.begin, t.end);
    ASSERT_EQ(c, d) << out;
  }
  // Rows of odd widths whose vector pairs end in groups of four, each row followed by 8 bytes
  // that no pass may write: the stores of 24 bytes that write 28 stay in their row.
  for (const int out : {9, 17, 25, 41, 65}) {
    for (const int in : {out * 2 + 1, out - 3, out + 1}) {
      internal::PilTaps t;
      internal::pil_taps(in, out, 0, out, true, t);
      const Image narrow = noise(6, in, static_cast<uint32_t>(in + out));
      const ptrdiff_t stride = 3 * out + 8;
      std::vector<uint8_t> a(static_cast<size_t>(6 * stride), 0xEE), b(a.size(), 0xEE);
      internal::pil_horizontal(narrow.data(), narrow.stride_bytes(), 0, 6, t, a.data(), stride);
      internal::baseline::pil_horizontal(narrow.data(), narrow.stride_bytes(), 0, 6, t, b.data(),
                                         stride);
      ASSERT_EQ(a, b) << in << " -> " << out;  // the padding too: 0xEE in both
      for (int y = 0; y < 6; ++y)
        for (ptrdiff_t k = 3 * out; k < stride; ++k)
          ASSERT_EQ(a[static_cast<size_t>(y * stride + k)], 0xEE) << out;
    }
  }
  // The vertical pass at every tap count its AVX2 loop takes (1 to 16) and past it, enlarging and
  // shrinking, on noise and on white (the sums at their largest), rows of 999 bytes (a ragged end).
  // One source row gives 1 tap; 120 rows give the others.
  Image white(120, 333, 3);
  std::fill_n(white.data(), white.size_bytes(), uint8_t{255});
  std::set<int> tap_counts;
  for (const Image* img : std::initializer_list<const Image*>{&src, &white}) {
    for (const int out : {120, 119, 240, 97, 60, 48, 41, 35, 30, 27, 24, 22,
                          20,  19,  17,  16, 15, 13, 9,  8,  7,  5,  -1, -7}) {
      const int in = out < 0 ? 1 : 120;  // -n: n rows from one
      internal::PilTaps t;
      internal::pil_taps(in, std::abs(out), 0, std::abs(out), false, t);
      tap_counts.insert(t.taps);
      std::vector<uint8_t> c(static_cast<size_t>(std::abs(out)) * 999), d(c.size());
      internal::pil_vertical(img->data(), img->stride_bytes(), 0, 999, t, c.data(), 999, t.begin,
                             t.end);
      internal::baseline::pil_vertical(img->data(), img->stride_bytes(), 0, 999, t, d.data(), 999,
                                       t.begin, t.end);
      ASSERT_EQ(c, d) << in << " -> " << out << " rows, " << t.taps << " taps";
      if (img == &white) {
        ASSERT_EQ(*std::min_element(c.begin(), c.end()), 255) << out;
      }
    }
  }
  for (int n = 1; n <= 16; ++n) EXPECT_EQ(tap_counts.count(n), 1u) << n << " taps not covered";
}

TEST(ResampleTest, TapsStayInsideTheSourceAndSumToOne) {
  internal::PilTaps t;
  for (const auto& [in, out] : {std::pair{10, 3}, std::pair{7, 1}, std::pair{1000, 31},
                                std::pair{3, 2}, std::pair{5000, 7}}) {
    internal::pil_taps(in, out, 0, out, true, t);
    for (int o = 0; o < out; ++o) {
      ASSERT_GE(t.first[o], 0);
      ASSERT_LE(t.first[o] + t.taps, in);
      int64_t sum = 0;
      for (int k = 0; k < t.taps; ++k) sum += t.weights[static_cast<size_t>(o) * t.taps + k];
      EXPECT_NEAR(static_cast<double>(sum), 1 << 22, t.taps) << in << "->" << out << " at " << o;
    }
  }
}

TEST(WarpTest, AWindowWarpsToTheBytesOfTheWholeImage) {
  // A decoded window (origin on a 16-px grid, as the producer cuts them) with its frame: the crop
  // equals the whole image's wherever the crop reads inside the window, resized or not.
  const Image whole = noise(640, 800, 21);
  const double a = 0.12, c = std::cos(a), sn = std::sin(a);
  for (const auto& [sx, sy] :
       {std::pair{1.1, 1.2}, std::pair{1.05, 0.83}, std::pair{0.7, 0.9}, std::pair{0.6, 1.1}}) {
    const double m[6] = {sx * c, sy * sn, -150, -sx * sn, sy * c, -100};
    Image want(256, 256, 3), got(256, 256, 3);
    WarpScratch scratch;
    ASSERT_TRUE(warp_to_crop(want.mutable_view(), whole.view(), m, 1.0, scratch).ok());
    const int x0 = 96, y0 = 48, w = 640, h = 560;  // holds everything the crop reads
    const ImageView window{
        whole.data() + (y0 * 800 + x0) * 3, h, w, 3, whole.stride_bytes(), DType::kU8};
    const double mw[6] = {m[0], m[1], m[2] + m[0] * x0 + m[1] * y0,
                          m[3], m[4], m[5] + m[3] * x0 + m[4] * y0};
    ASSERT_TRUE(
        warp_to_crop(got.mutable_view(), window, mw, 1.0, scratch, SourceFrame{800, 640, x0, y0})
            .ok());
    ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size_bytes())) << sx << " " << sy;
  }
  // A frame that does not hold the view is refused.
  const ImageView window{whole.data(), 100, 100, 3, whole.stride_bytes(), DType::kU8};
  const double m[6] = {1, 0, 0, 0, 1, 0};
  Image out(16, 16, 3);
  WarpScratch scratch;
  EXPECT_EQ(warp_to_crop(out.mutable_view(), window, m, 1.0, scratch, SourceFrame{150, 150, 60, 0})
                .code(),
            Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
