// The pixel ops of mmocr's chains (augment/mmocr/pixel_ops.h): each kind's output size and a few
// pixels, and the refusals. Expected pixels of the bilinear resize and the rotation fill are what
// cv2 4.6 and numpy's uint8 arithmetic give for the same images (the reference's calls).
#include "augment/mmocr/pixel_ops.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace textfeed::augment::mmocr {
namespace {

using K = PixelOp::Kind;

// An h x w image of 3 equal channels whose value at (y, x) is f(y, x).
Image image_of(int h, int w, const std::function<int(int, int)>& f) {
  Image img(h, w, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        img.data()[(static_cast<size_t>(y) * w + x) * 3 + c] = static_cast<uint8_t>(f(y, x));
  return img;
}

int at(const ImageView& v, int y, int x, int c = 0) { return v.row(y)[3 * x + c]; }

// The result of `ops` on `img`, which must succeed.
ImageView apply(const Image& img, const std::vector<PixelOp>& ops, PixelScratch& scratch) {
  auto out = apply_pixel_ops(img.view(), ops, scratch);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? *out : ImageView{};
}

Status apply_status(const Image& img, const std::vector<PixelOp>& ops) {
  PixelScratch scratch;
  return apply_pixel_ops(img.view(), ops, scratch).status();
}

PixelOp op(K kind, int out_h, int out_w, int code = 0) {
  PixelOp o;
  o.kind = kind;
  o.out_h = out_h;
  o.out_w = out_w;
  o.code = code;
  return o;
}

PixelOp with_rect(PixelOp o, int x0, int y0, int x1, int y1) {
  o.rect[0] = x0, o.rect[1] = y0, o.rect[2] = x1, o.rect[3] = y1;
  return o;
}

PixelOp translation(int h, int w, double dx, int code) {
  PixelOp o = op(K::kAffine, h, w, code);
  o.matrix[2] = dx;
  return o;
}

int grad(int y, int x) { return 10 * y + x; }

TEST(PixelOpsTest, NoOpsGiveTheImageItself) {
  const Image img = image_of(3, 4, grad);
  PixelScratch scratch;
  const ImageView out = apply(img, {}, scratch);
  EXPECT_EQ(out.data, img.data());
}

TEST(PixelOpsTest, ResizeIsCv2Bilinear) {
  const int values[2][3] = {{0, 60, 120}, {30, 90, 150}};
  const Image img = image_of(2, 3, [&](int y, int x) { return values[y][x]; });
  PixelScratch scratch;
  const ImageView out = apply(img, {op(K::kResize, 4, 6)}, scratch);
  ASSERT_EQ(out.height, 4);
  ASSERT_EQ(out.width, 6);
  const int expected[4][6] = {{0, 15, 45, 75, 105, 120},
                              {8, 23, 53, 83, 113, 128},
                              {23, 38, 68, 98, 128, 143},
                              {30, 45, 75, 105, 135, 150}};
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x) EXPECT_EQ(at(out, y, x, 2), expected[y][x]) << y << "," << x;
}

TEST(PixelOpsTest, FlipsTheWholeImageByCode) {
  const Image img = image_of(3, 4, grad);
  PixelScratch scratch;
  const ImageView lr = apply(img, {op(K::kFlip, 3, 4, 0)}, scratch);
  EXPECT_EQ(at(lr, 1, 0), grad(1, 3));
  const ImageView ud = apply(img, {op(K::kFlip, 3, 4, 1)}, scratch);
  EXPECT_EQ(at(ud, 0, 1), grad(2, 1));
  const ImageView both = apply(img, {op(K::kFlip, 3, 4, 2)}, scratch);
  EXPECT_EQ(at(both, 0, 0), grad(2, 3));
}

TEST(PixelOpsTest, AffineWarpsIntoItsSizeWithABlackBorder) {
  const Image img = image_of(4, 5, [](int y, int x) { return 100 + grad(y, x); });
  PixelScratch scratch;
  for (int code : {0, 1}) {  // bilinear and nearest agree on a whole-pixel shift
    const ImageView out = apply(img, {translation(6, 7, 2, code)}, scratch);
    ASSERT_EQ(out.height, 6);
    ASSERT_EQ(out.width, 7);
    EXPECT_EQ(at(out, 1, 0), 0) << code;
    EXPECT_EQ(at(out, 1, 3), 100 + grad(1, 1)) << code;
    EXPECT_EQ(at(out, 5, 3), 0) << code;  // below the source
  }
}

TEST(PixelOpsTest, CropKeepsItsRectangleClippedToTheImage) {
  const Image img = image_of(5, 5, grad);
  PixelScratch scratch;
  const ImageView inner = apply(img, {with_rect(op(K::kCrop, 3, 2), 1, 1, 3, 4)}, scratch);
  ASSERT_EQ(inner.height, 3);
  ASSERT_EQ(inner.width, 2);
  EXPECT_EQ(at(inner, 0, 0), grad(1, 1));
  EXPECT_EQ(at(inner, 2, 1), grad(3, 2));
  const ImageView clipped = apply(img, {with_rect(op(K::kCrop, 98, 98), 2, 2, 100, 100)}, scratch);
  EXPECT_EQ(clipped.height, 3);
  EXPECT_EQ(clipped.width, 3);
  EXPECT_EQ(at(clipped, 2, 2), grad(4, 4));
}

TEST(PixelOpsTest, PadAddsZerosRightAndBelow) {
  const Image img = image_of(3, 4, [](int y, int x) { return 1 + grad(y, x); });
  PixelScratch scratch;
  const ImageView out = apply(img, {op(K::kPad, 5, 6)}, scratch);
  ASSERT_EQ(out.height, 5);
  ASSERT_EQ(out.width, 6);
  EXPECT_EQ(at(out, 2, 3), 1 + grad(2, 3));
  EXPECT_EQ(at(out, 2, 4), 0);
  EXPECT_EQ(at(out, 3, 0), 0);
}

TEST(PixelOpsTest, RegionFlipTurnsOnlyItsRectangle) {
  const Image img = image_of(4, 6, grad);
  PixelScratch scratch;
  const ImageView lr = apply(img, {with_rect(op(K::kRegionFlip, 4, 6, 0), 1, 0, 4, 2)}, scratch);
  ASSERT_EQ(lr.width, 6);
  EXPECT_EQ(at(lr, 0, 1), grad(0, 3));
  EXPECT_EQ(at(lr, 1, 3), grad(1, 1));
  EXPECT_EQ(at(lr, 1, 2), grad(1, 2));  // the middle column stays
  EXPECT_EQ(at(lr, 2, 1), grad(2, 1));  // below the rectangle
  EXPECT_EQ(at(lr, 0, 5), grad(0, 5));  // right of it
  const ImageView both = apply(img, {with_rect(op(K::kRegionFlip, 4, 6, 2), 0, 1, 2, 3)}, scratch);
  EXPECT_EQ(at(both, 1, 0), grad(2, 1));
  // An empty rectangle changes nothing.
  const ImageView none = apply(img, {with_rect(op(K::kRegionFlip, 4, 6, 1), 2, 2, 2, 3)}, scratch);
  EXPECT_EQ(at(none, 2, 2), grad(2, 2));
}

TEST(PixelOpsTest, PadFillPutsTheOldImageOnItsResizedPatch) {
  // SourceImagePad: a 9 x 9 image's patch is int(9 / 9) = 1 pixel, at (fill_y 2, fill_x 3).
  const Image img = image_of(9, 9, grad);
  PixelOp fill = op(K::kFillPatch, 12, 12, 1);
  fill.fill_y = 2, fill.fill_x = 3;
  PixelScratch scratch;
  const ImageView out = apply(img, {op(K::kPad, 12, 12), fill}, scratch);
  ASSERT_EQ(out.height, 12);
  EXPECT_EQ(at(out, 8, 8), grad(8, 8));
  EXPECT_EQ(at(out, 10, 1), grad(2, 3));
  EXPECT_EQ(at(out, 0, 11), grad(2, 3));
}

TEST(PixelOpsTest, RotationFillAddsThePatchWhereTheWarpLeftBlack) {
  // A shift by 3: columns 0..2 are empty and take the patch (h // 9 x w // 9 = 2 x 2 at (4, 2),
  // resized to the canvas).
  const Image img = image_of(18, 18, grad);
  PixelOp fill = op(K::kFillPatch, 18, 18, 0);
  fill.fill_y = 4, fill.fill_x = 2;
  PixelScratch scratch;
  const ImageView out = apply(img, {translation(18, 18, 3, 0), fill}, scratch);
  const int rows[3] = {0, 9, 17};
  const int expected[3][5] = {{42, 42, 42, 0, 1}, {47, 47, 47, 90, 91}, {52, 52, 52, 170, 171}};
  for (int r = 0; r < 3; ++r)
    for (int x = 0; x < 5; ++x) EXPECT_EQ(at(out, rows[r], x), expected[r][x]) << rows[r];
}

TEST(PixelOpsTest, RotationFillWrapsLikeNumpysUint8) {
  // A half-pixel shift leaves column 0 at 100 with the border mask at 1: 100 + 200 = 300 -> 44.
  const Image img = image_of(18, 18, [](int, int) { return 200; });
  PixelOp fill = op(K::kFillPatch, 18, 18, 0);
  PixelScratch scratch;
  const ImageView out = apply(img, {translation(18, 18, 0.5, 0), fill}, scratch);
  EXPECT_EQ(at(out, 0, 0), 44);
  EXPECT_EQ(at(out, 0, 1), 200);
  EXPECT_EQ(at(out, 5, 17, 1), 200);
}

TEST(PixelOpsTest, RefusesRectanglesOutsideEmptySizesAndOtherImages) {
  const Image img = image_of(4, 6, grad);
  EXPECT_EQ(apply_status(img, {with_rect(op(K::kRegionFlip, 4, 6), 1, 0, 7, 2)}).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(apply_status(img, {with_rect(op(K::kRegionFlip, 4, 6), -1, 0, 2, 2)}).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(apply_status(img, {with_rect(op(K::kRegionFlip, 4, 6), 3, 0, 2, 2)}).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(apply_status(img, {with_rect(op(K::kCrop, 5, 5), 10, 10, 15, 15)}).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(apply_status(img, {op(K::kResize, 0, 5)}).code(), Code::kInvalidArgument);
  Image grey(4, 6, 1);
  PixelScratch scratch;
  EXPECT_EQ(apply_pixel_ops(grey.view(), {}, scratch).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment::mmocr
