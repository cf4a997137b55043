// The spec's flags and their one translation into a PipelineSpec.
#include "tools/spec_flags.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "augment/profile.h"
#include "loader/spec/spec_fields.h"
#include "tools/commands.h"

namespace textfeed::tools {

namespace {

// The names of an enum (loader/spec/spec_fields.h), for a flag's check.
std::vector<std::string> names_of(std::span<const EnumName> names) {
  std::vector<std::string> out;
  for (const EnumName& n : names) out.emplace_back(n.name);
  return out;
}

// Each profile's reader options, by its name.
ProfileDefaults<loader::ReaderOptions> profile_readers() {
  ProfileDefaults<loader::ReaderOptions> defaults;
  for (const augment::ProfileEntry& e : augment::profile_entries())
    defaults.emplace_back(std::string(e.name), loader::reader_defaults(e.profile));
  return defaults;
}

// A flag per row of loader::reader_fields() (kReaderFlags).
void add_reader_flags(CLI::App* cmd, SpecFlags& f) {
  const CLI::Validator finite =
      finite_in(std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
  add_field_flags<loader::ReaderOptions>(
      cmd, loader::reader_fields(), profile_readers(), "reader option",
      [&f](std::string_view row, const std::string& text) {
        f.reader_text[std::string(row)] = text;
      },
      finite);
}

// The sampler's rows a command line can use: all but epoch_size, which only weighted sources take
// (PATH@WEIGHT, in process or a daemon's mixture, whose sampler the daemon makes); the commands
// that take a sampler (bench, pull, show) read one unweighted source.
std::span<const loader::SamplerField> command_line_sampler_fields() {
  static const std::vector<loader::SamplerField> rows = [] {
    std::vector<loader::SamplerField> out;
    for (const loader::SamplerField& f : loader::sampler_fields())
      if (f.name != "epoch_size") out.push_back(f);
    return out;
  }();
  return rows;
}

// A flag per row of loader::sampler_fields(), and the bad-sample policy, the mode and the polygons
// (kSamplerFlags).
void add_sampler_flags(CLI::App* cmd, SpecFlags& f) {
  add_field_flags<loader::SamplerOptions>(cmd, command_line_sampler_fields(),
                                          {{"", loader::SamplerOptions{}}}, "sampler option",
                                          [&f](std::string_view row, const std::string& text) {
                                            f.sampler_text[std::string(row)] = text;
                                          });
  cmd->add_option("--on-bad-sample", f.on_bad_sample,
                  "skip (train: replace and report) | fail | report (eval: a blank row reported "
                  "missing); default skip in train, fail in eval")
      ->check(CLI::IsMember(names_of(loader::kOnBadSampleNames)));
  cmd->add_option("--mode", f.mode,
                  "train (augmented crops and targets) | eval (the profile's inference resize "
                  "and pad, dataset "
                  "order, every sample once over the ranks, image only)")
      ->check(CLI::IsMember(names_of(loader::kModeNames)));
  cmd->add_flag("--return-polygons", f.return_polygons,
                "train: batches also carry the augmented polygons");
}

// Every row of the recipe's table with the text it takes: "image_size=int, ...".
std::string set_names_help() {
  std::string help;
  for (const augment::RecipeField& f : augment::recipe_fields())
    help += (help.empty() ? "" : ", ") + std::string(f.name) + "=" + field_syntax(f.kind, f.names);
  return help;
}

}  // namespace

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  for (const augment::ProfileEntry& e : augment::profile_entries()) names.emplace_back(e.name);
  return names;
}
std::string profile_help() {
  std::string help;
  for (const augment::ProfileEntry& e : augment::profile_entries())
    help += (help.empty() ? "" : " | ") + std::string(e.name) + " (" + std::string(e.doc) + ")";
  return help;
}

void add_spec_flags(CLI::App* cmd, SpecFlags& f, unsigned groups) {
  if (groups & kReaderFlags) add_reader_flags(cmd, f);
  if (groups & kRecipeFlags) {
    cmd->add_option("--profile", f.profile, profile_help())->check(CLI::IsMember(profile_names()));
    cmd->add_option(
        "--set", f.sets,
        "recipe option NAME=VALUE changed from the profile (e.g. crop_size=768, "
        "brightness=0.8,1.0), repeatable, applied in order after --profile and --dtype; "
        "NAME=what VALUE takes: " +
            set_names_help());
    cmd->add_option("--dtype", f.dtype,
                    "image dtype: float32 | uint8 (a --set dtype=... comes after it and wins)")
        ->check(CLI::IsMember({"float32", "uint8"}));
  }
  if (groups & kSamplerFlags) add_sampler_flags(cmd, f);
}

namespace {

template <class T>
T or_fail(const std::string& command, Result<T> r) {
  if (!r.has_value()) fail(command, r.error().message(), 2);
  return std::move(*r);
}

}  // namespace

loader::ReaderOptions reader_options(const std::string& command, const SpecFlags& f) {
  // A command without --profile reads with upstage's defaults (f.profile's default).
  loader::ReaderOptions o =
      loader::reader_defaults(or_fail(command, augment::parse_profile(f.profile)));
  if (Status s = apply_field_texts(o, loader::reader_fields(), f.reader_text); !s.ok())
    fail(command, s.message(), 2);
  if (Status s = loader::validate(o); !s.ok()) fail(command, s.message(), 2);
  return o;
}

loader::PipelineSpec build_spec(const std::string& command, const SpecFlags& f,
                                const std::string& source) {
  loader::PipelineSpec spec =
      loader::default_spec(or_fail(command, augment::parse_profile(f.profile)), source);
  spec.sources[0].reader = reader_options(command, f);
  spec.augment.dtype = or_fail(command, parse_dtype(f.dtype));
  for (const std::string& s : f.sets) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      fail(command, "--set takes NAME=VALUE, got '" + s + "'", 2);
    if (Status st = augment::set_option(spec.augment, s.substr(0, eq), s.substr(eq + 1)); !st.ok())
      fail(command, "--set " + s + ": " + st.message(), 2);
  }
  if (Status s = apply_field_texts(spec.sampler, loader::sampler_fields(), f.sampler_text); !s.ok())
    fail(command, s.message(), 2);
  spec.mode = or_fail(command, loader::parse_mode(f.mode));
  spec.on_bad_sample = f.on_bad_sample.empty()
                           ? loader::default_on_bad_sample(spec.mode)
                           : or_fail(command, loader::parse_on_bad_sample(f.on_bad_sample));
  spec.return_polygons = f.return_polygons;
  if (Status s = loader::validate(spec); !s.ok()) fail(command, s.message(), 2);
  return spec;
}

namespace {
// `item`'s weight after its last '@' when what follows parses whole as a number (cut off `item`).
std::optional<double> weight_suffix(std::string& item) {
  const size_t at = item.rfind('@');
  if (at == std::string::npos || at + 1 == item.size()) return std::nullopt;
  const std::string number = item.substr(at + 1);
  char* end = nullptr;
  const double w = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() ||
      number.find_first_not_of("0123456789.eE+-") != std::string::npos)
    return std::nullopt;
  item.resize(at);
  return w;
}
}  // namespace

Result<std::vector<loader::SourceSpec>> parse_source_list(const std::string& text,
                                                          const loader::ReaderOptions& reader) {
  std::vector<loader::SourceSpec> sources;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    std::string item = text.substr(begin, comma - begin);
    begin = comma + 1;
    const std::optional<double> weight = weight_suffix(item);
    if (item.empty()) return Status::invalid_argument("'" + text + "' has an empty path");
    if (weight && !(*weight > 0 && *weight <= loader::kMaxWeight))
      return Status::invalid_argument("source '" + item + "': weight " + std::to_string(*weight) +
                                      " must be a number in (0, 1e9]");
    if (sources.size() == loader::kMaxSources)
      return Status::invalid_argument("more than " + std::to_string(loader::kMaxSources) +
                                      " sources");
    sources.push_back({item, reader, weight.value_or(0)});
  }
  TF_RETURN_IF_ERROR(loader::validate_weights(sources));
  return sources;
}

}  // namespace textfeed::tools
