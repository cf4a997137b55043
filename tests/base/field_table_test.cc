// Field tables (base/field_table.h): each kind's text both ways, its bound and its messages. The
// kinds the recipe has had since before text, text lists and uint64 keep their texts and messages
// byte for byte (the golden strings below are what they said then).
#include "base/field_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace textfeed {
namespace {

enum class Colour : unsigned char { kRed, kBlue };
constexpr EnumName kColourNames[] = {{"red", 0}, {"blue", 1}};

struct Options {
  int count = 3;
  double ratio = 0.5;
  bool on = true;
  UniformRange gain{0.8, 1.2};
  UniformRange shift{-0.1, 0.1};
  float plane[3] = {1, 2, 3};
  Colour colour = Colour::kRed;
  std::string folder = "images";
  std::vector<std::string> tags = {"b", "a"};
  uint64_t seed = 7;
  uint64_t draws = 0;
};

Status no_dots(std::string_view name, const std::string& value) {
  if (value.find("..") == std::string::npos) return Status();
  return Status::invalid_argument(std::string(name) + " must not hold '..', got '" + value + "'");
}

using F = Field<Options>;
const F kTable[] = {
    int_field("count", &Options::count, {1, 10}, "a count"),
    double_field("ratio", &Options::ratio, {0, 1, true}, "a ratio"),
    bool_field("on", &Options::on, "a switch"),
    range_field("gain", FieldKind::kFactor, &Options::gain, {0, 4}, "a factor"),
    range_field("shift", FieldKind::kShift, &Options::shift, {-0.5, 0.5}, "a shift"),
    triple_field("plane", &Options::plane, {-10, 10}, "one per plane"),
    enum_field<&Options::colour>("colour", kColourNames, "a colour"),
    text_field("folder", &Options::folder, {1, 8}, &no_dots, "a folder"),
    text_list_field("tags", &Options::tags, {0, 3}, &no_dots, "tags"),
    uint64_field("seed", &Options::seed, {0, 0x1p64}, "any uint64"),
    uint64_field("draws", &Options::draws, {0, 1 << 24}, "draws"),
};

const F& row(std::string_view name) { return *find_field<Options>(kTable, name); }

std::string refusal(const Options& o, std::string_view name) {
  const Status s = check_field(o, row(name), "test option");
  EXPECT_FALSE(s.ok()) << name << " accepted";
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  return s.message();
}

std::string parse_error(std::string_view name, std::string_view text) {
  Options o;
  const Status s = set_field_text(o, row(name), text);
  EXPECT_FALSE(s.ok()) << name << " = '" << text << "' parsed";
  return s.message();
}

TEST(FieldTableTest, EveryRowsTextReadsBackAsItsValue) {
  Options changed;
  for (const F& f : kTable) {
    SCOPED_TRACE(std::string(f.name));
    Options o;
    const std::string text = field_text(o, f);
    ASSERT_TRUE(set_field_text(changed, f, text).ok());
    EXPECT_EQ(field_text(changed, f), text);
    EXPECT_TRUE(same_field(o, changed, f));
    EXPECT_TRUE(check_field(o, f, "test option").ok());
  }
  EXPECT_EQ(first_difference<Options>(Options{}, changed, kTable), nullptr);
}

TEST(FieldTableTest, TheOlderKindsKeepTheirTextsAndMessages) {
  const Options o;
  EXPECT_EQ(describe_fields<Options>(o, std::span<const F>(kTable, 7)),
            "count=3 ratio=0.5 on=true gain=0.8,1.2 shift=-0.1,0.1 plane=1,2,3 colour=red");
  EXPECT_EQ(parse_error("count", "1.5"), "option count = '1.5': expected an integer");
  EXPECT_EQ(parse_error("ratio", "nan"), "option ratio = 'nan': expected a finite decimal number");
  EXPECT_EQ(parse_error("on", "yes"), "option on = 'yes': expected true or false");
  EXPECT_EQ(parse_error("colour", "green"), "option colour = 'green': expected red|blue");
  EXPECT_EQ(parse_error("plane", "1,2"),
            "option plane = '1,2': expected three finite numbers 'a,b,c' (one per image plane)");
  Options bad;
  bad.count = 11;
  EXPECT_EQ(refusal(bad, "count"), "test option count = 11: must be in [1, 10]");
  bad.ratio = 0;
  EXPECT_EQ(refusal(bad, "ratio"), "test option ratio = 0: must be in (0, 1]");
  bad.gain = {2, 1};
  EXPECT_EQ(refusal(bad, "gain"), "test option gain = [2, 1]: need 0 <= lo <= hi <= 4");
  EXPECT_EQ(field_syntax(FieldKind::kFactor, {}), "lo,hi");
  EXPECT_EQ(field_kind_name(FieldKind::kShift), "shift_range");
  EXPECT_EQ(field_bound_text(FieldKind::kDouble, row("ratio").bound), "(0, 1]");
}

TEST(FieldTableTest, ATextIsItselfWithinItsBytesAndItsRule) {
  Options o;
  ASSERT_TRUE(set_field_text(o, row("folder"), "img/a").ok());
  EXPECT_EQ(o.folder, "img/a");
  EXPECT_EQ(field_text(o, row("folder")), "img/a");
  o.folder = "";
  EXPECT_EQ(refusal(o, "folder"), "test option folder is 0 bytes long: must be in [1, 8] bytes");
  o.folder = "123456789";
  EXPECT_EQ(refusal(o, "folder"), "test option folder is 9 bytes long: must be in [1, 8] bytes");
  o.folder = std::string("a\0b", 3);
  EXPECT_EQ(refusal(o, "folder"), "test option folder contains a NUL byte");
  o.folder = "../x";
  EXPECT_EQ(refusal(o, "folder"), "folder must not hold '..', got '../x'");
  EXPECT_EQ(field_syntax(FieldKind::kText, {}), "text");
  EXPECT_EQ(field_kind_name(FieldKind::kText), "text");
}

TEST(FieldTableTest, ATextListIsCommaSeparatedNamesComparedAsASet) {
  Options o;
  ASSERT_TRUE(set_field_text(o, row("tags"), "x,,y,").ok());
  EXPECT_EQ(o.tags, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(field_text(o, row("tags")), "x,y");
  ASSERT_TRUE(set_field_text(o, row("tags"), "").ok());
  EXPECT_TRUE(o.tags.empty());
  Options a, b;
  a.tags = {"b", "a", "b"};
  b.tags = {"a", "b"};
  EXPECT_TRUE(same_field(a, b, row("tags")));
  EXPECT_EQ(field_set_text(a, row("tags")), "a,b");
  b.tags = {"a"};
  EXPECT_FALSE(same_field(a, b, row("tags")));
  EXPECT_EQ(first_difference<Options>(a, b, kTable), &row("tags"));
  o.tags = {"a", "b", "c", "d"};
  EXPECT_EQ(refusal(o, "tags"), "test option tags has 4 names: must have [0, 3]");
  o.tags = {std::string("a\0", 2)};
  EXPECT_EQ(refusal(o, "tags"), "test option tags has a name with a NUL byte");
  o.tags = {"ok", "a..b"};
  EXPECT_EQ(refusal(o, "tags"), "tags must not hold '..', got 'a..b'");
  // A list set as a value (the wire, Python) must have a text form that gives it back.
  o.tags = {"ok", ""};
  EXPECT_EQ(refusal(o, "tags"), "test option tags has an empty name");
  o.tags = {"a,b"};
  EXPECT_EQ(refusal(o, "tags"),
            "test option tags has the name 'a,b', which holds a comma (the list's separator)");
  EXPECT_EQ(field_kind_name(FieldKind::kTextList), "text_list");
}

TEST(FieldTableTest, AUint64TakesEveryValueExactly) {
  Options o;
  ASSERT_TRUE(set_field_text(o, row("seed"), "18446744073709551615").ok());
  EXPECT_EQ(o.seed, UINT64_MAX);
  EXPECT_EQ(field_text(o, row("seed")), "18446744073709551615");
  EXPECT_TRUE(check_field(o, row("seed"), "test option").ok());
  for (const char* bad : {"-1", "18446744073709551616", "1.5", "", "+3", " 3"})
    EXPECT_EQ(parse_error("seed", bad), "option seed = '" + std::string(bad) +
                                            "': expected an integer in 0..18446744073709551615");
  o.draws = (1 << 24) + 1;
  EXPECT_EQ(refusal(o, "draws"), "test option draws = 16777217: must be in [0, 16777216]");
  o.draws = 1 << 24;
  EXPECT_TRUE(check_field(o, row("draws"), "test option").ok());
  EXPECT_EQ(field_bound_text(FieldKind::kUint64, row("seed").bound), "[0, 18446744073709551615]");
  EXPECT_EQ(field_syntax(FieldKind::kUint64, {}), "uint64");
  Options a, b;
  b.seed = a.seed + 1;
  EXPECT_EQ(first_difference<Options>(a, b, kTable), &row("seed"));
}

TEST(FieldTableTest, ANamedRowIsSetAndAnUnknownNameListsTheKnownOnes) {
  Options o;
  ASSERT_TRUE(set_named_field<Options>(o, kTable, "count", "9").ok());
  EXPECT_EQ(o.count, 9);
  const Status unknown = set_named_field<Options>(o, kTable, "cuont", "9");
  EXPECT_EQ(unknown.message(),
            "unknown option 'cuont' (known: count, ratio, on, gain, shift, plane, colour, folder, "
            "tags, seed, draws)");
  EXPECT_TRUE(field_kind_bounded(FieldKind::kText));
  EXPECT_FALSE(field_kind_bounded(FieldKind::kEnum));
}

}  // namespace
}  // namespace textfeed
