// The family registry: every profile has exactly one family, the profile table and the Profile
// enum agree, and what a family declares is what the pipeline gets.
#include "augment/family.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "augment/db/chain.h"
#include "augment/east/chain.h"
#include "augment/profile.h"

namespace textfeed::augment {
namespace {

TEST(FamilyTest, EveryProfileIsTrainedByExactlyOneRegisteredFamily) {
  std::set<std::string_view> names;
  for (const Family* f : families()) EXPECT_TRUE(names.insert(f->name()).second) << f->name();
  ASSERT_FALSE(profile_entries().empty());
  EXPECT_EQ(profile_entries().back().profile, kLastProfile);
  for (size_t i = 0; i < profile_entries().size(); ++i) {
    const ProfileEntry& e = profile_entries()[i];
    EXPECT_EQ(static_cast<size_t>(e.profile), i) << e.name << ": the table is in enum order";
    int trained_by = 0;
    for (const Family* f : families()) trained_by += f->trains(e.profile) ? 1 : 0;
    EXPECT_EQ(trained_by, 1) << e.name;
    EXPECT_TRUE(family_of(e.profile).trains(e.profile));
    // The name round-trips, and the defaults carry the profile.
    EXPECT_EQ(parse_profile(e.name).value(), e.profile);
    EXPECT_EQ(profile_name(e.profile), e.name);
    EXPECT_EQ(profile_defaults(e.profile).profile, e.profile);
    EXPECT_TRUE(validate(profile_defaults(e.profile)).ok()) << e.name;
  }
  EXPECT_EQ(find_profile(static_cast<Profile>(static_cast<int>(kLastProfile) + 1)), nullptr);
}

TEST(FamilyTest, EachFamilyMakesItsOwnChainAndBuilder) {
  EXPECT_NE(dynamic_cast<const EastChain*>(
                family_of(Profile::kSakura).make_chain(profile_defaults(Profile::kSakura)).get()),
            nullptr);
  EXPECT_NE(dynamic_cast<const DbChain*>(
                family_of(Profile::kDb).make_chain(profile_defaults(Profile::kDb)).get()),
            nullptr);
  for (const ProfileEntry& e : profile_entries()) {
    const AugmentOptions o = profile_defaults(e.profile);
    EXPECT_FALSE(make_target_builder(o)->tensors(o.crop_size).empty()) << e.name;
  }
}

TEST(FamilyTest, CompactRowsAreRefusedNamingTheProfilesThatHaveThem) {
  EXPECT_TRUE(check_compact_rows(Profile::kUpstage).ok());
  const Status db = check_compact_rows(Profile::kDb);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.message().find("(upstage, sakura, bc7), not db"), std::string::npos) << db.message();
}

TEST(FamilyTest, EvaluationRulesComeFromTheProfilesFamily) {
  AugmentOptions db = profile_defaults(Profile::kDb);
  db.image_size = 1000;
  EXPECT_NE(validate_eval_profile(db).message().find("multiple of 32"), std::string::npos);
  db.image_size = 1024;
  EXPECT_TRUE(validate_eval_profile(db).ok());
  db.channel_order = ChannelOrder::kRgb;
  EXPECT_NE(validate_eval_profile(db).message().find("BGR"), std::string::npos);
  AugmentOptions sakura = profile_defaults(Profile::kSakura);
  sakura.image_size = 1000;
  EXPECT_TRUE(validate_eval_profile(sakura).ok());
  AugmentOptions bad;
  bad.profile = static_cast<Profile>(200);
  EXPECT_FALSE(validate_eval_profile(bad).ok());
}

}  // namespace
}  // namespace textfeed::augment
