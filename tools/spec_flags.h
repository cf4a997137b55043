// The flags of the pipeline spec (loader/spec/spec.h), declared once and added to every command
// that builds or reads a pipeline: the reader options (inspect, cache build, serve, bench, show,
// pull), the recipe (--profile, --set NAME=VALUE, --dtype) and the sampler. build_spec() is where
// their text becomes the typed spec, checked by the same validate() as the Python keywords and the
// wire.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loader/spec/spec.h"
#include "tools/field_flags.h"

namespace textfeed::tools {

struct SpecFlags {
  // The reader's and the sampler's rows (loader/spec/spec_fields.h): each flag's text as given,
  // by row name. A row not given keeps its default (the reader's: the profile's,
  // loader::reader_defaults).
  FieldTexts reader_text, sampler_text;
  // Recipe.
  std::string profile = "upstage";
  std::vector<std::string> sets;  // NAME=VALUE
  std::string dtype = "float32";
  // Bad samples and the mode.
  std::string on_bad_sample;  // empty: the mode's default (loader::default_on_bad_sample)
  std::string mode = "train";
  bool return_polygons = false;
};

enum SpecFlagGroup : unsigned {
  kReaderFlags = 1,   // a flag per row of loader::reader_fields() (--ignore-text, --images-dir ...)
  kRecipeFlags = 2,   // --profile --set --dtype
  kSamplerFlags = 4,  // a flag per row of loader::sampler_fields() (--seed, --batch-size,
                      // --no-shuffle ...), --on-bad-sample --mode --return-polygons
};

// Adds the flags of `groups` (SpecFlagGroup bits) to `cmd`, stored in `flags`. A reader or
// sampler flag is checked against its row as it is parsed (exit 2, "--flag: MESSAGE").
void add_spec_flags(CLI::App* cmd, SpecFlags& flags, unsigned groups);

// The registered profiles (augment/profile.h profile_entries()): their names, for a --profile's
// check, and "name (what it reproduces) | ..." for its help.
std::vector<std::string> profile_names();
std::string profile_help();
// The reader options the flags name. Fails `command` (exit 2) on a bad value.
loader::ReaderOptions reader_options(const std::string& command, const SpecFlags& flags);
// The spec of one source `source` (a path, or a daemon's dataset name) with every flag applied,
// validated. Fails `command` (exit 2) naming the flag and the bound.
loader::PipelineSpec build_spec(const std::string& command, const SpecFlags& flags,
                                const std::string& source);

// "PATH[@WEIGHT][,PATH[@WEIGHT]...]": the sources of one dataset, each read with `reader`. A
// weight is a number after the last '@' of an item (an '@' followed by anything else belongs to the
// path); either every item has one or none has. Errors: kInvalidArgument (an empty item, a weight
// out of (0, 1e9], weights on some items only, more than kMaxSources items).
Result<std::vector<loader::SourceSpec>> parse_source_list(const std::string& text,
                                                          const loader::ReaderOptions& reader);

}  // namespace textfeed::tools
