// Profiles and validation of AugmentOptions.
#include "augment/profile.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "augment/db/profiles.h"
#include "augment/east/profiles.h"
#include "augment/fcenet/profiles.h"
#include "augment/panet/profiles.h"
#include "augment/psenet/profiles.h"
#include "augment/recipe_fields.h"
#include "augment/textsnake/profiles.h"

namespace textfeed::augment {

std::span<const FamilyEntry> family_entries() {
  // The registration of each family folder's light half: one line per family.
  static const FamilyEntry kFamilies[] = {east_entry(),  db_entry(),     psenet_entry(),
                                          panet_entry(), fcenet_entry(), textsnake_entry()};
  return kFamilies;
}

namespace {

std::vector<ProfileEntry> gather_profiles() {
  std::vector<ProfileEntry> all;
  for (const FamilyEntry& f : family_entries())
    all.insert(all.end(), f.profiles.begin(), f.profiles.end());
  std::sort(all.begin(), all.end(),
            [](const ProfileEntry& a, const ProfileEntry& b) { return a.profile < b.profile; });
  return all;
}

std::vector<RecipeField> gather_fields() {
  std::vector<RecipeField> all(common_fields().begin(), common_fields().end());
  for (const FamilyEntry& f : family_entries())
    all.insert(all.end(), f.fields.begin(), f.fields.end());
  return all;
}

}  // namespace

std::span<const RecipeField> recipe_fields() {
  static const std::vector<RecipeField> kAll = gather_fields();
  return kAll;
}

const ProfileEntry* find_profile(Profile profile) {
  for (const ProfileEntry& e : profile_entries())
    if (e.profile == profile) return &e;
  return nullptr;
}

std::span<const ProfileEntry> profile_entries() {
  static const std::vector<ProfileEntry> kAll = gather_profiles();
  return kAll;
}

AugmentOptions profile_defaults(Profile profile) {
  AugmentOptions o;
  o.profile = profile;
  if (const ProfileEntry* e = find_profile(profile)) e->set_defaults(o);
  return o;
}

Status validate_eval_profile(const AugmentOptions& options) {
  const ProfileEntry* e = find_profile(options.profile);
  if (e == nullptr) return Status::invalid_argument("augment option profile: not a Profile");
  return e->validate_eval(options);
}

double shrink_ratio_at(const AugmentOptions& o, uint64_t epoch) {
  if (o.total_epochs <= 0) return o.shrink_ratio;
  return o.shrink_ratio + 0.2 * static_cast<double>(epoch) / static_cast<double>(o.total_epochs);
}

Result<Profile> parse_profile(std::string_view name) {
  std::string expected;
  for (const ProfileEntry& e : profile_entries()) {
    if (name == e.name) return e.profile;
    expected += (expected.empty() ? "'" : e.profile == kLastProfile ? " or '" : ", '");
    expected += std::string(e.name) + "'";
  }
  return Status::invalid_argument("unknown profile '" + std::string(name) + "' (expected " +
                                  expected + ")");
}

std::string_view profile_name(Profile profile) {
  const ProfileEntry* e = find_profile(profile);
  return e ? e->name : "unknown";
}

std::string_view color_math_name(ColorMath math) {
  return field_detail::enum_text(kColorMathNames, static_cast<int>(math));
}

namespace {

Status bad(const char* field, double value, const std::string& rule) {
  return Status::invalid_argument("augment option " + std::string(field) + " = " +
                                  field_detail::number_text(value) + ": " + rule);
}

// Two fields, each within its bounds, in the wrong order: both named, since either may be the one
// that was set.
Status bad_pair(const char* low_field, double low, const char* high_field, double high) {
  return Status::invalid_argument("augment options " + std::string(low_field) + " = " +
                                  field_detail::number_text(low) + ", " + high_field + " = " +
                                  field_detail::number_text(high) + ": need " + low_field +
                                  " <= " + high_field);
}

// The rules between fields, after each field's own bound (recipe_fields()).
Status check_relations(const AugmentOptions& o) {
  const double inv = 1.0 / o.map_scale;
  if (std::abs(inv - std::round(inv)) > 1e-9)
    return bad("map_scale", o.map_scale, "1 / map_scale must be an integer (0.5, 0.25, ...)");
  if (o.map_size() < 1)
    return bad("map_scale", o.map_scale, "gives maps of 0 px for this crop_size");
  if (o.cut_low > o.cut_high) return bad_pair("cut_low", o.cut_low, "cut_high", o.cut_high);
  if (o.thresh_min > o.thresh_max)
    return bad_pair("thresh_min", o.thresh_min, "thresh_max", o.thresh_max);
  return Status();
}

}  // namespace

Status validate(const AugmentOptions& o) {
  if (find_profile(o.profile) == nullptr)
    return bad("profile", static_cast<unsigned>(o.profile), "not a registered profile");
  TF_RETURN_IF_ERROR(check_fields<AugmentOptions>(o, recipe_fields(), "augment option"));
  TF_RETURN_IF_ERROR(check_relations(o));
  const ProfileEntry* entry = find_profile(o.profile);
  return entry->validate_recipe != nullptr ? entry->validate_recipe(o) : Status();
}

Status set_option(AugmentOptions& o, std::string_view name, std::string_view value) {
  const RecipeField* f = find_field(recipe_fields(), name);
  if (f == nullptr)
    return Status::invalid_argument("unknown option '" + std::string(name) +
                                    "' (known: " + std::string(option_names()) + ")");
  return set_field_text(o, *f, value);
}

std::string_view option_names() {
  static const std::string kNames = field_names(recipe_fields());
  return kNames;
}

std::string describe(const AugmentOptions& o) {
  return "profile=" + std::string(profile_name(o.profile)) + " " +
         describe_fields(o, recipe_fields());
}

}  // namespace textfeed::augment
