// Inference preprocessing: the sizes each reference gives, the canvas, and the resamplers against
// values worked out by hand and against OpenCV's own calls.
#include "augment/inference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "augment/family.h"

namespace textfeed::augment {
namespace {

Image gradient(int w, int h) {
  Image img(h, w, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        img.data()[(y * w + x) * 3 + c] = static_cast<uint8_t>((x * 7 + y * 13 + c * 50) % 256);
  return img;
}

TEST(InferencePlanTest, UpstageResizesTheLongerSideAndRoundsHalfToEven) {
  auto p = plan_inference(Profile::kUpstage, 1000, 500, 2048);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->width, 2048);
  EXPECT_EQ(p->height, 1024);
  EXPECT_DOUBLE_EQ(p->scale_x, 2.048);
  // 4 x 3 on 6: scale 1.5, 3 * 1.5 = 4.5 rounds to 4 as Python's round() does.
  p = plan_inference(Profile::kUpstage, 4, 3, 6);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->width, 6);
  EXPECT_EQ(p->height, 4);
  EXPECT_DOUBLE_EQ(p->scale_y, 4.0 / 3.0);
}

TEST(InferencePlanTest, SakuraFloorsEachSideToThirtyTwoAndRefusesWhatDoesNotFit) {
  auto p = plan_inference(Profile::kSakura, 1280, 720, 1280);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->width, 1280);
  EXPECT_EQ(p->height, 704);
  EXPECT_DOUBLE_EQ(p->scale_x, 1.0);
  EXPECT_DOUBLE_EQ(p->scale_y, 704.0 / 720.0);
  p = plan_inference(Profile::kSakura, 1400, 720, 1280);
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().code(), Code::kInvalidArgument);
  EXPECT_NE(p.error().message().find("1376x704"), std::string::npos) << p.error().message();
  EXPECT_FALSE(plan_inference(Profile::kSakura, 31, 100, 1280).has_value());  // floors to 0 px
}

TEST(PilBilinearTest, AveragesTwoPixelsIntoOneAsPilDoes) {
  // 2 -> 1: support 2, both pixels weigh 0.75 before normalizing; (0 + 255) / 2 rounds up to 128.
  const uint8_t px[6] = {0, 0, 0, 255, 255, 255};
  const ImageView src{px, 1, 2, 3, 6, DType::kU8};
  uint8_t out[3] = {};
  const MutableImageView dst{out, 1, 1, 3, 3, DType::kU8};
  InferenceScratch s;
  pil_bilinear_resize(src, dst, s);
  EXPECT_EQ(out[0], 128);
  EXPECT_EQ(out[2], 128);
}

TEST(PilBilinearTest, KeepsAConstantImageAndCopiesAtTheSameSize) {
  Image src(40, 70, 3);
  std::fill(src.data(), src.data() + src.size_bytes(), uint8_t{77});
  Image out(32, 64, 3);
  InferenceScratch s;
  pil_bilinear_resize(src.view(), out.mutable_view(), s);
  for (size_t i = 0; i < out.size_bytes(); ++i) ASSERT_EQ(out.data()[i], 77) << i;
  const Image g = gradient(64, 32);
  pil_bilinear_resize(g.view(), out.mutable_view(), s);
  EXPECT_EQ(0, std::memcmp(out.data(), g.data(), g.size_bytes()));
}

TEST(RenderInferenceTest, UpstageMatchesOpenCvResizeReflectPaddingAndImageNetNormalization) {
  const Image src = gradient(90, 50);
  const int side = 64;
  auto plan = plan_inference(Profile::kUpstage, 90, 50, side);
  ASSERT_TRUE(plan.has_value());
  cv::Mat expected;
  cv::resize(cv::Mat(50, 90, CV_8UC3, const_cast<uint8_t*>(src.data())), expected,
             cv::Size(plan->width, plan->height), 0, 0, cv::INTER_LINEAR);
  cv::copyMakeBorder(expected, expected, 0, side - plan->height, 0, side - plan->width,
                     cv::BORDER_REFLECT_101);
  std::vector<float> row(3 * side * side);
  const MutableImageView out{reinterpret_cast<uint8_t*>(row.data()),       3 * side,   side, 1,
                             static_cast<ptrdiff_t>(side * sizeof(float)), DType::kF32};
  InferenceScratch s;
  ASSERT_TRUE(render_inference(out, src.view(), *plan, Profile::kUpstage, s).ok());
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) {
        const float want = (expected.at<cv::Vec3b>(y, x)[c] / 255.0f - mean[c]) / stdev[c];
        ASSERT_NEAR(row[(c * side + y) * side + x], want, 1e-5) << c << " " << y << " " << x;
      }
}

TEST(RenderInferenceTest, SakuraPlacesTheImageTopLeftOnABlackCanvas) {
  const Image src = gradient(70, 40);  // floors to 64 x 32
  const int side = 96;
  auto plan = plan_inference(Profile::kSakura, 70, 40, side);
  ASSERT_TRUE(plan.has_value());
  std::vector<uint8_t> row(3 * side * side, 1);
  const MutableImageView out{row.data(), 3 * side, side, 1, side, DType::kU8};
  InferenceScratch s;
  ASSERT_TRUE(render_inference(out, src.view(), *plan, Profile::kSakura, s).ok());
  Image resized(32, 64, 3);
  pil_bilinear_resize(src.view(), resized.mutable_view(), s);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) {
        const uint8_t want = (x < 64 && y < 32) ? resized.data()[(y * 64 + x) * 3 + c] : 0;
        ASSERT_EQ(row[(c * side + y) * side + x], want) << c << " " << y << " " << x;
      }
}

// PaddleOCR's DetResizeForTest(limit_type='max'): int() of side * ratio, then round(x / 32) * 32
// (half to even), at least 32; never enlarged.
TEST(InferencePlanTest, DbLimitsTheLongerSideAndRoundsEachSideToThirtyTwoHalfToEven) {
  auto p = plan_inference(Profile::kDb, 1000, 500, 960);  // ratio 0.96: 960 x 480
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->width, 960);
  EXPECT_EQ(p->height, 480);
  EXPECT_DOUBLE_EQ(p->scale_x, 0.96);
  p = plan_inference(Profile::kDb, 100, 48, 960);  // ratio 1: 100/32 = 3.125 -> 96; 1.5 -> 2 -> 64
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->width, 96);
  EXPECT_EQ(p->height, 64);
  EXPECT_DOUBLE_EQ(p->scale_y, 64.0 / 48.0);
  p = plan_inference(Profile::kDb, 80, 10, 960);  // 2.5 -> 2 (half to even) -> 64; 10 -> 0 -> 32
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->width, 64);
  EXPECT_EQ(p->height, 32);
  // 1999 x 3001 on 736: ratio 736 / 3001; int(1999 * r) = 490 -> 15.3 -> 480; the longer -> 736.
  p = plan_inference(Profile::kDb, 1999, 3001, 736);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->width, 480);
  EXPECT_EQ(p->height, 736);
  // Sides adding up to less than 64 are padded to at least 32 first (image_padding), and the
  // scales are of the padded size: 20 x 20 stays unscaled, 40 x 20 is 40 x 32 made 32 x 32.
  p = plan_inference(Profile::kDb, 20, 20, 960);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->width, 32);
  EXPECT_DOUBLE_EQ(p->scale_x, 1.0);
  p = plan_inference(Profile::kDb, 40, 20, 960);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->width, 32);
  EXPECT_EQ(p->height, 32);
  EXPECT_DOUBLE_EQ(p->scale_x, 0.8);
  EXPECT_DOUBLE_EQ(p->scale_y, 1.0);
  EXPECT_EQ(inference_canvas_needed(Profile::kDb, 5000, 5000), 0);  // db fits any size
  EXPECT_FALSE(inference_keeps_size(Profile::kDb));
  EXPECT_TRUE(inference_keeps_size(Profile::kSakura));
  EXPECT_EQ(inference_canvas_needed(Profile::kSakura, 1400, 720), 1376);
}

TEST(RenderInferenceTest, DbResizesWithOpenCvOnABlackCanvasInBgrPlanes) {
  const Image src = gradient(100, 48);  // 96 x 64 on 128
  const int side = 128;
  auto plan = plan_inference(Profile::kDb, 100, 48, side);
  ASSERT_TRUE(plan.has_value());
  std::vector<float> row(3 * side * side, 7.0f);
  const MutableImageView out{reinterpret_cast<uint8_t*>(row.data()),       3 * side,   side, 1,
                             static_cast<ptrdiff_t>(side * sizeof(float)), DType::kF32};
  InferenceScratch s;
  ASSERT_TRUE(render_inference(out, src.view(), *plan, Profile::kDb, s).ok());
  cv::Mat resized;
  cv::resize(cv::Mat(48, 100, CV_8UC3, const_cast<uint8_t*>(src.data())), resized,
             cv::Size(96, 64));
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c)  // plane c holds the source's channel 2 - c (RGB decode, BGR planes)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) {
        const int v = (x < 96 && y < 64) ? resized.at<cv::Vec3b>(y, x)[2 - c] : 0;
        const float want = (v / 255.0f - mean[c]) / stdev[c];
        ASSERT_NEAR(row[(c * side + y) * side + x], want, 1e-5) << c << " " << y << " " << x;
      }
}

TEST(RenderInferenceTest, DbPadsASmallImageInsteadOfStretchingIt) {
  const Image src = gradient(20, 20);  // padded to 32 x 32, which is its plan: no resampling
  const int side = 64;
  auto plan = plan_inference(Profile::kDb, 20, 20, side);
  ASSERT_TRUE(plan.has_value());
  std::vector<uint8_t> row(3 * side * side, 1);
  const MutableImageView out{row.data(), 3 * side, side, 1, side, DType::kU8};
  InferenceScratch s;
  ASSERT_TRUE(render_inference(out, src.view(), *plan, Profile::kDb, s).ok());
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) {
        const uint8_t want = (x < 20 && y < 20) ? src.data()[(y * 20 + x) * 3 + (2 - c)] : 0;
        ASSERT_EQ(row[(c * side + y) * side + x], want) << c << " " << y << " " << x;
      }
}

TEST(InferenceStyleTest, EachProfileEvaluatesWithItsFamilysStyle) {
  for (const ProfileEntry& e : profile_entries()) {
    const InferenceStyle& style = inference_style(e.profile);
    EXPECT_EQ(&style, &family_of(e.profile).inference_style(e.profile)) << e.name;
    ASSERT_NE(style.size, nullptr) << e.name;
    ASSERT_NE(style.fill_canvas, nullptr) << e.name;
    EXPECT_FALSE(style.size_rule.empty()) << e.name;
    // A model is scored on the planes it was trained on: the eval planes are the profile's.
    EXPECT_EQ(style.planes, profile_defaults(e.profile).channel_order) << e.name;
  }
  // The references' normalizations, pinned: the boostcamp baselines and PaddleOCR use ImageNet's
  // (PaddleOCR on its BGR planes, with the values in the same order), sakura 0.5 and 0.5.
  const float imagenet_mean[3] = {0.485f, 0.456f, 0.406f},
              imagenet_std[3] = {0.229f, 0.224f, 0.225f};
  const float half[3] = {0.5f, 0.5f, 0.5f};
  for (Profile p : {Profile::kUpstage, Profile::kBc7, Profile::kSakura, Profile::kDb}) {
    float mean[3], stdev[3];
    inference_normalization(p, mean, stdev);
    const bool imagenet = p != Profile::kSakura;
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(mean[c], imagenet ? imagenet_mean[c] : half[c]) << profile_name(p) << " " << c;
      EXPECT_EQ(stdev[c], imagenet ? imagenet_std[c] : half[c]) << profile_name(p) << " " << c;
    }
    EXPECT_EQ(inference_style(p).planes == ChannelOrder::kBgr, p == Profile::kDb)
        << profile_name(p);
  }
  // Both boostcamp generations infer with the same detect(); sakura and db with their own.
  EXPECT_EQ(&inference_style(Profile::kUpstage), &inference_style(Profile::kBc7));
  EXPECT_NE(&inference_style(Profile::kUpstage), &inference_style(Profile::kSakura));
  EXPECT_NE(&inference_style(Profile::kUpstage), &inference_style(Profile::kDb));
}

TEST(InferencePlanTest, AnOversizeImageNamesWhatItsStyleSaysFixesIt) {
  auto sakura = plan_inference(Profile::kSakura, 1400, 720, 1280);
  ASSERT_FALSE(sakura.has_value());
  EXPECT_NE(sakura.error().message().find("after rounding to multiples of 32, larger than the "
                                          "1280 px canvas (raise image_size to at least 1376)"),
            std::string::npos)
      << sakura.error().message();
  auto db = plan_inference(Profile::kDb, 1010, 1010, 1010);  // 1010 / 32 = 31.56: 1024 px
  ASSERT_FALSE(db.has_value());
  EXPECT_NE(db.error().message().find("(make image_size a multiple of 32)"), std::string::npos)
      << db.error().message();
}

TEST(RenderInferenceTest, RefusesARowOfTheWrongShape) {
  const Image src = gradient(10, 10);
  auto plan = plan_inference(Profile::kUpstage, 10, 10, 16);
  ASSERT_TRUE(plan.has_value());
  std::vector<uint8_t> row(3 * 8 * 8);
  const MutableImageView out{row.data(), 24, 8, 1, 8, DType::kU8};
  InferenceScratch s;
  EXPECT_EQ(render_inference(out, src.view(), *plan, Profile::kUpstage, s).code(),
            Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
