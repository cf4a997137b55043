// The TargetBuilder seam: the EAST builder declares the tensors the batch layout always had, and
// writes what make_targets writes; it refuses what EAST cannot use instead of guessing.
#include "augment/target_builder.h"

#include <gtest/gtest.h>

#include <vector>

#include "augment/db/targets.h"
#include "augment/east/targets.h"
#include "augment/family.h"

namespace textfeed::augment {
namespace {

// Buffers for `tensors` at one sample each, filled with a value the builder must overwrite.
struct Outputs {
  std::vector<std::vector<float>> planes;
  std::vector<MutableImageView> views;
  explicit Outputs(const std::vector<TargetTensor>& tensors) {
    for (const TargetTensor& t : tensors)
      planes.emplace_back(static_cast<size_t>(t.channels) * t.side * t.side, 7.f);
    for (size_t k = 0; k < tensors.size(); ++k)
      views.push_back({reinterpret_cast<uint8_t*>(planes[k].data()),
                       tensors[k].channels * tensors[k].side, tensors[k].side, 1,
                       static_cast<ptrdiff_t>(tensors[k].side * sizeof(float)), DType::kF32});
  }
};

// Two words, one ignored, partly outside the crop.
const std::vector<double> kQuads = {10,  12,  200, 20,  198, 60,  8,   50,
                                    300, 300, 520, 310, 515, 380, 296, 370};
const std::vector<unsigned char> kLabels = {1, 0};

TEST(TargetBuilderTest, DbProfileBuildsDbTargetsWithItsOptions) {
  AugmentOptions o = profile_defaults(Profile::kDb);
  o.min_text_size = 5;
  EXPECT_EQ(family_of(Profile::kDb).name(), "db");
  const auto builder = make_target_builder(o);
  ASSERT_NE(dynamic_cast<const DbTargetBuilder*>(builder.get()), nullptr);
  const std::vector<TargetTensor> t = builder->tensors(o.crop_size);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].name, "threshold_map");
  EXPECT_EQ(t[3].name, "shrink_mask");
  EXPECT_EQ(t[0].side, 640);
  EXPECT_EQ(static_cast<const DbTargetBuilder&>(*builder).options().min_text_size, 5);
}

TEST(TargetBuilderTest, EastProfilesAreEastAndEastDeclaresTheLayoutsMaps) {
  for (Profile p : {Profile::kUpstage, Profile::kSakura, Profile::kBc7}) {
    const AugmentOptions o = profile_defaults(p);
    EXPECT_EQ(family_of(p).name(), "east");
    const auto builder = make_target_builder(o);
    EXPECT_NE(dynamic_cast<const EastTargetBuilder*>(builder.get()), nullptr);
    const std::vector<TargetTensor> t = builder->tensors(o.crop_size);
    ASSERT_EQ(t.size(), 3u);
    const int m = o.map_size();
    EXPECT_EQ(t[0].name, "score");
    EXPECT_EQ(t[1].name, "geo");
    EXPECT_EQ(t[2].name, o.mask == MaskKind::kRoi ? "roi" : "ignored");
    EXPECT_EQ(t[0].channels, 1);
    EXPECT_EQ(t[1].channels, 5);
    EXPECT_EQ(t[2].channels, 1);
    for (const TargetTensor& x : t) {
      EXPECT_EQ(x.side, m) << x.name;
      EXPECT_EQ(x.dtype, DType::kF32) << x.name;
    }
  }
  EXPECT_EQ(profile_defaults(Profile::kUpstage).mask, MaskKind::kRoi);
  EXPECT_EQ(profile_defaults(Profile::kSakura).mask, MaskKind::kIgnored);
}

TEST(TargetBuilderTest, EastBuildWritesWhatMakeTargetsWrites) {
  for (Profile p : {Profile::kUpstage, Profile::kSakura}) {
    const AugmentOptions o = profile_defaults(p);
    const int crop = 512;
    EastTargetBuilder builder(o);
    Outputs got(builder.tensors(crop)), want(builder.tensors(crop));
    ASSERT_TRUE(builder.build(got.views, PolygonsView::quads(kQuads), kLabels, crop).ok());
    TargetScratch scratch;
    ASSERT_TRUE(make_targets({want.views[0], want.views[1], want.views[2]}, kQuads, kLabels, crop,
                             o, scratch)
                    .ok());
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(got.planes[k], want.planes[k]) << "tensor " << k;
    // Polygons whose ends say 4 points each are the same quads.
    const std::vector<uint32_t> ends = {4, 8};
    Outputs again(builder.tensors(crop));
    ASSERT_TRUE(builder.build(again.views, PolygonsView{kQuads, ends}, kLabels, crop).ok());
    EXPECT_EQ(again.planes, want.planes);
  }
}

TEST(TargetBuilderTest, EastRefusesPolygonsThatAreNotQuadsAndMismatchedViews) {
  const AugmentOptions o = profile_defaults(Profile::kSakura);
  EastTargetBuilder builder(o);
  Outputs out(builder.tensors(o.crop_size));
  // A pentagon and a quad.
  const std::vector<double> xy = {10, 10,  50,  10,  60,  30,  50,  50,  10,
                                  50, 100, 100, 140, 100, 140, 120, 100, 120};
  const std::vector<uint32_t> ends = {5, 9};
  const PolygonsView words{xy, ends};
  ASSERT_TRUE(words.consistent());
  EXPECT_EQ(words.size(), 2u);
  EXPECT_EQ(words.points(0), 5u);
  EXPECT_EQ(words.word(1).size(), 8u);
  const Status s = builder.build(out.views, words, kLabels, o.crop_size);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("word 0 has 5 points"), std::string::npos) << s.message();
  // Ends that do not match the coordinates.
  const std::vector<uint32_t> short_ends = {4};
  EXPECT_FALSE((PolygonsView{xy, short_ends}.consistent()));
  EXPECT_EQ(builder.build(out.views, PolygonsView{xy, short_ends}, {kLabels.data(), 1}, o.crop_size)
                .code(),
            Code::kInvalidArgument);
  // Two views for three tensors.
  EXPECT_EQ(
      builder
          .build(std::span(out.views).first(2), PolygonsView::quads(kQuads), kLabels, o.crop_size)
          .code(),
      Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::augment
