// A new option row reaches every edge with its bound enforced at each, shown on a dummy table.
//
// Why a dummy table stands for a new row of the recipe, reader or sampler table: every edge
// reaches an option only through functions that take the table as an argument, the same ones
// called here with the dummy table instead:
// - the CLI: the reader's and the sampler's flags are add_field_flags() and apply_field_texts()
//   (tools/field_flags.h, called by tools/spec_flags.cc with loader::reader_fields() and
//   sampler_fields()); the recipe's --set NAME=VALUE is augment::set_option(), which is
//   find_field() + set_field_text() on recipe_fields(), i.e. set_named_field();
// - Python: a Loader keyword given as text goes through augment::set_option() as --set does; a
//   typed attribute (ReaderOptions.x = v) is checked by validate(), which is check_fields() on the
//   table; and _core.recipe_fields(), reader_fields(), sampler_fields() build each row's dict from
//   field_kind_name(), field_syntax(), field_bound_text(), the bound and field_text()
//   (client/python/register_spec.cc field_rows());
// - the wire: put_fields() and get_fields() (transport/detail/field_codec.h) with the table, into
//   a struct with a field per row (here tests/transport/field_edges_test.capnp), and the receiver's
//   validate(), check_fields() again.
// The last tests run the real tables through the same functions: the reader's and the sampler's
// flags refuse each bound at both ends, and a recipe or reader value out of bound is refused by
// the CLI, the text edge and the receiver of the wire with one message.
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "augment/profile.h"
#include "base/field_table.h"
#include "loader/spec/spec_fields.h"
#include "tests/loader/spec/edge_texts.h"
#include "tests/transport/field_edges_test.capnp.h"
#include "tools/field_flags.h"
#include "transport/detail/field_codec.h"
#include "transport/wire.h"

namespace textfeed::transport {
namespace {

enum class Shade : unsigned char { kLight, kDarkGrey };
constexpr EnumName kShadeNames[] = {{"light", 0}, {"dark_grey", 1}};

struct DummyOptions {
  int knob = 5;  // the dummy option: [1, 10]
  int count = 2;
  double level = 0.5;
  std::string name = "n";
  std::vector<std::string> tags;
  uint64_t draws = 0;
  Shade shade = Shade::kLight;
  bool on = false;
  UniformRange gain{1, 1};
  float plane[3] = {0, 0, 0};
};

using D = DummyOptions;
const Field<D> kDummy[] = {
    int_field("knob", &D::knob, {1, 10}, "a dummy knob"),
    int_field("count", &D::count, {0, 100}, "a count"),
    double_field("level", &D::level, {0, 1}, "a level"),
    text_field("name", &D::name, {1, 16}, nullptr, "a name"),
    text_list_field("tags", &D::tags, {0, 3}, nullptr, "some tags"),
    uint64_field("draws", &D::draws, {0, 1000}, "draws"),
    enum_field<&D::shade>("shade", kShadeNames, "a shade"),
    bool_field("on", &D::on, "a switch"),
    range_field("gain", FieldKind::kFactor, &D::gain, {0, 4}, "a gain"),
    triple_field("plane", &D::plane, {-1, 1}, "per plane"),
};
constexpr std::string_view kWhat = "dummy option";

// What validate() says of `o`: the table's first refusal.
std::string refusal(const D& o) {
  const Status s = check_fields<D>(o, kDummy, kWhat);
  EXPECT_FALSE(s.ok());
  return s.message();
}

// The command line's message for `args` (CLI11 takes them last first), "" when they parse.
template <class O>
std::string cli_refusal(std::span<const Field<O>> table, const O& defaults, std::string_view what,
                        std::vector<std::string> args, tools::FieldTexts* texts = nullptr) {
  CLI::App app;
  tools::FieldTexts given;
  tools::add_field_flags<O>(
      &app, table, {{"", defaults}}, what,
      [&given](std::string_view row, const std::string& text) { given[std::string(row)] = text; });
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ValidationError& e) {
    return e.what();
  }
  if (texts) *texts = given;
  return "";
}

// `o` through the wire: its struct put, serialized, read back.
Result<D> through_the_wire(const D& o) {
  capnp::MallocMessageBuilder builder;
  internal::put_fields<D>(capnp::toDynamic(builder.initRoot<testing::wire::DummyOptions>()), o,
                          kDummy);
  const kj::Array<capnp::word> words = capnp::messageToFlatArray(builder);
  capnp::FlatArrayMessageReader reader(words);
  D out;
  out.tags = {"stale"};
  TF_RETURN_IF_ERROR(internal::get_fields<D>(
      capnp::toDynamic(reader.getRoot<testing::wire::DummyOptions>()), out, kDummy));
  return out;
}

// A switch's flag given a value means that value: "--on=false" leaves it off, and "--no-X=false"
// (a switch on by default) leaves it on.
TEST(FieldEdgesTest, ASwitchFlagGivenAValueMeansThatValue) {
  const auto on_after = [](const D& defaults, std::vector<std::string> args) {
    tools::FieldTexts texts;
    EXPECT_EQ(cli_refusal<D>(kDummy, defaults, kWhat, std::move(args), &texts), "");
    D o = defaults;
    EXPECT_TRUE(tools::apply_field_texts<D>(o, kDummy, texts).ok());
    return o.on;
  };
  const D off_by_default;
  EXPECT_TRUE(on_after(off_by_default, {"--on"}));
  EXPECT_TRUE(on_after(off_by_default, {"--on=true"}));
  EXPECT_FALSE(on_after(off_by_default, {"--on=false"}));
  EXPECT_FALSE(on_after(off_by_default, {"--on=0"}));
  EXPECT_FALSE(on_after(off_by_default, {}));
  D on_by_default;
  on_by_default.on = true;
  EXPECT_FALSE(on_after(on_by_default, {"--no-on"}));
  EXPECT_TRUE(on_after(on_by_default, {"--no-on=false"}));
  EXPECT_TRUE(on_after(on_by_default, {}));
}

TEST(FieldEdgesTest, ADummyRowReachesTheCliPythonAndTheWireWithItsBoundEnforcedAtEach) {
  D over;
  over.knob = 11;
  const std::string want = "dummy option knob = 11: must be in [1, 10]";
  ASSERT_EQ(refusal(over), want);

  // The CLI's flag: refused as it is parsed, with the table's message.
  EXPECT_EQ(cli_refusal<D>(kDummy, D{}, kWhat, {"--knob", "11"}), "--knob: " + want);
  tools::FieldTexts texts;
  ASSERT_EQ(cli_refusal<D>(kDummy, D{}, kWhat, {"--knob", "7", "--on"}, &texts), "");
  D from_flags;
  ASSERT_TRUE(tools::apply_field_texts<D>(from_flags, kDummy, texts).ok());
  EXPECT_EQ(from_flags.knob, 7);
  EXPECT_TRUE(from_flags.on);

  // NAME=VALUE (the recipe's --set, Python's keywords given as text), then validate().
  D from_text;
  ASSERT_TRUE(set_named_field<D>(from_text, kDummy, "knob", "11").ok());
  EXPECT_EQ(refusal(from_text), want);

  // Python's row of the option, and a typed attribute checked by validate().
  const Field<D>& row = *find_field<D>(kDummy, "knob");
  EXPECT_EQ(field_kind_name(row.kind), "int");
  EXPECT_EQ(field_syntax(row.kind, row.names), "int");
  EXPECT_TRUE(field_kind_bounded(row.kind));
  EXPECT_EQ(field_bound_text(row.kind, row.bound), "[1, 10]");
  EXPECT_EQ(field_text(D{}, row), "5");

  // The wire carries the value as sent; the receiver's validate() refuses it.
  Result<D> received = through_the_wire(over);
  ASSERT_TRUE(received.has_value()) << received.error().to_string();
  EXPECT_EQ(received->knob, 11);
  EXPECT_EQ(refusal(*received), want);
}

TEST(FieldEdgesTest, EveryKindCrossesTheWireAsItWasSent) {
  D o;
  o.knob = 9;
  o.count = 100;
  o.level = 0.1;
  o.name = std::string("a\0b", 3);
  o.tags = {"x", "", "y"};
  o.draws = 1000;
  o.shade = Shade::kDarkGrey;
  o.on = true;
  o.gain = {0.5, 2};
  o.plane[2] = -0.25f;
  Result<D> back = through_the_wire(o);
  ASSERT_TRUE(back.has_value()) << back.error().to_string();
  for (const Field<D>& f : kDummy) {
    EXPECT_TRUE(same_field(o, *back, f)) << f.name;
    EXPECT_EQ(field_text(o, f), field_text(*back, f)) << f.name;
  }
  EXPECT_EQ(back->tags, o.tags);  // in order, the empty name kept
}

TEST(FieldEdgesTest, TheWireRefusesWhatTheOptionsCannotHold) {
  const auto read = [](const auto& fill) {
    capnp::MallocMessageBuilder builder;
    fill(builder.initRoot<testing::wire::DummyOptions>());
    const kj::Array<capnp::word> words = capnp::messageToFlatArray(builder);
    capnp::FlatArrayMessageReader reader(words);
    D out;
    return internal::get_fields<D>(capnp::toDynamic(reader.getRoot<testing::wire::DummyOptions>()),
                                   out, kDummy);
  };
  using W = testing::wire::DummyOptions::Builder;
  Status s = read([](W b) { b.setCount(uint32_t{1} << 31); });
  EXPECT_EQ(s.message(), "DummyOptions.count = 2147483648 is out of range");
  s = read([](W b) { b.setShade(static_cast<testing::wire::Shade>(7)); });
  EXPECT_EQ(s.message(), "DummyOptions.shade = 7 is not a value this daemon or client knows");
  s = read([](W b) { b.initTags(4); });
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "DummyOptions.tags has 4 entries, at most 3 are allowed");
  s = read([](W b) { b.initPlane(2); });
  EXPECT_EQ(s.code(), Code::kCorrupt);
  EXPECT_EQ(s.message(), "DummyOptions.plane has 2 values, 3 are expected");
}

// The flag of row f given `text`, and what the row's check says of it.
template <class O>
void expect_flag_refused(std::span<const Field<O>> table, const Field<O>& f, const O& defaults,
                         std::string_view what, const std::string& text) {
  SCOPED_TRACE(std::string(f.name) + " = '" + text.substr(0, 40) + "'");
  O o = defaults;
  ASSERT_TRUE(set_field_text(o, f, text).ok());
  const Status want = check_field(o, f, what);
  ASSERT_FALSE(want.ok());
  const std::string flag = tools::field_flag(f.name, false);
  EXPECT_EQ(cli_refusal<O>(table, defaults, what, {flag, text}), flag + ": " + want.message());
}

TEST(FieldEdgesTest, TheReaderAndSamplerFlagsRefuseEachBoundAtBothEnds) {
  size_t refused = 0;
  for (const loader::ReaderField& f : loader::reader_fields())
    for (const std::string& text : textfeed::testing::edge_texts(f)) {
      expect_flag_refused(loader::reader_fields(), f, loader::ReaderOptions{}, "reader option",
                          text);
      ++refused;
    }
  for (const loader::SamplerField& f : loader::sampler_fields())
    for (const std::string& text : textfeed::testing::edge_texts(f)) {
      expect_flag_refused(loader::sampler_fields(), f, loader::SamplerOptions{}, "sampler option",
                          text);
      ++refused;
    }
  EXPECT_GE(refused, 16u);  // two ends of the 6 reader and the 5 sampler bounds, but seed's
  const std::string format = cli_refusal<loader::ReaderOptions>(
      loader::reader_fields(), loader::ReaderOptions{}, "reader option", {"--format", "pdf"});
  EXPECT_EQ(format,
            "--format: option format = 'pdf': expected "
            "auto|icdar15|ufo|totaltext|ctw1500|paddle|mmocr");
}

TEST(FieldEdgesTest, FlagsAreTheRowsNamesAndGiveTheirTextsBack) {
  tools::FieldTexts texts;
  ASSERT_EQ(cli_refusal<loader::SamplerOptions>(
                loader::sampler_fields(), loader::SamplerOptions{}, "sampler option",
                {"--no-shuffle", "--batch-size", "4", "--seed", "18446744073709551615"}, &texts),
            "");
  loader::SamplerOptions o;
  ASSERT_TRUE(
      tools::apply_field_texts<loader::SamplerOptions>(o, loader::sampler_fields(), texts).ok());
  EXPECT_FALSE(o.shuffle);
  EXPECT_EQ(o.batch_size, 4);
  EXPECT_EQ(o.seed, UINT64_MAX);
  EXPECT_EQ(
      tools::field_flag_args<loader::SamplerOptions>(loader::sampler_fields(),
                                                     loader::SamplerOptions{}, texts),
      (std::vector<std::string>{"--seed=18446744073709551615", "--batch-size=4", "--no-shuffle"}));
  // A value that starts with '-' stays the flag's value: one word.
  tools::FieldTexts dashed = {{"images_dir", "-x"}};
  EXPECT_EQ(tools::field_flag_args<loader::ReaderOptions>(loader::reader_fields(),
                                                          loader::ReaderOptions{}, dashed),
            (std::vector<std::string>{"--images-dir=-x"}));
  EXPECT_EQ(cli_refusal<loader::SamplerOptions>(loader::sampler_fields(), loader::SamplerOptions{},
                                                "sampler option", {"--seed", "-1"}),
            "--seed: option seed = '-1': expected an integer in 0..18446744073709551615");
  tools::FieldTexts unknown = {{"colour", "red"}};
  EXPECT_FALSE(
      tools::apply_field_texts<loader::SamplerOptions>(o, loader::sampler_fields(), unknown).ok());
}

// A value out of its bound, in a spec that travels to a daemon: what the receiver's validate()
// says of the spec it decoded.
std::string refused_after_the_wire(const loader::PipelineSpec& spec) {
  OpenStream open;
  open.spec = spec;
  Result<std::vector<uint8_t>> bytes = encode(open);
  EXPECT_TRUE(bytes.has_value());
  Result<Message> back = decode(*bytes);
  EXPECT_TRUE(back.has_value());
  const Status s = loader::validate(std::get<OpenStream>(*back).spec);
  EXPECT_FALSE(s.ok());
  return s.message();
}

TEST(FieldEdgesTest, TheRecipeAndTheReaderRefuseOneValueWithOneMessageAtEveryEdge) {
  // The recipe: --set and Python's keyword (set_option), validate(), the wire.
  const std::string crop = "augment option min_crop_side = 0: must be in (0, 1]";
  loader::PipelineSpec db = loader::default_spec(augment::Profile::kDb, "d");
  ASSERT_TRUE(augment::set_option(db.augment, "min_crop_side", "0").ok());
  EXPECT_EQ(loader::validate(db).message(), crop);
  augment::AugmentOptions named = augment::profile_defaults(augment::Profile::kDb);
  ASSERT_TRUE(set_named_field(named, augment::recipe_fields(), "min_crop_side", "0").ok());
  EXPECT_EQ(augment::validate(named).message(), crop);
  EXPECT_EQ(refused_after_the_wire(db), crop);

  // The reader: its flag, validate(), the wire.
  const std::string area = "reader option drop_under_area = -1: must be in [0, 1e+12]";
  EXPECT_EQ(cli_refusal<loader::ReaderOptions>(loader::reader_fields(), loader::ReaderOptions{},
                                               "reader option", {"--drop-under-area", "-1"}),
            "--drop-under-area: " + area);
  loader::PipelineSpec spec = loader::default_spec(augment::Profile::kUpstage, "d");
  spec.sources[0].reader.drop_under_area = -1;
  EXPECT_EQ(loader::validate(spec).message(), area);
  EXPECT_EQ(refused_after_the_wire(spec), area);

  // The sampler: the same.
  spec = loader::default_spec(augment::Profile::kUpstage, "d");
  spec.sampler.batch_size = loader::kMaxBatchSize + 1;
  const std::string batch = "sampler option batch_size = 4097: must be in [1, 4096]";
  EXPECT_EQ(refused_after_the_wire(spec), batch);
  EXPECT_EQ(cli_refusal<loader::SamplerOptions>(loader::sampler_fields(), loader::SamplerOptions{},
                                                "sampler option", {"--batch-size", "4097"}),
            "--batch-size: " + batch);
}

}  // namespace
}  // namespace textfeed::transport
