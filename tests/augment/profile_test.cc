// AugmentOptions: names and values parse or are refused clearly, and validate() bounds every
// numeric field, so that no option from the CLI, Python or the wire can make a sample cost without
// limit (issue 11 #8: crop_max_tries = 2e9 held a worker for ever).
#include "augment/profile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

namespace textfeed::augment {
namespace {

Status set_and_validate(const std::string& name, const std::string& value) {
  AugmentOptions o = profile_defaults(Profile::kUpstage);
  TF_RETURN_IF_ERROR(set_option(o, name, value));
  return validate(o);
}

TEST(ProfileTest, DefaultsOfEveryProfileAreValid) {
  EXPECT_TRUE(validate(profile_defaults(Profile::kUpstage)).ok());
  EXPECT_TRUE(validate(profile_defaults(Profile::kSakura)).ok());
  EXPECT_TRUE(validate(profile_defaults(Profile::kBc7)).ok());
}

TEST(ProfileTest, EveryNumericOptionIsBoundedOnBothSides) {
  struct Case {
    const char* name;
    const char* ok;
    const char* too_low;
    const char* too_high;
  };
  const Case cases[] = {
      {"image_size", "1024", "31", "32769"},      {"crop_size", "512", "7", "16385"},
      {"height_jitter", "0.3", "-0.1", "1"},      {"rotate_deg", "45", "-1", "181"},
      {"crop_max_tries", "10000", "0", "10001"},  {"cut_low", "0.02", "-0.01", "0.995"},
      {"cut_high", "0.9", "0.001", "1.01"},       {"color_jitter_p", "1", "-0.5", "1.5"},
      {"brightness", "0.2", "-0.1", "9.5"},       {"contrast", "0.2", "-0.1", "9.5"},
      {"saturation", "0.2", "-0.1", "9.5"},       {"hue", "0.5", "-0.1", "0.6"},
      {"brightness", "0,10", "-0.1,1", "1,10.5"}, {"hue", "-0.5,0.5", "-0.6,0", "0,0.6"},
      {"clamp_geo", "100", "-1", "65537"},        {"map_scale", "0.25", "0", "2"},
  };
  for (const Case& c : cases) {
    EXPECT_TRUE(set_and_validate(c.name, c.ok).ok()) << c.name << " = " << c.ok;
    for (const char* v : {c.too_low, c.too_high}) {
      const Status s = set_and_validate(c.name, v);
      EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.name << " = " << v;
      EXPECT_NE(s.message().find(c.name), std::string::npos) << s.message();
    }
  }
  EXPECT_TRUE(set_and_validate("image_size", "0").ok()) << "0 = no resize";
  EXPECT_EQ(set_and_validate("crop_max_tries", "2000000000").code(), Code::kInvalidArgument);
}

TEST(ProfileTest, UnparsableAndNonFiniteValuesAreRefused) {
  for (const char* v : {"nan", "inf", "-inf", "1e999", "", "12abc", "0x10"})
    EXPECT_EQ(set_and_validate("rotate_deg", v).code(), Code::kInvalidArgument) << v;
  for (const char* v : {"99999999999", "-", "1.5", " 5"})
    EXPECT_EQ(set_and_validate("crop_size", v).code(), Code::kInvalidArgument) << v;
  EXPECT_EQ(set_and_validate("fill_rule", "7").code(), Code::kInvalidArgument);
  EXPECT_EQ(set_and_validate("no_such_option", "1").code(), Code::kInvalidArgument);
}

// Issue 30 #7e: a NaN cut_high was reported as "cut_low = 0.02".
TEST(ProfileTest, ANanBoundIsReportedUnderItsOwnName) {
  const auto message_of = [](auto set) {
    AugmentOptions o = profile_defaults(Profile::kDb);
    set(o);
    const Status s = validate(o);
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
    return s.message();
  };
  EXPECT_NE(message_of([](AugmentOptions& o) { o.cut_high = std::nan(""); }).find("cut_high = nan"),
            std::string::npos);
  EXPECT_NE(message_of([](AugmentOptions& o) { o.cut_low = std::nan(""); }).find("cut_low = nan"),
            std::string::npos);
  EXPECT_NE(
      message_of([](AugmentOptions& o) { o.thresh_max = std::nan(""); }).find("thresh_max = nan"),
      std::string::npos);
  const std::string order =
      message_of([](AugmentOptions& o) { o.cut_low = 0.5, o.cut_high = 0.25; });
  EXPECT_NE(order.find("cut_low = 0.5, cut_high = 0.25: need cut_low <= cut_high"),
            std::string::npos)
      << order;
}

TEST(ProfileTest, MapsOfZeroPixelsAndDegenerateNormalizationAreRefused) {
  AugmentOptions o = profile_defaults(Profile::kUpstage);
  o.crop_size = 8;
  o.map_scale = 1.0 / 16;
  EXPECT_EQ(validate(o).code(), Code::kInvalidArgument);
  o = profile_defaults(Profile::kUpstage);
  o.std[1] = 0;
  EXPECT_EQ(validate(o).code(), Code::kInvalidArgument);
  o.std[1] = std::nanf("");
  EXPECT_EQ(validate(o).code(), Code::kInvalidArgument);
  o = profile_defaults(Profile::kUpstage);
  o.mean[0] = INFINITY;
  EXPECT_EQ(validate(o).code(), Code::kInvalidArgument);
}

TEST(ProfileTest, ColourRangesTakeAScalarOrLoCommaHi) {
  AugmentOptions o = profile_defaults(Profile::kUpstage);
  // The old scalar form keeps its meaning: [1 - b, 1 + b], [-h, h] (what upstage's defaults are).
  EXPECT_EQ(o.brightness, (UniformRange{0.5, 1.5}));
  EXPECT_EQ(o.hue, (UniformRange{-0.25, 0.25}));
  ASSERT_TRUE(set_option(o, "brightness", "0.5").ok());
  EXPECT_EQ(o.brightness, (UniformRange{1 - 0.5, 1 + 0.5}));
  ASSERT_TRUE(set_option(o, "contrast", "1.5").ok());  // clipped at 0, as albumentations does
  EXPECT_EQ(o.contrast, (UniformRange{0, 2.5}));
  ASSERT_TRUE(set_option(o, "saturation", "0.8,1").ok());
  EXPECT_EQ(o.saturation, (UniformRange{0.8, 1}));
  ASSERT_TRUE(set_option(o, "hue", "0.1").ok());
  EXPECT_EQ(o.hue, (UniformRange{-0.1, 0.1}));
  ASSERT_TRUE(set_option(o, "hue", "-0.5,0.125").ok());
  EXPECT_EQ(o.hue, (UniformRange{-0.5, 0.125}));
  ASSERT_TRUE(set_option(o, "brightness", "1,1").ok());  // a point: the factor is always 1
  EXPECT_TRUE(validate(o).ok());
}

TEST(ProfileTest, BadColourRangesAreRefusedNamingTheReason) {
  struct Case {
    const char* name;
    const char* value;
    const char* reason;  // a part of the message
  };
  const Case cases[] = {
      {"brightness", "1,0.5", "lo must not exceed hi"},
      {"brightness", "-0.2", "a single number must not be negative"},
      {"hue", "-0.1", "a single number must not be negative"},
      {"contrast", "0.8,", "'lo,hi' or one number"},
      {"contrast", ",1", "'lo,hi' or one number"},
      {"saturation", "0.8,1,2", "'lo,hi' or one number"},
      {"saturation", "0.8, 1", "'lo,hi' or one number"},
      {"brightness", "a,b", "'lo,hi' or one number"},
      {"brightness", "nan,1", "'lo,hi' or one number"},
      {"hue", "0,inf", "for [-h, h]"},
      {"brightness", "", "for [max(0, 1 - b), 1 + b]"},
  };
  for (const Case& c : cases) {
    AugmentOptions o = profile_defaults(Profile::kUpstage);
    const Status s = set_option(o, c.name, c.value);
    ASSERT_EQ(s.code(), Code::kInvalidArgument) << c.name << " = '" << c.value << "'";
    EXPECT_NE(s.message().find(std::string("option ") + c.name + " = '" + c.value + "'"),
              std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(c.reason), std::string::npos) << s.message();
  }
  // Out of bounds: validate() names the field, the range and the bound.
  AugmentOptions o = profile_defaults(Profile::kUpstage);
  ASSERT_TRUE(set_option(o, "brightness", "-0.1,1").ok());
  const Status s = validate(o);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("brightness = [-0.1, 1]: need 0 <= lo <= hi <= 10"), std::string::npos)
      << s.message();
  o = profile_defaults(Profile::kUpstage);
  o.hue = {0.2, 0.1};  // set in code, not parsed: validate() still refuses lo > hi
  EXPECT_NE(validate(o).message().find("hue = [0.2, 0.1]: need -0.5 <= lo <= hi <= 0.5"),
            std::string::npos);
  o.hue = {std::nan(""), 0.1};
  EXPECT_EQ(validate(o).code(), Code::kInvalidArgument);
  o = profile_defaults(Profile::kUpstage);
  o.color_math = static_cast<ColorMath>(9);
  EXPECT_EQ(validate(o).code(), Code::kInvalidArgument);
}

TEST(ProfileTest, Bc7IsUpstageWithAlbumentations1412ColorJitterDefaults) {
  const AugmentOptions up = profile_defaults(Profile::kUpstage);
  AugmentOptions bc7 = profile_defaults(Profile::kBc7);
  EXPECT_EQ(bc7.profile, Profile::kBc7);
  EXPECT_EQ(bc7.brightness, (UniformRange{0.8, 1.0}));
  EXPECT_EQ(bc7.contrast, (UniformRange{0.8, 1.0}));
  EXPECT_EQ(bc7.saturation, (UniformRange{0.8, 1.0}));
  EXPECT_EQ(bc7.hue, (UniformRange{-0.5, 0.5}));
  EXPECT_EQ(bc7.color_jitter_p, 0.5);
  EXPECT_EQ(bc7.color_math, ColorMath::kAlbumentations1412);
  EXPECT_EQ(up.color_math, ColorMath::kFused);
  // Everything else is upstage's: make the colour fields equal and compare the rest.
  bc7.profile = up.profile;
  bc7.brightness = up.brightness, bc7.contrast = up.contrast, bc7.saturation = up.saturation,
  bc7.hue = up.hue;
  bc7.color_math = up.color_math;
  EXPECT_EQ(describe(bc7), describe(up));
  EXPECT_EQ(*parse_profile("bc7"), Profile::kBc7);
  EXPECT_EQ(profile_name(Profile::kBc7), "bc7");
  const auto bad = parse_profile("BC7");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find(
                "'upstage', 'sakura', 'bc7', 'db', 'psenet', 'panet', 'fcenet' or 'textsnake'"),
            std::string::npos);
}

TEST(ProfileTest, DescribeShowsTheRangesAndTheArithmetic) {
  const std::string d = describe(profile_defaults(Profile::kBc7));
  for (const char* part :
       {"profile=bc7", "brightness=0.8,1", "contrast=0.8,1", "saturation=0.8,1", "hue=-0.5,0.5",
        "color_math=albumentations_1_4_12", "color_jitter_p=0.5"})
    EXPECT_NE(d.find(part), std::string::npos) << part << " not in " << d;
  AugmentOptions o = profile_defaults(Profile::kUpstage);
  for (const char* name : {"fused", "albumentations_1_3_1", "albumentations_1_4_12"}) {
    ASSERT_TRUE(set_option(o, "color_math", name).ok());
    EXPECT_EQ(color_math_name(o.color_math), name);
  }
  EXPECT_EQ(set_option(o, "color_math", "albumentations").code(), Code::kInvalidArgument);
  EXPECT_NE(std::string(option_names()).find("color_math"), std::string::npos);
}

}  // namespace
}  // namespace textfeed::augment

namespace textfeed::augment {
namespace {

TEST(ProfileTest, DbIsPaddleOcrsDetectionChain) {
  const AugmentOptions db = profile_defaults(Profile::kDb);
  ASSERT_TRUE(validate(db).ok());
  EXPECT_EQ(*parse_profile("db"), Profile::kDb);
  EXPECT_EQ(profile_name(Profile::kDb), "db");
  EXPECT_EQ(db.crop_size, 640);
  EXPECT_EQ(db.map_scale, 1.0);
  EXPECT_EQ(db.image_size, 0);
  EXPECT_EQ(db.crop_max_tries, 50);
  EXPECT_EQ(db.rotate_deg, 10.0);
  EXPECT_EQ(db.flip_p, 0.5);
  EXPECT_EQ(db.resize, (UniformRange{0.5, 3.0}));
  EXPECT_EQ(db.color_jitter_p, 0.0);
  EXPECT_EQ(db.channel_order, ChannelOrder::kBgr);
  EXPECT_FLOAT_EQ(db.mean[0], 0.485f);
  EXPECT_FLOAT_EQ(db.std[2], 0.225f);
  EXPECT_EQ(db.shrink_ratio, 0.4);
  EXPECT_EQ(db.thresh_min, 0.3);
  EXPECT_EQ(db.thresh_max, 0.7);
  EXPECT_EQ(db.min_text_size, 8);
  EXPECT_EQ(db.invalid_polygon, InvalidPolygon::kKeep);
  // The EAST profiles keep RGB.
  EXPECT_EQ(profile_defaults(Profile::kUpstage).channel_order, ChannelOrder::kRgb);
}

TEST(ProfileTest, ShrinkRatioGrowsWithTheEpochOnlyWithTotalEpochs) {
  AugmentOptions o = profile_defaults(Profile::kDb);
  EXPECT_EQ(shrink_ratio_at(o, 0), 0.4);
  EXPECT_EQ(shrink_ratio_at(o, 999), 0.4);
  ASSERT_TRUE(set_option(o, "total_epochs", "1200").ok());
  EXPECT_EQ(shrink_ratio_at(o, 0), 0.4);
  EXPECT_DOUBLE_EQ(shrink_ratio_at(o, 600), 0.5);
  EXPECT_DOUBLE_EQ(shrink_ratio_at(o, 1200), 0.6);
}

TEST(ProfileTest, DbOptionsAreParsedAndBounded) {
  AugmentOptions o = profile_defaults(Profile::kDb);
  for (auto [name, value] : {std::pair{"flip_p", "0"},
                             {"resize", "1,2"},
                             {"min_crop_side", "0.3"},
                             {"shrink_ratio", "0.5"},
                             {"thresh_min", "0.2"},
                             {"thresh_max", "0.9"},
                             {"min_text_size", "4"},
                             {"total_epochs", "10"},
                             {"channel_order", "rgb"},
                             {"invalid_polygon", "repair"}})
    ASSERT_TRUE(set_option(o, name, value).ok()) << name;
  ASSERT_TRUE(validate(o).ok());
  EXPECT_EQ(o.resize, (UniformRange{1, 2}));
  EXPECT_EQ(o.invalid_polygon, InvalidPolygon::kRepair);
  EXPECT_EQ(o.channel_order, ChannelOrder::kRgb);
  EXPECT_EQ(set_option(o, "invalid_polygon", "fix").code(), Code::kInvalidArgument);
  EXPECT_EQ(set_option(o, "channel_order", "RGB").code(), Code::kInvalidArgument);
  const std::pair<const char*, const char*> bad[] = {
      {"flip_p", "1.5"},         {"resize", "0,2"},       {"resize", "1,17"},
      {"min_crop_side", "-0.1"}, {"shrink_ratio", "0"},   {"shrink_ratio", "1"},
      {"thresh_min", "0.8"},     {"min_text_size", "-1"}, {"total_epochs", "-3"}};
  for (auto [name, value] : bad) {
    AugmentOptions b = profile_defaults(Profile::kDb);
    ASSERT_TRUE(set_option(b, name, value).ok()) << name;  // parses; the bound is validate()'s
    const Status s = validate(b);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << name << "=" << value;
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
  }
  AugmentOptions nan = profile_defaults(Profile::kDb);
  nan.shrink_ratio = std::nan("");
  EXPECT_EQ(validate(nan).code(), Code::kInvalidArgument);
  EXPECT_NE(describe(profile_defaults(Profile::kDb)).find("shrink_ratio=0.4"), std::string::npos);
}

}  // namespace
}  // namespace textfeed::augment
