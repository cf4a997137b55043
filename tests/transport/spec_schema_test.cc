// protocol.capnp's ReaderOptions and Sampler against the reader's and the sampler's field tables
// (loader/spec/spec_fields.h), both ways: every row has its field, of its kind's type (an enum:
// one enumerant per name, at its value), and every field is some row's, but the sampler's resume
// (no row: loader/spec/spec_fields.cc says why). A new option is one row plus its field in the
// schema; this test says which is missing. And the bytes: the codec writes, through the tables,
// what its hand-written setters wrote before them.
#include <capnp/message.h>
#include <capnp/schema.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "loader/spec/spec_fields.h"
#include "transport/protocol.capnp.h"
#include "transport/wire.h"

namespace textfeed::transport {
namespace {

using capnp::schema::Type;

// Enumerants whose schema name is not wire_field_name() of the row's name: the one explicit
// mapping between the two (the wire carries enumerants by number, so only this test reads it).
const std::map<std::string, std::string> kEnumerantNames = {{"minrect", "minRect"},
                                                            {"mask-ignore", "maskIgnore"}};

std::string enumerant_name(std::string_view row_name, std::set<std::string>& used) {
  auto it = kEnumerantNames.find(std::string(row_name));
  if (it == kEnumerantNames.end()) return wire_field_name(row_name);
  used.insert(it->first);
  return it->second;
}

// The schema types a row of `kind` may travel as.
std::vector<Type::Which> wire_types(FieldKind kind) {
  switch (kind) {
    case FieldKind::kInt:
      return {Type::INT32, Type::UINT32};
    case FieldKind::kDouble:
      return {Type::FLOAT64};
    case FieldKind::kBool:
      return {Type::BOOL};
    case FieldKind::kEnum:
      return {Type::ENUM};
    case FieldKind::kText:
      return {Type::TEXT};
    case FieldKind::kTextList:
    case FieldKind::kTriple:
      return {Type::LIST};
    case FieldKind::kUint64:
      return {Type::UINT64};
    case FieldKind::kFactor:
    case FieldKind::kShift:
      return {};  // no reader or sampler row is a range
  }
  return {};
}

template <class O>
void expect_schema_matches(const capnp::StructSchema& schema, std::span<const Field<O>> table,
                           std::set<std::string> covered, std::set<std::string>& enumerants) {
  for (const Field<O>& f : table) {
    const std::string name = wire_field_name(f.name);
    SCOPED_TRACE(std::string(f.name) + " -> " + name);
    KJ_IF_MAYBE (field, schema.findFieldByName(name)) {
      const capnp::Type t = field->getType();
      const std::vector<Type::Which> types = wire_types(f.kind);
      ASSERT_NE(std::find(types.begin(), types.end(), t.which()), types.end());
      if (f.kind == FieldKind::kTextList) {
        EXPECT_EQ(t.asList().getElementType().which(), Type::TEXT);
      }
      if (f.kind == FieldKind::kEnum) {
        const auto values = t.asEnum().getEnumerants();
        EXPECT_EQ(values.size(), f.names.size());
        for (const EnumName& e : f.names) {
          ASSERT_LT(static_cast<unsigned>(e.value), values.size()) << e.name;
          EXPECT_EQ(std::string(values[e.value].getProto().getName().cStr()),
                    enumerant_name(e.name, enumerants));
        }
      }
      covered.insert(name);
    } else {
      ADD_FAILURE() << "protocol.capnp's " << schema.getShortDisplayName().cStr()
                    << " has no field " << name << " for row " << f.name;
    }
  }
  for (const capnp::StructSchema::Field field : schema.getFields()) {
    const std::string name = field.getProto().getName().cStr();
    EXPECT_TRUE(covered.count(name))
        << schema.getShortDisplayName().cStr() << "." << name << " is no row of the table";
  }
}

TEST(SpecSchemaTest, EveryRowHasItsFieldAndEveryFieldItsRow) {
  std::set<std::string> enumerants;
  expect_schema_matches<loader::ReaderOptions>(capnp::Schema::from<wire::ReaderOptions>(),
                                               loader::reader_fields(), {}, enumerants);
  expect_schema_matches<loader::SamplerOptions>(capnp::Schema::from<wire::Sampler>(),
                                                loader::sampler_fields(),
                                                {"resumeEpoch", "resumeStages"}, enumerants);
  for (const auto& [row_name, schema_name] : kEnumerantNames)
    EXPECT_TRUE(enumerants.count(row_name)) << row_name << " maps no enumerant any more";
}

TEST(SpecSchemaTest, TheEnumerantMappingIsNeededOnlyWhereNamesDiffer) {
  for (const auto& [row_name, schema_name] : kEnumerantNames)
    EXPECT_NE(wire_field_name(row_name), schema_name) << row_name;
}

loader::PipelineSpec changed_spec() {
  loader::PipelineSpec spec = loader::default_spec(augment::Profile::kBc7, "x");
  loader::ReaderOptions& r = spec.sources[0].reader;
  r.ignore_text = loader::IgnoreText::kExact;
  r.ignore_tags = {"zeta", std::string("a\0b", 3), ""};
  r.poly_policy = loader::PolyPolicy::kMaskIgnore;
  r.drop_under_area = 0.1234567;
  r.ignore_under_area = 7;
  r.images_dir = "img/train";
  r.gt_dir = "labels";
  r.split = "val";
  r.format = loader::ReaderFormat::kMmocr;
  spec.sampler = {0xfedcba9876543210ull, 4096, 3, 1 << 20, false, true, 12345};
  spec.sampler.resume = {3, {{2, 4, {1, 2}}}};
  return spec;
}

// The ReaderOptions and Sampler the codec wrote before the tables, setter by setter.
void put_by_hand(wire::ReaderOptions::Builder b, const loader::ReaderOptions& o) {
  b.setIgnoreText(static_cast<wire::IgnoreText>(o.ignore_text));
  auto tags = b.initIgnoreTags(static_cast<unsigned>(o.ignore_tags.size()));
  for (size_t i = 0; i < o.ignore_tags.size(); ++i)
    tags.set(static_cast<unsigned>(i),
             capnp::Text::Reader(o.ignore_tags[i].data(), o.ignore_tags[i].size()));
  b.setPolyPolicy(static_cast<wire::PolyPolicy>(o.poly_policy));
  b.setDropUnderArea(o.drop_under_area);
  b.setIgnoreUnderArea(o.ignore_under_area);
  b.setImagesDir(o.images_dir);
  b.setGtDir(o.gt_dir);
  b.setIllegibility(static_cast<wire::Illegibility>(o.illegibility));
  b.setSplit(o.split);
  b.setFormat(static_cast<wire::ReaderFormat>(o.format));
}
void put_by_hand(wire::Sampler::Builder b, const loader::SamplerOptions& o) {
  b.setSeed(o.seed);
  b.setBatchSize(static_cast<uint32_t>(o.batch_size));
  b.setRank(static_cast<uint32_t>(o.rank));
  b.setWorldSize(static_cast<uint32_t>(o.world_size));
  b.setShuffle(o.shuffle);
  b.setDropLast(o.drop_last);
  b.setEpochSize(o.epoch_size);
}

template <class T, class Reader>
kj::Array<capnp::word> canonical_by_hand(const Reader& encoded, const auto& options) {
  capnp::MallocMessageBuilder builder;
  auto root = builder.initRoot<T>();
  put_by_hand(root, options);
  if constexpr (std::is_same_v<T, wire::Sampler>) {
    root.setResumeEpoch(encoded.getResumeEpoch());
    root.setResumeStages(encoded.getResumeStages());
  }
  return capnp::canonicalize(root.asReader());
}

bool same_words(const kj::Array<capnp::word>& a, const kj::Array<capnp::word>& b) {
  return a.asBytes() == b.asBytes();
}

TEST(SpecSchemaTest, TheTablesWriteTheBytesTheHandWrittenCodecWrote) {
  for (const loader::PipelineSpec& spec :
       {loader::default_spec(augment::Profile::kUpstage, "d"), changed_spec()}) {
    OpenStream open;
    open.spec = spec;
    Result<std::vector<uint8_t>> bytes = encode(open);
    ASSERT_TRUE(bytes.has_value()) << bytes.error().to_string();
    kj::Array<capnp::word> words = kj::heapArray<capnp::word>(bytes->size() / sizeof(capnp::word));
    std::memcpy(words.begin(), bytes->data(), bytes->size());
    capnp::FlatArrayMessageReader reader(words);
    const auto sent = reader.getRoot<wire::Envelope>().getOpenStream().getSpec();
    const auto reader_options = sent.getSources()[0].getReader();
    EXPECT_TRUE(
        same_words(capnp::canonicalize(reader_options),
                   canonical_by_hand<wire::ReaderOptions>(reader_options, spec.sources[0].reader)));
    EXPECT_TRUE(same_words(capnp::canonicalize(sent.getSampler()),
                           canonical_by_hand<wire::Sampler>(sent.getSampler(), spec.sampler)));
    Result<Message> back = decode(*bytes);
    ASSERT_TRUE(back.has_value()) << back.error().to_string();
    EXPECT_EQ(std::get<OpenStream>(*back).spec.sources, spec.sources);
    EXPECT_EQ(std::get<OpenStream>(*back).spec.sampler, spec.sampler);
  }
}

}  // namespace
}  // namespace textfeed::transport
