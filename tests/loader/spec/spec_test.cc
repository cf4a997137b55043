// PipelineSpec: the one check of every field, and the names the text edges parse.
#include "loader/spec/spec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace textfeed::loader {
namespace {

PipelineSpec valid() { return default_spec(augment::Profile::kUpstage, "data/train"); }

void expect_refused(const PipelineSpec& spec, const std::string& names) {
  const Status s = validate(spec);
  ASSERT_FALSE(s.ok()) << "accepted, expected a refusal naming " << names;
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find(names), std::string::npos) << s.message();
}

TEST(SpecTest, AProfilesDefaultsAreValid) {
  for (augment::Profile p : {augment::Profile::kUpstage, augment::Profile::kSakura}) {
    const PipelineSpec spec = default_spec(p, "x");
    EXPECT_TRUE(validate(spec).ok()) << validate(spec).to_string();
    EXPECT_EQ(spec.augment.profile, p);
    ASSERT_EQ(spec.sources.size(), 1u);
    EXPECT_EQ(spec.sources[0].reader, ReaderOptions{});
  }
}

TEST(SpecTest, SourcesAreOneToSixtyFourNonEmptyBoundedPaths) {
  PipelineSpec none = valid();
  none.sources.clear();
  expect_refused(none, "1..64 sources");
  PipelineSpec two = valid();
  two.sources.push_back(two.sources[0]);
  EXPECT_TRUE(validate(two).ok());
  PipelineSpec many = valid();
  many.sources.assign(kMaxSources + 1, many.sources[0]);
  expect_refused(many, "1..64 sources, got 65");
  PipelineSpec empty = valid();
  empty.sources[0].path.clear();
  expect_refused(empty, "path is empty");
  PipelineSpec nul = valid();
  nul.sources[0].path = std::string("a\0b", 3);
  expect_refused(nul, "NUL");
  PipelineSpec long_path = valid();
  long_path.sources[0].path = std::string(kMaxTextBytes + 1, 'p');
  expect_refused(long_path, "at most 4096");
}

TEST(SpecTest, WeightsAreAllOrNoneFiniteAndPositive) {
  PipelineSpec two = valid();
  two.sources.push_back(two.sources[0]);
  two.sources[0].weight = 1;
  expect_refused(two, "either every source has a weight or none has: 1 of 2");
  two.sources[1].weight = 3;
  EXPECT_TRUE(validate(two).ok());
  for (double bad : {-1.0, std::nan(""), 1e10, std::numeric_limits<double>::infinity()}) {
    two.sources[1].weight = bad;
    expect_refused(two, "weight");
  }
  PipelineSpec unweighted = valid();
  unweighted.sampler.epoch_size = 10;
  expect_refused(unweighted, "epoch_size applies to weighted sources");
  PipelineSpec huge = valid();
  huge.sources[0].weight = 1;
  huge.sampler.epoch_size = kMaxEpochSize + 1;
  expect_refused(huge, "sampler option epoch_size = 16777217: must be in [0, 16777216]");
}

TEST(SpecTest, ResumeStagesAreBounded) {
  PipelineSpec s = valid();
  s.sampler.resume = {0, {{2, 4, {1, 2, 3}}}};
  expect_refused(s, "resume stage 0 gives 3 batch counts");
  s.sampler.resume = {0, {{0, 4, {1}}}};
  expect_refused(s, "resume stage 0 world_size");
  s.sampler.resume = {0, {{2, 0, {1}}}};
  expect_refused(s, "resume stage 0 batch_size");
  s.sampler.resume = {0, std::vector<ResumeStage>(kMaxResumeStages + 1, ResumeStage{1, 1, {0}})};
  expect_refused(s, "at most 64");
  s.sampler.resume = {0, {{2, 4, {1, 2}}}};
  EXPECT_TRUE(validate(s).ok());
}

TEST(SpecTest, ReaderOptionsHaveBounds) {
  PipelineSpec tags = valid();
  tags.sources[0].reader.ignore_tags.assign(kMaxIgnoreTags + 1, "t");
  expect_refused(tags, "ignore_tags");
  PipelineSpec area = valid();
  area.sources[0].reader.ignore_under_area = std::numeric_limits<double>::quiet_NaN();
  expect_refused(area, "ignore_under_area");
  PipelineSpec negative = valid();
  negative.sources[0].reader.drop_under_area = -1;
  expect_refused(negative, "drop_under_area");
  for (const char* folder : {"", "/etc", "../up", "a/../../b"}) {
    PipelineSpec escape = valid();
    escape.sources[0].reader.images_dir = folder;
    expect_refused(escape, "images_dir");
  }
  PipelineSpec nested = valid();
  nested.sources[0].reader.images_dir = "img/train";
  EXPECT_TRUE(validate(nested).ok()) << validate(nested).to_string();
}

TEST(SpecTest, TheSamplerAndTheRecipeAreCheckedByTheSameValidate) {
  PipelineSpec big = valid();
  big.sampler.batch_size = kMaxBatchSize + 1;
  expect_refused(big, "sampler option batch_size = 4097: must be in [1, 4096]");
  PipelineSpec rank = valid();
  rank.sampler.rank = 2;
  rank.sampler.world_size = 2;
  expect_refused(rank, "rank");
  PipelineSpec world = valid();
  world.sampler.world_size = kMaxWorldSize + 1;
  expect_refused(world, "world_size");
  PipelineSpec crop = valid();
  crop.augment.crop_size = 4;
  expect_refused(crop, "crop_size");
}

TEST(SpecTest, NamesRoundTripAndUnknownOnesAreNamed) {
  for (OnBadSample v : {OnBadSample::kSkip, OnBadSample::kFail})
    EXPECT_EQ(*parse_on_bad_sample(on_bad_sample_name(v)), v);
  for (IgnoreText v : {IgnoreText::kSubstring, IgnoreText::kExact})
    EXPECT_EQ(*parse_ignore_text(ignore_text_name(v)), v);
  for (PolyPolicy v : {PolyPolicy::kSkip, PolyPolicy::kMinRect, PolyPolicy::kMaskIgnore})
    EXPECT_EQ(*parse_poly_policy(poly_policy_name(v)), v);
  for (Illegibility v : {Illegibility::kIgnore, Illegibility::kValid})
    EXPECT_EQ(*parse_illegibility(illegibility_name(v)), v);
  EXPECT_EQ(illegibility_name(Illegibility::kValid), "valid");
  const Status illegible = parse_illegibility("true").status();
  EXPECT_EQ(illegible.code(), Code::kInvalidArgument);
  EXPECT_NE(illegible.message().find("illegibility must be one of 'ignore', 'valid', got 'true'"),
            std::string::npos)
      << illegible.message();
  PipelineSpec unknown = valid();
  unknown.sources[0].reader.illegibility = static_cast<Illegibility>(7);
  expect_refused(unknown, "illegibility");
  PipelineSpec split = valid();
  split.sources[0].reader.split = "../val";
  expect_refused(split, "split");
  const Status bad = parse_poly_policy("hull").status();
  EXPECT_EQ(bad.code(), Code::kInvalidArgument);
  EXPECT_NE(bad.message().find("'skip', 'minrect', 'mask-ignore'"), std::string::npos)
      << bad.message();
  EXPECT_NE(describe(valid()).find("source=data/train"), std::string::npos);
}

}  // namespace
TEST(SpecTest, ReaderDefaultsFollowTheProfilesReference) {
  const ReaderOptions bc7 = reader_defaults(augment::Profile::kBc7);
  EXPECT_EQ(bc7.illegibility, Illegibility::kValid);
  EXPECT_TRUE(bc7.ignore_tags.empty());
  EXPECT_EQ(reader_defaults(augment::Profile::kUpstage), ReaderOptions{});
  EXPECT_EQ(reader_defaults(augment::Profile::kSakura), ReaderOptions{});
  EXPECT_EQ(default_spec(augment::Profile::kBc7, "x").sources[0].reader, bc7);
}

}  // namespace textfeed::loader
