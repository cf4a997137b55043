// The flags of the pipeline spec (loader/spec.h), declared once and added to every command that
// builds or reads a pipeline: the reader options (inspect, cache build, serve, bench, show, pull),
// the recipe (--profile, --set NAME=VALUE, --dtype) and the sampler. build_spec() is where their
// text becomes the typed spec, checked by the same validate() as the Python keywords and the wire.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loader/spec.h"

namespace textfeed::tools {

struct SpecFlags {
  // Reader.
  std::string ignore_text = "substring";
  // Unset: the profile's (loader::reader_defaults). Comma-separated; "" = none.
  std::optional<std::string> ignore_tags;
  std::string poly_policy = "skip";
  double ignore_under_area = 0;
  std::string images_dir = "images";
  std::optional<std::string> illegibility;  // unset: the profile's
  std::string split = "train";
  std::string format = "auto";
  // Recipe.
  std::string profile = "upstage";
  std::vector<std::string> sets;  // NAME=VALUE
  std::string dtype = "float32";
  // Sampler and bad samples.
  uint64_t seed = 0;
  int batch_size = 8, rank = 0, world_size = 1;
  bool no_shuffle = false, drop_last = false;
  std::string on_bad_sample;  // empty: the mode's default (loader::default_on_bad_sample)
  std::string mode = "train";
  bool return_polygons = false;
};

enum SpecFlagGroup : unsigned {
  kReaderFlags = 1,  // --ignore-text --ignore-tags --poly-policy --ignore-under-area --images-dir
                     // --illegibility --split --format
  kRecipeFlags = 2,  // --profile --set --dtype
  kSamplerFlags =
      4,  // --seed --batch-size --rank --world-size --no-shuffle --drop-last --on-bad-sample
          // --mode --return-polygons
};

// Adds the flags of `groups` (SpecFlagGroup bits) to `cmd`, stored in `flags`.
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
