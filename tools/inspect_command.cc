// textfeed inspect: what a dataset holds (images, words, ignored words, word sizes), and every
// record the readers had to leave out, with its file, line and reason. Reads annotations only.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/printable.h"
#include "loader/readers/dataset.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/spec_flags.h"

namespace textfeed::tools {
namespace {

namespace fs = std::filesystem;

struct InspectArgs {
  std::string path;
  std::string ufo;
  SpecFlags reader;
  bool json = false;
};

// Word size: the short side of the word's minimum-area rectangle, in px (the size that decides
// whether a word survives downscaling).
double word_short_side_px(const Quad& q) {
  std::vector<cv::Point2f> pts;
  for (int i = 0; i < 4; ++i) pts.emplace_back(q.x(i), q.y(i));
  const cv::Size2f size = cv::minAreaRect(pts).size;
  return std::min(size.width, size.height);
}

constexpr double kBinEdgesPx[] = {8, 16, 32, 64, 128};
constexpr const char* kBinNames[] = {"<8", "8-16", "16-32", "32-64", "64-128", ">=128"};
constexpr int kBins = 6;

// The UFO file of a dataset folder, for --format ufo without --ufo: ufo/<split>.json.
Result<std::string> find_ufo_file(const fs::path& dir, const std::string& split) {
  std::error_code ec;
  const fs::path file = dir / "ufo" / (split + ".json");
  if (fs::is_regular_file(file, ec)) return file.string();
  std::vector<std::string> jsons;
  for (fs::directory_iterator it(dir / "ufo", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") jsons.push_back(it->path().string());
  std::sort(jsons.begin(), jsons.end());
  std::string names;
  for (const std::string& j : jsons) names += " " + j;
  return Status::invalid_argument(dir.string() + ": no ufo/" + split + ".json (found:" +
                                  (names.empty() ? std::string(" no ufo/*.json") : names) +
                                  "); choose it with --split or name it with --ufo");
}

Result<loader::Dataset> read(const InspectArgs& a, const loader::ReaderOptions& o) {
  using loader::ReaderFormat;
  if (!a.ufo.empty()) {
    if (o.format != ReaderFormat::kAuto && o.format != ReaderFormat::kUfo)
      return Status::invalid_argument("--ufo names a UFO file; it does not go with --format " +
                                      std::string(loader::reader_format_name(o.format)));
    return loader::read_ufo(a.path, a.ufo, o);
  }
  std::error_code ec;
  if (o.format == ReaderFormat::kUfo && fs::is_directory(fs::path(a.path) / "ufo", ec)) {
    TF_ASSIGN_OR_RETURN(const std::string file, find_ufo_file(a.path, o.split));
    return loader::read_ufo(a.path, file, o);
  }
  return loader::open_dataset(a.path, o);
}

struct Summary {
  size_t words = 0, ignored = 0, images_without_words = 0;
  size_t hist[kBins] = {};
  std::vector<size_t> points;  // Dataset::points_histogram
  size_t polygons = 0, max_points = 0;
  size_t label_files = 0;  // distinct annotation files the samples' words came from
};

// The polygons an annotation marks ignored (Dataset::poly_labels).
size_t ignored_polygons(const loader::Dataset& ds) {
  size_t n = 0;
  for (const loader::SampleRecord& rec : ds.samples)
    for (unsigned char l : rec.poly_labels) n += l == kLabelIgnored;
  return n;
}

// "4", or ">=32" for the last bin.
std::string points_bin_name(size_t k) {
  return k == loader::Dataset::kMaxPointsBin ? ">=" + std::to_string(k) : std::to_string(k);
}

Summary summarize(const loader::Dataset& ds) {
  Summary s;
  s.words = ds.num_words();
  s.ignored = ds.num_ignored();
  s.points = ds.points_histogram();
  for (size_t k = 0; k < s.points.size(); ++k) {
    s.polygons += s.points[k];
    if (s.points[k]) s.max_points = k;
  }
  std::set<std::string_view> files;
  for (const loader::SampleRecord& rec : ds.samples) {
    for (uint32_t n : rec.poly_points) s.max_points = std::max<size_t>(s.max_points, n);
    if (!rec.annotation.empty()) files.insert(rec.annotation);
  }
  s.label_files = files.size();
  for (const loader::SampleRecord& rec : ds.samples) {
    s.images_without_words += rec.quads.empty();
    for (const Quad& q : rec.quads) {
      const double side = word_short_side_px(q);
      int bin = 0;
      while (bin < kBins - 1 && side >= kBinEdgesPx[bin]) ++bin;
      ++s.hist[bin];
    }
  }
  return s;
}

void print_json(const InspectArgs& a, const loader::Dataset& ds, const Summary& s) {
  nlohmann::ordered_json j;
  j["format"] = std::string(loader::reader_format_name(ds.format));
  j["root"] = ds.root;
  const loader::ReaderOptions r = reader_options("inspect", a.reader);
  j["ignore_text"] = std::string(loader::ignore_text_name(r.ignore_text));
  j["poly_policy"] = std::string(loader::poly_policy_name(r.poly_policy));
  j["illegibility"] = std::string(loader::illegibility_name(r.illegibility));
  j["split"] = r.split;
  j["reader_format"] = std::string(loader::reader_format_name(r.format));
  j["files"] = nlohmann::ordered_json::array();
  for (const loader::AnnotationFile& f : ds.files)
    j["files"].push_back({{"file", f.file}, {"image_dir", f.image_dir}, {"images", f.samples}});
  j["label_files"] = s.label_files;
  j["images"] = ds.samples.size();
  j["words"] = s.words;
  j["ignored_words"] = s.ignored;
  j["valid_words"] = s.words - s.ignored;
  j["images_without_words"] = s.images_without_words;
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  for (int b = 0; b < kBins; ++b) h[kBinNames[b]] = s.hist[b];
  j["word_short_side_px"] = h;
  j["polygons"] = s.polygons;
  j["ignored_polygons"] = ignored_polygons(ds);
  j["max_points"] = s.max_points;
  nlohmann::ordered_json pts = nlohmann::ordered_json::object();
  for (size_t k = 0; k < s.points.size(); ++k)
    if (s.points[k]) pts[points_bin_name(k)] = s.points[k];
  j["points_per_word"] = pts;
  j["bad_records"] = nlohmann::ordered_json::array();
  for (const loader::BadRecord& b : ds.bad)
    j["bad_records"].push_back({{"file", b.file}, {"line", b.line}, {"reason", b.reason}});
  std::cout << json_text(j) << "\n";
}

void print_text(const loader::Dataset& ds, const Summary& s) {
  std::printf("format                %s\n",
              std::string(loader::reader_format_name(ds.format)).c_str());
  std::printf("root                  %s\n", printable(ds.root).c_str());
  if (!ds.files.empty()) std::printf("annotation files      %zu\n", ds.files.size());
  for (const loader::AnnotationFile& f : ds.files)
    std::printf("  %s: %zu images from %s/\n", printable(f.file).c_str(), f.samples,
                printable(f.image_dir.empty() ? "." : f.image_dir).c_str());
  std::printf("images                %zu\n", ds.samples.size());
  std::printf("words                 %zu\n", s.words);
  std::printf("  valid               %zu\n", s.words - s.ignored);
  std::printf("  ignored             %zu\n", s.ignored);
  std::printf("images without words  %zu\n", s.images_without_words);
  std::printf("label files           %zu\n", s.label_files);
  std::printf("word short side (px)  ");
  for (int b = 0; b < kBins; ++b) std::printf("%s%s: %zu", b ? ", " : "", kBinNames[b], s.hist[b]);
  std::printf("\npolygons              %zu (%zu ignored), at most %zu points\n", s.polygons,
              ignored_polygons(ds), s.max_points);
  std::printf("points per word       ");
  bool first = true;
  for (size_t k = 0; k < s.points.size(); ++k)
    if (s.points[k]) {
      std::printf("%s%s: %zu", first ? "" : ", ", points_bin_name(k).c_str(), s.points[k]);
      first = false;
    }
  std::printf("\nbad records           %zu\n", ds.bad.size());
  for (const loader::BadRecord& b : ds.bad) {
    // File names and reasons (which quote gt text) come from files: escaped, they cannot move
    // the cursor or forge lines.
    const std::string where = b.line ? b.file + ":" + std::to_string(b.line) : b.file;
    std::printf("  %s: %s\n", printable(where).c_str(), printable(b.reason).c_str());
  }
}

void run(const InspectArgs& a) {
  auto ds = read(a, reader_options("inspect", a.reader));
  if (!ds.has_value()) fail("inspect", ds.error().to_string(), 2);
  const Summary s = summarize(*ds);
  if (a.json) {
    print_json(a, *ds, s);
  } else {
    print_text(*ds, s);
  }
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand(
      "inspect",
      "Read a dataset's annotations (no pixels) and report images, words, ignored words, a "
      "histogram of word sizes, and every bad record with its file, line and reason. Exits 0 when "
      "the dataset reads (bad records included), 2 when it cannot be read.");
  cmd->add_option(
         "path", args->path,
         "Dataset: an ICDAR-2015, Total-Text or CTW1500 folder (images/ + gt/), a folder with "
         "ufo/<split>.json or <x>_receipt/ufo/<split>.json folders (merged), a UFO .json file "
         "(root "
         "= the folder above ufo/), an mmocr .json or a PaddleOCR label file (root = its folder); "
         "docs/dataset_layouts.md")
      ->required();
  cmd->add_option("--ufo", args->ufo,
                  "UFO .json file to read; its image names are relative to the first folder of "
                  "PATH/img/<its stem>, PATH/images and PATH that exists");
  add_spec_flags(cmd, args->reader, kReaderFlags);
  cmd->add_flag("--json", args->json, "Print one JSON object instead of text");
  cmd->callback([args] { run(*args); });
}

}  // namespace textfeed::tools
