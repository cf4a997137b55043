// The field tables of the reader's and the sampler's options (base/field_table.h), and the names
// of the spec's enums. From the rows come validate()'s per-field bounds (loader/spec/spec.h), the
// CLI's reader and sampler flags and their --help (tools/spec_flags.cc), the wire codec's
// ReaderOptions and Sampler (transport/wire_codec.cc, through Cap'n Proto's reflection), the
// daemon's comparison of reader options (transport/daemon/server.cc), Python's
// _core.reader_fields() and _core.sampler_fields() and the docs. Adding an option is one row, its
// member in spec.h and its field in protocol.capnp (tests/transport/spec_schema_test.cc).
//
// The tables are constant data: any thread may read them.
#pragma once

#include <span>

#include "base/field_table.h"
#include "loader/spec/spec.h"

namespace textfeed::loader {

// The names the text edges (CLI flags, Python's `text`, the wire's enumerants in camelCase) give
// each enumerator: the one list of each enum's names.
inline constexpr EnumName kIgnoreTextNames[] = {
    {"substring", static_cast<int>(IgnoreText::kSubstring)},
    {"exact", static_cast<int>(IgnoreText::kExact)}};
inline constexpr EnumName kPolyPolicyNames[] = {
    {"skip", static_cast<int>(PolyPolicy::kSkip)},
    {"minrect", static_cast<int>(PolyPolicy::kMinRect)},
    {"mask-ignore", static_cast<int>(PolyPolicy::kMaskIgnore)}};
inline constexpr EnumName kIllegibilityNames[] = {
    {"ignore", static_cast<int>(Illegibility::kIgnore)},
    {"valid", static_cast<int>(Illegibility::kValid)}};
inline constexpr EnumName kReaderFormatNames[] = {
    {"auto", static_cast<int>(ReaderFormat::kAuto)},
    {"icdar15", static_cast<int>(ReaderFormat::kIcdar15)},
    {"ufo", static_cast<int>(ReaderFormat::kUfo)},
    {"totaltext", static_cast<int>(ReaderFormat::kTotalText)},
    {"ctw1500", static_cast<int>(ReaderFormat::kCtw1500)},
    {"paddle", static_cast<int>(ReaderFormat::kPaddle)},
    {"mmocr", static_cast<int>(ReaderFormat::kMmocr)}};
inline constexpr EnumName kOnBadSampleNames[] = {
    {"skip", static_cast<int>(OnBadSample::kSkip)},
    {"fail", static_cast<int>(OnBadSample::kFail)},
    {"report", static_cast<int>(OnBadSample::kReport)}};
inline constexpr EnumName kModeNames[] = {{"train", static_cast<int>(Mode::kTrain)},
                                          {"eval", static_cast<int>(Mode::kEval)}};

using ReaderField = Field<ReaderOptions>;
using SamplerField = Field<SamplerOptions>;

// Every option of ReaderOptions, in declaration order. Checked as "reader option NAME".
std::span<const ReaderField> reader_fields();
// The options of SamplerOptions a user sets by name, in declaration order. Checked as "sampler
// option NAME"; rank < world_size is validate()'s, after the rows.
std::span<const SamplerField> sampler_fields();

}  // namespace textfeed::loader
