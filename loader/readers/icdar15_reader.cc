// ICDAR-2015 reader: images/<stem>.<ext> paired by name with gt/gt_<stem>.txt (docs/targets.md
// §1.1, §5 #16). Per line: 8 numbers (int or float), then the transcription (commas allowed).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <string>

#include "loader/readers/dataset.h"
#include "loader/readers/detail/paired_folder.h"
#include "loader/readers/detail/text.h"
#include "loader/readers/detail/words.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool is_ignored_text(std::string_view line, std::string_view text, IgnoreText rule) {
  if (rule == IgnoreText::kSubstring) return line.find("###") != std::string_view::npos;
  text = trim(text);
  return text == "###" || text == "*";
}

// Parses the 8 coordinates of `line` into `q`; `*text_at` is where the transcription starts.
// Returns an empty string on success, else why the line is bad.
std::string parse_coordinates(std::string_view line, Quad* q, size_t* text_at) {
  size_t pos = 0;
  for (int k = 0; k < 8; ++k) {
    const size_t comma = line.find(',', pos);
    if (comma == std::string_view::npos && k < 7)
      return "expected 8 coordinates, found " + std::to_string(k + 1) + " fields";
    const size_t end = comma == std::string_view::npos ? line.size() : comma;
    const std::string_view field = line.substr(pos, end - pos);
    double v = 0;
    if (!internal::parse_number(field, &v))
      return "coordinate " + std::to_string(k + 1) + " is not a finite number: '" +
             std::string(field.substr(0, 32)) + "'";
    if (!internal::finite_as_float(v))
      return "coordinate " + std::to_string(k + 1) + " is out of range of a 32-bit float: '" +
             std::string(field.substr(0, 32)) + "'";
    q->xy[k] = static_cast<float>(v);
    pos = comma == std::string_view::npos ? line.size() : comma + 1;
  }
  *text_at = pos;
  return {};
}

// Parses one gt file (`shown` = its path relative to the root) into `rec`; bad lines go to `bad`.
// Blank lines after the last word are the usual file ending; a blank line before it is listed.
Status parse_gt_file(const std::string& path, const std::string& shown, const ReaderOptions& o,
                     SampleRecord& rec, std::vector<BadRecord>& bad) {
  TF_ASSIGN_OR_RETURN(std::string content, internal::read_text_file(path));
  const std::vector<std::string_view> lines = internal::split_lines(internal::strip_bom(content));
  size_t used = lines.size();
  while (used > 0 && internal::is_blank(internal::strip_bom(lines[used - 1]))) --used;
  for (size_t li = 0; li < used; ++li) {
    const std::string_view line = internal::strip_bom(lines[li]);  // SR strips U+FEFF per line
    const int line_no = static_cast<int>(li) + 1;
    if (internal::is_blank(line)) {
      bad.push_back({shown, line_no, "empty line"});
      continue;
    }
    if (line.find('\0') !=
        std::string_view::npos) {  // binary junk; and the cache keeps texts NUL-separated
      bad.push_back({shown, line_no, "line contains a NUL byte"});
      continue;
    }
    Quad q;
    size_t text_at = 0;
    std::string reason = parse_coordinates(line, &q, &text_at);
    if (!reason.empty()) {
      bad.push_back({shown, line_no, std::move(reason)});
      continue;
    }
    const std::string_view text = line.substr(text_at);
    if (rec.quads.size() == internal::kMaxWordsPerImage)
      return Status::invalid_argument(shown + " has more than " +
                                      std::to_string(internal::kMaxWordsPerImage) +
                                      " words (line " + std::to_string(line_no) + ")");
    rec.quads.push_back(q);
    rec.labels.push_back(is_ignored_text(line, text, o.ignore_text) ? kLabelIgnored : kLabelValid);
    rec.texts.emplace_back(text);
    rec.lines.push_back(line_no);
    rec.poly_xy.insert(rec.poly_xy.end(), q.xy.begin(), q.xy.end());  // the quad is the polygon
    rec.poly_points.push_back(4);
    rec.poly_labels.push_back(rec.labels.back());
  }
  return Status();
}

// gt/gt_<stem>.txt pairs with images/<stem>.<ext>.
std::optional<std::string> gt_stem(const std::string& name) {
  const fs::path p(name);
  if (p.extension() != ".txt" || name.rfind("gt_", 0) != 0) return std::nullopt;
  return p.stem().string().substr(3);
}

std::string misnamed_gt(const std::string& name) {
  return fs::path(name).extension() == ".txt" ? "gt file name does not start with 'gt_'" : "";
}

std::string unlabelled_image(const ReaderOptions& o, const std::string& stem) {
  return "no ground truth file " + o.gt_dir + "/gt_" + stem + ".txt; image kept with no words";
}

}  // namespace

Result<Dataset> read_icdar15(const std::string& root, const ReaderOptions& options) {
  return internal::read_paired_folder(root, options,
                                      {ReaderFormat::kIcdar15, "ICDAR-2015", gt_stem, parse_gt_file,
                                       misnamed_gt, unlabelled_image});
}

}  // namespace textfeed::loader
