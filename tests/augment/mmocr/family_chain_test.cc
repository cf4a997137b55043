// MmocrChain through the Family API (augment/family.h), as the pipeline drives it: for each of
// the profiles psenet, panet, fcenet and textsnake, plan() on a synthetic sample's words, render()
// from a synthetic image, and the outputs' sizes; the same Rng stream gives the same sample, and
// another stream another one.
#include "augment/mmocr/family_chain.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "augment/family.h"
#include "augment/profile.h"
#include "base/quad.h"
#include "base/rng.h"
#include "base/tensor.h"

namespace textfeed::augment::mmocr {
namespace {

constexpr int kWidth = 1280, kHeight = 720;

// Four quads (the last one ignored) and a curved word of 20 points, as a polygon reader gives
// them, with the quads a quad reader would give.
struct SyntheticWords {
  std::vector<Quad> quads;
  std::vector<unsigned char> labels;
  std::vector<float> poly_xy;
  std::vector<uint32_t> poly_points;

  SyntheticWords() {
    const float boxes[4][4] = {
        {100, 100, 300, 150}, {500, 300, 800, 380}, {900, 500, 1100, 560}, {200, 600, 400, 650}};
    for (int k = 0; k < 4; ++k) {
      const auto& b = boxes[k];
      quads.push_back(Quad{{b[0], b[1], b[2], b[1], b[2], b[3], b[0], b[3]}});
      labels.push_back(k == 3 ? kLabelIgnored : kLabelValid);
      poly_xy.insert(poly_xy.end(), quads.back().xy.begin(), quads.back().xy.end());
      poly_points.push_back(4);
    }
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < 10; ++i) {
        const int k = side == 0 ? i : 9 - i;
        poly_xy.push_back(300.0f + 50.0f * static_cast<float>(k));
        poly_xy.push_back(static_cast<float>(side == 0 ? 200 : 260) -
                          40.0f * std::sin(static_cast<float>(k) / 3.0f));
      }
    poly_points.push_back(20);
    labels.push_back(kLabelValid);
  }

  SampleWords view() const {
    SampleWords s;
    s.name = "synthetic.jpg";
    s.width = kWidth, s.height = kHeight;
    s.quads = std::span<const Quad>(quads);
    s.labels = std::span<const unsigned char>(labels).first(quads.size());
    s.poly_xy = poly_xy;
    s.poly_points = poly_points;
    s.poly_labels = labels;
    return s;
  }
};

Image synthetic_image() {
  Image img(kHeight, kWidth, 3);
  for (size_t i = 0; i < img.size_bytes(); ++i)
    img.data()[i] = static_cast<uint8_t>((i * 7) ^ (i >> 11));
  return img;
}

// One sample's outputs: the image rows, every target tensor's bytes and the words after.
struct Rendered {
  std::vector<uint8_t> image;
  std::vector<std::vector<uint8_t>> targets;
  SampleMeta meta;
};

std::vector<uint8_t> bytes_of(const Image& img) {
  return std::vector<uint8_t>(img.data(), img.data() + img.size_bytes());
}

// plan() and render() of `chain` for the sample drawn from Rng(seed, 0, 0).
Rendered render_once(Chain& chain, const AugmentOptions& options, uint64_t seed) {
  static const SyntheticWords words;
  static const Image pixels = synthetic_image();
  const int side = options.crop_size;
  Rng rng(seed, 0, 0);
  PixelRequest request;
  const Status planned = chain.plan(words.view(), rng, 0, request);
  EXPECT_TRUE(planned.ok()) << planned.to_string();
  PixelGrant grant;
  grant.pixels = pixels.view();
  std::memcpy(grant.matrix, request.matrix, sizeof grant.matrix);
  Image image(3 * side, side, 1, options.dtype);
  const std::vector<TargetTensor> tensors =
      family_of(options.profile).make_target_builder(options)->tensors(side);
  std::vector<Image> planes;
  std::vector<MutableImageView> views;
  for (const TargetTensor& t : tensors)
    planes.emplace_back(t.channels * t.side, t.side, 1, t.dtype);
  for (Image& p : planes) views.push_back(p.mutable_view());
  ChainOutputs out;
  out.image = image.mutable_view();
  out.targets = views;
  StageTimes times;
  const Status rendered = chain.render(grant, rng, 0, out, times);
  EXPECT_TRUE(rendered.ok()) << rendered.to_string();
  Rendered r;
  r.image = bytes_of(image);
  for (const Image& p : planes) r.targets.push_back(bytes_of(p));
  chain.words_after(r.meta);
  return r;
}

class MmocrChainTest : public ::testing::TestWithParam<Profile> {};

TEST_P(MmocrChainTest, PlansAndRendersASampleOfTheChainsSize) {
  const AugmentOptions options = profile_defaults(GetParam());
  const std::unique_ptr<Chain> chain = family_of(GetParam()).make_chain(options);
  auto* mmocr = dynamic_cast<MmocrChain*>(chain.get());
  ASSERT_NE(mmocr, nullptr);
  const Rendered r = render_once(*chain, options, 5);
  const int side = options.crop_size;
  EXPECT_EQ(side, GetParam() == Profile::kPsenet || GetParam() == Profile::kPanet ? 736 : 800);
  EXPECT_EQ(mmocr->last_state().h, side);
  EXPECT_EQ(mmocr->last_state().w, side);
  EXPECT_EQ(r.meta.height, side);
  EXPECT_EQ(r.meta.width, side);
  EXPECT_FALSE(r.meta.points.empty());
  EXPECT_EQ(r.meta.points.size(), r.meta.ignore.size());
  size_t points = 0;
  for (uint32_t n : r.meta.points) points += n;
  EXPECT_EQ(r.meta.xy.size(), 2 * points);
  for (float v : r.meta.xy) EXPECT_TRUE(std::isfinite(v));
}

TEST_P(MmocrChainTest, TheSameStreamGivesTheSameSampleAndAnotherAnother) {
  const AugmentOptions options = profile_defaults(GetParam());
  const std::unique_ptr<Chain> chain = family_of(GetParam()).make_chain(options);
  const Rendered first = render_once(*chain, options, 5);
  const Rendered other = render_once(*chain, options, 6);
  const Rendered again = render_once(*chain, options, 5);
  EXPECT_EQ(first.meta, again.meta);
  EXPECT_TRUE(first.image == again.image);
  EXPECT_TRUE(first.targets == again.targets);
  EXPECT_FALSE(first.meta == other.meta);
  EXPECT_FALSE(first.image == other.image);
  // A fresh chain (another worker thread) gives the same sample too.
  const std::unique_ptr<Chain> fresh = family_of(GetParam()).make_chain(options);
  const Rendered elsewhere = render_once(*fresh, options, 5);
  EXPECT_EQ(first.meta, elsewhere.meta);
  EXPECT_TRUE(first.image == elsewhere.image);
  EXPECT_TRUE(first.targets == elsewhere.targets);
}

TEST(MmocrChainOptionsTest, RefusesACropSizeOtherThanTheChains) {
  AugmentOptions options = profile_defaults(Profile::kFcenet);
  options.crop_size = 640;
  const std::unique_ptr<Chain> chain = family_of(Profile::kFcenet).make_chain(options);
  static const SyntheticWords words;
  Rng rng(1, 0, 0);
  PixelRequest request;
  const Status s = chain->plan(words.view(), rng, 0, request);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("crop_size must be 800"), std::string::npos) << s.message();
}

std::string profile_label(const ::testing::TestParamInfo<Profile>& info) {
  return std::string(profile_name(info.param));
}

INSTANTIATE_TEST_SUITE_P(Profiles, MmocrChainTest,
                         ::testing::Values(Profile::kPsenet, Profile::kPanet, Profile::kFcenet,
                                           Profile::kTextsnake),
                         profile_label);

}  // namespace
}  // namespace textfeed::augment::mmocr
