// The spec's flags and their one translation into a PipelineSpec.
#include "tools/spec_flags.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "augment/profile.h"
#include "tools/commands.h"

namespace textfeed::tools {

namespace {

// The reader's flags (kReaderFlags).
void add_reader_flags(CLI::App* cmd, SpecFlags& f) {
  cmd->add_option("--ignore-text", f.ignore_text,
                  "ICDAR-2015 '###' rule. substring: a word is ignored when '###' occurs anywhere "
                  "in its line "
                  "(the reference); exact: when its transcription is exactly ### or *")
      ->check(CLI::IsMember({"substring", "exact"}))
      ->capture_default_str();
  cmd->add_option(
      "--ignore-tags", f.ignore_tags,
      "UFO: comma-separated word tags whose words are skipped (background); '' for none. Default: "
      "the profile's (upstage, sakura: masked,excluded-region,maintable,stamp; bc7: none)");
  cmd->add_option(
         "--poly-policy", f.poly_policy,
         "EAST quads of words with other than 4 points (UFO: more than 4). skip: background, as "
         "the "
         "reference (UFO: listed as bad records); minrect: their minimum-area rectangle; "
         "mask-ignore: that "
         "rectangle, marked ignored. Every point is kept for eval polygons whatever the policy")
      ->check(CLI::IsMember({"skip", "minrect", "mask-ignore"}))
      ->capture_default_str();
  cmd->add_option("--ignore-under-area", f.ignore_under_area,
                  "UFO: mark words whose convex-hull area (px^2) is below this ignored; 0 = off, "
                  "as the reference")
      ->check(finite_in(0.0, 1e12))
      ->capture_default_str();
  cmd->add_option(
         "--images-dir", f.images_dir,
         "the images folder below the dataset's root (ICDAR-2015; UFO: after img/<split>/)")
      ->capture_default_str();
  cmd->add_option(
         "--illegibility", f.illegibility,
         "UFO 'illegibility': true. ignore: the word is ignored (label 0, the Upstage baseline); "
         "valid: the flag is not read, every word is valid (the 7th-generation baseline). Default: "
         "the "
         "profile's (bc7: valid; upstage, sakura: ignore)")
      ->check(CLI::IsMember({"ignore", "valid"}));
  cmd->add_option("--split", f.split,
                  "UFO: the annotation file a dataset folder reads: ufo/<split>.json, or every "
                  "<x>_receipt/ufo/<split>.json merged (e.g. train, val, test)")
      ->capture_default_str();
  cmd->add_option(
         "--format", f.format,
         "the dataset's annotation format: auto (detected, docs/dataset_layouts.md) | icdar15 | "
         "ufo | "
         "totaltext | ctw1500 | paddle (PaddleOCR label file) | mmocr (mmocr OCRDataset json)")
      ->check(CLI::IsMember({"auto", "icdar15", "ufo", "totaltext", "ctw1500", "paddle", "mmocr"}))
      ->capture_default_str();
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
  if (groups & kSamplerFlags) {
    cmd->add_option("--seed", f.seed, "augmentation seed (default 0)")->check(unsigned_64());
    cmd->add_option("--batch-size", f.batch_size, "samples per batch (default 8)")
        ->check(CLI::Range(1, loader::kMaxBatchSize));
    cmd->add_option("--rank", f.rank, "this client's rank (default 0)");
    cmd->add_option("--world-size", f.world_size, "number of ranks (default 1)");
    cmd->add_flag("--no-shuffle", f.no_shuffle, "dataset order instead of a per-epoch permutation");
    cmd->add_flag("--drop-last", f.drop_last, "drop the last, short batch and the uneven tail");
    cmd->add_option(
           "--on-bad-sample", f.on_bad_sample,
           "skip (train: replace and report) | fail | report (eval: a blank row reported missing); "
           "default skip in train, fail in eval")
        ->check(CLI::IsMember({"skip", "fail", "report"}));
    cmd->add_option("--mode", f.mode,
                    "train (augmented crops and targets) | eval (the profile's inference resize "
                    "and pad, dataset "
                    "order, every sample once over the ranks, image only)")
        ->check(CLI::IsMember({"train", "eval"}));
    cmd->add_flag("--return-polygons", f.return_polygons,
                  "train: batches also carry the augmented polygons");
  }
}

namespace {

template <class T>
T or_fail(const std::string& command, Result<T> r) {
  if (!r.has_value()) fail(command, r.error().message(), 2);
  return std::move(*r);
}

std::vector<std::string> split_tags(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= text.size() && !text.empty()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

}  // namespace

loader::ReaderOptions reader_options(const std::string& command, const SpecFlags& f) {
  // A command without --profile reads with upstage's defaults (f.profile's default).
  loader::ReaderOptions o =
      loader::reader_defaults(or_fail(command, augment::parse_profile(f.profile)));
  o.ignore_text = or_fail(command, loader::parse_ignore_text(f.ignore_text));
  if (f.ignore_tags) o.ignore_tags = split_tags(*f.ignore_tags);
  o.poly_policy = or_fail(command, loader::parse_poly_policy(f.poly_policy));
  o.ignore_under_area = f.ignore_under_area;
  o.images_dir = f.images_dir;
  if (f.illegibility)
    o.illegibility = or_fail(command, loader::parse_illegibility(*f.illegibility));
  o.split = f.split;
  o.format = or_fail(command, loader::parse_reader_format(f.format));
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
  spec.sampler = {f.seed, f.batch_size, f.rank, f.world_size, !f.no_shuffle, f.drop_last};
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
