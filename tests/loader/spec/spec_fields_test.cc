// The reader's and the sampler's field tables (loader/spec/spec_fields.h): every row's text reads
// back as its value, each bound is refused at both ends by validate() with the row's message, the
// enum names are the ones the text edges parse, and describe() of the reader options is the text
// caches have recorded since before the table.
#include "loader/spec/spec_fields.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/loader/spec/edge_texts.h"

namespace textfeed::loader {
namespace {

using testing::edge_texts;

PipelineSpec valid() { return default_spec(augment::Profile::kUpstage, "data/train"); }

template <class O>
void expect_round_trips(std::span<const Field<O>> table, const O& base, const O& changed) {
  for (const Field<O>& f : table) {
    SCOPED_TRACE(std::string(f.name));
    for (const O* from : {&base, &changed}) {
      O to = *from == base ? changed : base;
      ASSERT_TRUE(set_field_text(to, f, field_text(*from, f)).ok());
      EXPECT_EQ(field_text(to, f), field_text(*from, f));
      EXPECT_TRUE(same_field(to, *from, f));
    }
    EXPECT_FALSE(same_field(base, changed, f)) << "the test changes every row";
  }
}

TEST(SpecFieldsTest, EveryReaderRowsTextReadsBackAsItsValue) {
  ReaderOptions changed;
  changed.ignore_text = IgnoreText::kExact;
  changed.ignore_tags = {"a", "b c"};
  changed.poly_policy = PolyPolicy::kMaskIgnore;
  changed.drop_under_area = 0.1;
  changed.ignore_under_area = 1e12;
  changed.images_dir = "img/train";
  changed.gt_dir = "labels";
  changed.illegibility = Illegibility::kValid;
  changed.split = "val";
  changed.format = ReaderFormat::kMmocr;
  expect_round_trips<ReaderOptions>(reader_fields(), ReaderOptions{}, changed);
  for (const ReaderField& f : reader_fields())
    for (const augment::ProfileEntry& p : augment::profile_entries()) {
      ReaderOptions o;
      ASSERT_TRUE(set_field_text(o, f, field_text(reader_defaults(p.profile), f)).ok());
      EXPECT_TRUE(same_field(o, reader_defaults(p.profile), f)) << f.name << " of " << p.name;
    }
}

TEST(SpecFieldsTest, EverySamplerRowsTextReadsBackAsItsValue) {
  SamplerOptions changed;
  changed.seed = UINT64_MAX;
  changed.batch_size = kMaxBatchSize;
  changed.rank = 5;
  changed.world_size = kMaxWorldSize;
  changed.shuffle = false;
  changed.drop_last = true;
  changed.epoch_size = kMaxEpochSize;
  expect_round_trips<SamplerOptions>(sampler_fields(), SamplerOptions{}, changed);
}

TEST(SpecFieldsTest, RowsAreNamedOnceDocumentedOnOneLineAndLeaveTheResumeOut) {
  std::set<std::string> names;
  for (const ReaderField& f : reader_fields()) {
    EXPECT_TRUE(names.insert(std::string(f.name)).second) << f.name;
    EXPECT_FALSE(f.doc.empty() || f.doc.find('\n') != std::string_view::npos) << f.name;
  }
  for (const SamplerField& f : sampler_fields()) {
    EXPECT_TRUE(names.insert(std::string(f.name)).second) << f.name;
    EXPECT_FALSE(f.doc.empty() || f.doc.find('\n') != std::string_view::npos) << f.name;
  }
  EXPECT_EQ(names.count("resume"), 0u);
  EXPECT_EQ(names.count("pad"), 0u);
}

// Each row's value just past each end of its bound, set as a text edge would set it: validate()
// refuses it, naming the option as the row's check does.
template <class O>
void expect_bounds_refused(std::span<const Field<O>> table, std::string_view what,
                           O& (*slot)(PipelineSpec&)) {
  for (const Field<O>& f : table) {
    // Every bounded row has an end a text can pass, but a uint64 that takes every value (seed).
    const bool every_value =
        f.kind == FieldKind::kUint64 && f.bound.lo <= 0 && f.bound.hi >= 0x1p64;
    EXPECT_EQ(edge_texts(f).empty(), !field_kind_bounded(f.kind) || every_value) << f.name;
    for (const std::string& text : edge_texts(f)) {
      SCOPED_TRACE(std::string(f.name) + " = '" + text.substr(0, 40) + "'");
      PipelineSpec spec = valid();
      spec.sources[0].weight = 1;  // epoch_size needs weights
      ASSERT_TRUE(set_field_text(slot(spec), f, text).ok());
      const Status want = check_field(slot(spec), f, what);
      ASSERT_FALSE(want.ok());
      const Status got = validate(spec);
      EXPECT_EQ(got.code(), Code::kInvalidArgument);
      EXPECT_EQ(got.message(), want.message());
    }
  }
}

ReaderOptions& reader_of(PipelineSpec& s) { return s.sources[0].reader; }
SamplerOptions& sampler_of(PipelineSpec& s) { return s.sampler; }

TEST(SpecFieldsTest, ValidateRefusesEachBoundAtBothEnds) {
  expect_bounds_refused<ReaderOptions>(reader_fields(), "reader option", &reader_of);
  expect_bounds_refused<SamplerOptions>(sampler_fields(), "sampler option", &sampler_of);
  PipelineSpec big = valid();
  big.sampler.batch_size = kMaxBatchSize + 1;
  EXPECT_EQ(validate(big).message(), "sampler option batch_size = 4097: must be in [1, 4096]");
  PipelineSpec area = valid();
  area.sources[0].reader.drop_under_area = -1;
  EXPECT_EQ(validate(area).message(), "reader option drop_under_area = -1: must be in [0, 1e+12]");
  PipelineSpec split = valid();
  split.sources[0].reader.split = std::string(kMaxSplitBytes + 1, 's');
  EXPECT_EQ(validate(split).message(),
            "reader option split is 256 bytes long: must be in [1, 255] bytes");
}

TEST(SpecFieldsTest, RankBelowWorldSizeIsACrossFieldRule) {
  PipelineSpec s = valid();
  s.sampler.rank = 2;
  s.sampler.world_size = 2;
  EXPECT_EQ(validate(s).message(),
            "sampler options rank = 2, world_size = 2: need rank < world_size");
  s.sampler.rank = 1;
  EXPECT_TRUE(validate(s).ok()) << validate(s).to_string();
}

TEST(SpecFieldsTest, TheRulesOfFoldersSplitsAndTagsKeepTheirMessages) {
  PipelineSpec s = valid();
  s.sources[0].reader.images_dir = "a/../../b";
  EXPECT_EQ(validate(s).message(),
            "images_dir must stay below the dataset's root, got 'a/../../b'");
  s.sources[0].reader.images_dir = "/etc";
  EXPECT_EQ(validate(s).message(), "images_dir must be a relative folder name, got '/etc'");
  s = valid();
  s.sources[0].reader.gt_dir = "..";
  EXPECT_EQ(validate(s).message(), "gt_dir must stay below the dataset's root, got '..'");
  s = valid();
  s.sources[0].reader.split = "a/b";
  EXPECT_EQ(validate(s).message(),
            "split must be a file name stem (1..255 bytes, no '/', not '.' or '..') such as "
            "'train' or 'val', got 'a/b'");
  s = valid();
  s.sources[0].reader.ignore_tags = {std::string(kMaxTextBytes + 1, 't')};
  EXPECT_EQ(validate(s).message(), "ignore_tags has a name of 4097 bytes; at most 4096");
  s.sources[0].reader.ignore_tags = {std::string("a\0b", 3)};
  EXPECT_EQ(validate(s).message(), "reader option ignore_tags has a name with a NUL byte");
  s = valid();
  s.sources[0].reader.images_dir = "img/..x/y";  // "..x" is a name, not the parent
  EXPECT_TRUE(validate(s).ok()) << validate(s).to_string();
}

TEST(SpecFieldsTest, TheEnumNamesAreTheOnesTheTextEdgesParse) {
  for (const EnumName& n : kReaderFormatNames) {
    EXPECT_EQ(static_cast<int>(*parse_reader_format(n.name)), n.value);
    EXPECT_EQ(reader_format_name(static_cast<ReaderFormat>(n.value)), n.name);
  }
  EXPECT_EQ(std::size(kReaderFormatNames), static_cast<size_t>(ReaderFormat::kMmocr) + 1);
  for (const EnumName& n : kIgnoreTextNames)
    EXPECT_EQ(static_cast<int>(*parse_ignore_text(n.name)), n.value);
  for (const EnumName& n : kPolyPolicyNames)
    EXPECT_EQ(static_cast<int>(*parse_poly_policy(n.name)), n.value);
  for (const EnumName& n : kIllegibilityNames)
    EXPECT_EQ(static_cast<int>(*parse_illegibility(n.name)), n.value);
  EXPECT_EQ(parse_reader_format("pdf").status().message(),
            "format must be one of 'auto', 'icdar15', 'ufo', 'totaltext', 'ctw1500', 'paddle', "
            "'mmocr', got 'pdf'");
  ReaderOptions o;
  EXPECT_EQ(set_field_text(o, *find_field(reader_fields(), "format"), "pdf").message(),
            "option format = 'pdf': expected auto|icdar15|ufo|totaltext|ctw1500|paddle|mmocr");
}

TEST(SpecFieldsTest, DescribeIsTheTextCachesRecorded) {
  EXPECT_EQ(describe(ReaderOptions{}),
            "ignore_text=substring ignore_tags=masked,excluded-region,maintable,stamp "
            "poly_policy=skip drop_under_area=1 ignore_under_area=0 images_dir=images gt_dir=gt "
            "illegibility=ignore split=train format=auto");
  ReaderOptions o;
  o.drop_under_area = 0.1;
  o.ignore_under_area = 1e12;
  o.ignore_tags.clear();
  EXPECT_EQ(describe(o),
            "ignore_text=substring ignore_tags= poly_policy=skip "
            "drop_under_area=0.10000000000000001 ignore_under_area=1000000000000 "
            "images_dir=images gt_dir=gt illegibility=ignore split=train format=auto");
}

}  // namespace
}  // namespace textfeed::loader
