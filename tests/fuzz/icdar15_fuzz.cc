// Fuzz target: the ICDAR-2015 gt reader. The input becomes gt/gt_img_1.txt beside
// images/img_1.jpg in the scratch folder, read with both IgnoreText rules. Beyond "no crash", it
// checks what read_icdar15 promises: equal-length word vectors, finite coordinates, labels 0/1,
// and every line of the file with content accounted for exactly once (a word or a bad record).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "loader/readers/dataset.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/known_issues.h"

namespace textfeed::fuzz {
namespace {

namespace fs = std::filesystem;

struct IcdarFolder {
  std::string root, gt_file;
};

const IcdarFolder& icdar_folder() {
  static const IcdarFolder folder = [] {
    const fs::path root = fs::path(scratch_dir()) / "icdar15";
    fs::create_directories(root / "images");
    fs::create_directories(root / "gt");
    write_file((root / "images" / "img_1.jpg").string(), {});  // never decoded by the reader
    return IcdarFolder{root.string(), (root / "gt" / "gt_img_1.txt").string()};
  }();
  return folder;
}

void check_record(const loader::SampleRecord& rec) {
  const size_t n = rec.quads.size();
  TF_CHECK(rec.labels.size() == n && rec.texts.size() == n && rec.lines.size() == n)
      << "word vectors differ in length";
  TF_CHECK(rec.image == "images/img_1.jpg") << "image path " << rec.image;
  for (size_t i = 0; i < n; ++i) {
    TF_CHECK(rec.labels[i] == kLabelValid || rec.labels[i] == kLabelIgnored)
        << "label " << int{rec.labels[i]};
    for (float v : rec.quads[i].xy)
      TF_CHECK(std::isfinite(v)) << "line " << rec.lines[i] << ": coordinate " << v;
  }
}

// The number of the last line with content: the gt file's lines (ended by LF, CR LF or a lone
// CR), less the blank ones at its end. Blank: only spaces and tabs, after a UTF-8 BOM (the
// file's, then the line's own on line 1; the line's own on the others). Written apart from the
// reader on purpose.
size_t last_content_line(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  size_t last = 0, line_no = 0;
  while (!text.empty()) {
    const size_t end = std::min(text.find_first_of("\r\n"), text.size());
    std::string_view line = text.substr(0, end);
    const bool crlf = end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n';
    text.remove_prefix(std::min(end + (crlf ? 2 : 1), text.size()));
    ++line_no;
    for (int k = line_no == 1 ? 2 : 1; k > 0 && line.substr(0, 3) == kBom; --k)
      line.remove_prefix(3);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) last = line_no;
  }
  return last;
}

// Every line with content appears exactly once, as a word or as a bad record (a blank line
// before the last word is a bad record too), and no other line does: nothing is dropped,
// counted twice or invented.
void check_lines_accounted(const loader::Dataset& ds, size_t last_line) {
  std::vector<int> seen(last_line + 1, 0);
  auto mark = [&](int line) {
    TF_CHECK(line >= 1 && static_cast<size_t>(line) <= last_line)
        << "line " << line << " reported; the file's last line with content is " << last_line;
    ++seen[static_cast<size_t>(line)];
  };
  for (const loader::SampleRecord& rec : ds.samples)
    for (int line : rec.lines) mark(line);
  for (const loader::BadRecord& bad : ds.bad) {
    TF_CHECK(!bad.file.empty() && !bad.reason.empty()) << "a bad record without file or reason";
    if (bad.line > 0) mark(bad.line);
  }
  if (ds.samples.empty()) return;  // the gt file itself was refused (a line-0 bad record)
  for (size_t line = 1; line <= last_line; ++line)
    TF_CHECK(seen[line] == 1) << "line " << line << " reported " << seen[line] << " times";
}

}  // namespace

void icdar15_one_input(std::span<const uint8_t> input) {
  const IcdarFolder& folder = icdar_folder();
  write_file(folder.gt_file, input);
  const size_t last_line = last_content_line(
      std::string_view(reinterpret_cast<const char*>(input.data()), input.size()));
  for (loader::IgnoreText rule : {loader::IgnoreText::kSubstring, loader::IgnoreText::kExact}) {
    loader::ReaderOptions options;
    options.ignore_text = rule;
    const Result<loader::Dataset> ds = loader::read_icdar15(folder.root, options);
    if (!ds.has_value()) continue;  // a clear error is a fine answer
    TF_CHECK(ds->samples.size() <= 1) << ds->samples.size() << " samples from one image";
    for (const loader::SampleRecord& rec : ds->samples) check_record(rec);
    check_lines_accounted(*ds, last_line);
  }
}

}  // namespace textfeed::fuzz
