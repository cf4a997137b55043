// AugmentOptions: names and values parse or are refused clearly, and validate() bounds every
// numeric field, so that no option from the CLI, Python or the wire can make a sample cost without
// limit (issue 11 #8: crop_max_tries = 2e9 held a worker for ever).
#include "augment/profile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace textfeed::augment {
namespace {

Status set_and_validate(const std::string& name, const std::string& value) {
  AugmentOptions o = profile_defaults(Profile::kUpstage);
  TF_RETURN_IF_ERROR(set_option(o, name, value));
  return validate(o);
}

TEST(ProfileTest, DefaultsOfBothProfilesAreValid) {
  EXPECT_TRUE(validate(profile_defaults(Profile::kUpstage)).ok());
  EXPECT_TRUE(validate(profile_defaults(Profile::kSakura)).ok());
}

TEST(ProfileTest, EveryNumericOptionIsBoundedOnBothSides) {
  struct Case {
    const char* name;
    const char* ok;
    const char* too_low;
    const char* too_high;
  };
  const Case cases[] = {
      {"image_size", "1024", "31", "32769"},     {"crop_size", "512", "7", "16385"},
      {"height_jitter", "0.3", "-0.1", "1"},     {"rotate_deg", "45", "-1", "181"},
      {"crop_max_tries", "10000", "0", "10001"}, {"cut_low", "0.02", "-0.01", "0.995"},
      {"cut_high", "0.9", "0.001", "1.01"},      {"color_jitter_p", "1", "-0.5", "1.5"},
      {"brightness", "0.2", "-0.1", "1.1"},      {"contrast", "0.2", "-0.1", "1.1"},
      {"saturation", "0.2", "-0.1", "1.1"},      {"hue", "0.5", "-0.1", "0.6"},
      {"clamp_geo", "100", "-1", "65537"},       {"map_scale", "0.25", "0", "2"},
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

}  // namespace
}  // namespace textfeed::augment
