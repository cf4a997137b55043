// PaddleOCR detection label files (docs/dataset_layouts.md "PaddleOCR"), as SimpleDataSet and
// DetLabelEncode read them: one image per line, `image_path<TAB>json`, the json a list of
// {"transcription": str, "points": [[x, y], ...]}; "###" and "*" are ignored words. Image paths
// are relative to the data_dir, here the dataset root. Several label files make one Dataset; their
// ratio_list becomes Sources with weights (docs/dataset_layouts.md).
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "loader/readers/dataset.h"
#include "loader/readers/detail/json_file.h"
#include "loader/readers/detail/json_syntax.h"
#include "loader/readers/detail/text.h"
#include "loader/readers/detail/words.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

struct PaddleContext {
  const ReaderOptions& options;
  std::string shown;  // the label file as messages name it
  int line = 0;       // 1-based
  Dataset& ds;
  internal::ImageNames& names;
  simdjson::dom::parser parser;
  std::vector<float> xy;  // scratch
};

// The points of one word into cx.xy; returns why they are bad, or "".
std::string read_points(simdjson::dom::object word, std::vector<float>& xy) {
  simdjson::dom::array points;
  if (word["points"].get_array().get(points)) return "no 'points' array";
  xy.clear();
  for (element p : points) {
    simdjson::dom::array pair;
    if (p.get_array().get(pair) || pair.size() != 2) return "a point is not an [x, y] pair";
    for (element c : pair) {
      double v = 0;
      if (c.get_double().get(v)) return "a point coordinate is not a number";
      if (!std::isfinite(v) || !internal::finite_as_float(v))
        return "a point coordinate is out of range of a 32-bit float";
      xy.push_back(static_cast<float>(v));
    }
  }
  if (xy.size() < 6) return std::to_string(xy.size() / 2) + " points; a polygon needs at least 3";
  return {};
}

// One word (the `ordinal`th of its line, 1-based) into `rec`; returns why it is bad, or "".
std::string read_word(element value, int ordinal, SampleRecord& rec, PaddleContext& cx) {
  simdjson::dom::object word;
  if (value.get_object().get(word)) return "word " + std::to_string(ordinal) + " is not an object";
  const std::string at = "word " + std::to_string(ordinal) + ": ";
  if (const std::string_view key = internal::duplicate_key(word, {"points", "transcription"});
      !key.empty())
    return at + "has the key '" + std::string(key) + "' twice";
  std::string_view text;
  if (word["transcription"].get_string().get(text)) return at + "no 'transcription' string";
  if (text.find('\0') != std::string_view::npos)
    return at + "'transcription' contains a NUL character";
  if (std::string why = read_points(word, cx.xy); !why.empty()) return at + why;
  const unsigned char label = (text == "###" || text == "*") ? kLabelIgnored : kLabelValid;
  internal::add_polygon_word(rec, cx.xy, label, text, cx.line, cx.options);
  return {};
}

// One line `image<TAB>json` into cx.ds; what it leaves out goes to cx.ds.bad.
void read_line(std::string_view line, PaddleContext& cx) {
  auto bad = [&](std::string why) { cx.ds.bad.push_back({cx.shown, cx.line, std::move(why)}); };
  if (line.find('\0') != std::string_view::npos) return bad("line contains a NUL byte");
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos) return bad("no TAB between the image path and its label json");
  const std::string image(line.substr(0, tab));
  const std::string_view label = line.substr(tab + 1);
  element doc;
  if (auto err = cx.parser.parse(label.data(), label.size()).get(doc)) {
    std::string why = "label is not valid JSON (" + std::string(simdjson::error_message(err)) + ")";
    if (auto e = internal::find_json_syntax_error(label, cx.parser.max_depth()))
      why += " at column " + std::to_string(tab + 1 + e->column) + ": " + e->what;
    return bad(why + "; image left out");
  }
  simdjson::dom::array words;
  if (doc.get_array().get(words)) return bad("label json is not a list of words; image left out");
  if (words.size() > internal::kMaxWordsPerImage)
    return bad("image has " + std::to_string(words.size()) + " words, more than the limit of " +
               std::to_string(internal::kMaxWordsPerImage) + "; left out");
  Result<std::string> path = cx.names.claim(image);
  if (!path.has_value()) return bad(path.error().message() + "; left out");
  SampleRecord rec;
  rec.image = std::move(*path);
  rec.annotation = cx.shown;
  int ordinal = 0;
  for (element w : words)
    if (std::string why = read_word(w, ++ordinal, rec, cx); !why.empty())
      bad("image '" + image + "' " + why);
  cx.ds.samples.push_back(std::move(rec));
}

Status read_label_file(const fs::path& root, const std::string& path, internal::ImageNames& names,
                       const ReaderOptions& o, Dataset& ds) {
  // Read as json files are (regular file, 1 GiB at most): a large dataset's label file passes the
  // 64 MiB of a per-image gt file.
  TF_ASSIGN_OR_RETURN(simdjson::padded_string content,
                      internal::load_json(path, "PaddleOCR label file"));
  const std::string_view body(content.data(), content.size());
  TF_RETURN_IF_ERROR(internal::refuse_utf16_or_32(body, path));
  const size_t before = ds.samples.size();
  PaddleContext cx{o, internal::shown_path(root, path), 0, ds, names, simdjson::dom::parser(), {}};
  const std::vector<std::string_view> lines = internal::split_lines(internal::strip_bom(body));
  for (size_t li = 0; li < lines.size(); ++li) {
    cx.line = static_cast<int>(li) + 1;
    if (!internal::is_blank(lines[li])) read_line(internal::strip_bom(lines[li]), cx);
  }
  ds.files.push_back({cx.shown, "", ds.samples.size() - before});
  return Status();
}

}  // namespace

Result<Dataset> read_paddle(const std::string& root_in, const std::vector<std::string>& label_files,
                            const ReaderOptions& o) {
  TF_RETURN_IF_ERROR(internal::validate_options(o));
  std::error_code ec;
  const fs::path root = fs::absolute(root_in, ec).lexically_normal();
  if (!fs::is_directory(root, ec))
    return Status::not_found("PaddleOCR data_dir " + root.string() + " is not a folder");
  if (label_files.empty())
    return Status::invalid_argument(root.string() + ": no PaddleOCR label file given");
  Dataset ds;
  ds.root = root.string();
  ds.format = ReaderFormat::kPaddle;
  internal::ImageNames names(root);
  for (const std::string& file : label_files)
    TF_RETURN_IF_ERROR(read_label_file(root, file, names, o, ds));
  std::sort(ds.samples.begin(), ds.samples.end(),
            [](const SampleRecord& a, const SampleRecord& b) { return a.image < b.image; });
  return ds;
}

}  // namespace textfeed::loader
