// textfeed inspect: what a dataset holds, and every record the readers had to leave out.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "loader/dataset.h"
#include "tools/commands.h"

namespace textfeed::tools {
namespace {

struct InspectArgs {
  std::string path;
  std::string format = "auto";
  std::string ufo;
  std::string ignore_text = "substring";
  std::string poly_policy = "skip";
  bool json = false;
};

// Word size = the shorter of the two mean opposite-edge lengths, in px.
double word_short_side(const Quad& q) {
  auto edge = [&](int i) {
    const int j = (i + 1) % 4;
    return std::hypot(q.x(j) - q.x(i), q.y(j) - q.y(i));
  };
  return std::min((edge(0) + edge(2)) / 2, (edge(1) + edge(3)) / 2);
}

constexpr double kBinEdges[] = {8, 16, 32, 64, 128};
constexpr const char* kBinNames[] = {"<8", "8-16", "16-32", "32-64", "64-128", ">=128"};

Result<loader::Dataset> read(const InspectArgs& a, const loader::ReaderOptions& o) {
  if (a.format == "icdar15") return loader::read_icdar15(a.path, o);
  if (a.format == "ufo") {
    if (a.ufo.empty()) return loader::open_dataset(a.path, o);
    return loader::read_ufo(a.path, a.ufo, o);
  }
  if (!a.ufo.empty()) return loader::read_ufo(a.path, a.ufo, o);
  return loader::open_dataset(a.path, o);
}

void run(const InspectArgs& a) {
  loader::ReaderOptions o;
  o.ignore_text = a.ignore_text == "exact" ? loader::IgnoreText::kExact : loader::IgnoreText::kSubstring;
  o.poly_policy = a.poly_policy == "minrect"       ? loader::PolyPolicy::kMinRect
                  : a.poly_policy == "mask-ignore" ? loader::PolyPolicy::kMaskIgnore
                                                   : loader::PolyPolicy::kSkip;
  auto ds = read(a, o);
  if (!ds.has_value()) fail("inspect", ds.error().to_string(), 2);

  size_t hist[6] = {};
  size_t no_words = 0;
  for (const loader::SampleRecord& s : ds->samples) {
    no_words += s.quads.empty();
    for (const Quad& q : s.quads) {
      const double side = word_short_side(q);
      int bin = 0;
      while (bin < 5 && side >= kBinEdges[bin]) ++bin;
      ++hist[bin];
    }
  }
  const size_t words = ds->num_words(), ignored = ds->num_ignored();
  const char* format = ds->format == loader::DatasetFormat::kUfo ? "ufo" : "icdar15";
  if (a.json) {
    nlohmann::ordered_json j;
    j["format"] = format;
    j["root"] = ds->root;
    j["images"] = ds->samples.size();
    j["words"] = words;
    j["ignored_words"] = ignored;
    j["valid_words"] = words - ignored;
    j["images_without_words"] = no_words;
    nlohmann::ordered_json h;
    for (int b = 0; b < 6; ++b) h[kBinNames[b]] = hist[b];
    j["word_short_side_px"] = h;
    j["bad_records"] = nlohmann::json::array();
    for (const loader::BadRecord& b : ds->bad)
      j["bad_records"].push_back({{"file", b.file}, {"line", b.line}, {"reason", b.reason}});
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::printf("format        %s\nroot          %s\nimages        %zu\nwords         %zu\n"
              "  valid       %zu\n  ignored     %zu\nimages without words  %zu\n",
              format, ds->root.c_str(), ds->samples.size(), words, words - ignored, ignored, no_words);
  std::printf("word short side (px):");
  for (int b = 0; b < 6; ++b) std::printf("  %s: %zu", kBinNames[b], hist[b]);
  std::printf("\nbad records   %zu\n", ds->bad.size());
  for (const loader::BadRecord& b : ds->bad)
    std::printf("  %s%s: %s\n", b.file.c_str(), b.line ? (":" + std::to_string(b.line)).c_str() : "",
                b.reason.c_str());
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand(
      "inspect",
      "Read a dataset's annotations (no pixels) and report images, words, ignored words, word sizes "
      "and every bad record with its file, line and reason.");
  cmd->add_option("path", args->path,
                  "ICDAR-2015 folder (images/ + gt/), a folder with ufo/*.json, or a UFO .json file")
      ->required();
  cmd->add_option("--format", args->format, "auto | icdar15 | ufo (default: auto-detect)")
      ->check(CLI::IsMember({"auto", "icdar15", "ufo"}));
  cmd->add_option("--ufo", args->ufo, "UFO json file whose image names are relative to PATH/images");
  cmd->add_option("--ignore-text", args->ignore_text,
                  "ICDAR: 'substring' marks a word ignored when '###' occurs anywhere in its line "
                  "(the reference), 'exact' when the transcription is exactly ### or *")
      ->check(CLI::IsMember({"substring", "exact"}));
  cmd->add_option("--poly-policy", args->poly_policy,
                  "UFO words with more than 4 points: skip (the reference: background), minrect "
                  "(min-area rectangle), mask-ignore (min-area rectangle, ignored)")
      ->check(CLI::IsMember({"skip", "minrect", "mask-ignore"}));
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  cmd->callback([args] { run(*args); });
}

}  // namespace textfeed::tools
