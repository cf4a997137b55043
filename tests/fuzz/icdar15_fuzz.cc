// Fuzz target: the ICDAR-2015 gt reader. The input becomes gt/gt_img_1.txt beside
// images/img_1.jpg in the scratch folder, read with both IgnoreText rules. Beyond "no crash", it
// checks what read_icdar15 promises: equal-length word vectors, finite coordinates, labels 0/1,
// and every line of the file accounted for exactly once (a word or a bad record), none dropped.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "base/log.h"
#include "loader/dataset.h"
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
      TF_CHECK(std::isfinite(v) || (known::kCoordinateBeyondFloatRange && std::isinf(v)))
          << "line " << rec.lines[i] << ": coordinate " << v;
  }
}

// Every line number from 1 to the last one mentioned appears exactly once, as a word or as a
// bad record: nothing is dropped or counted twice.
void check_lines_accounted(const loader::Dataset& ds, size_t newlines) {
  std::vector<int> seen(newlines + 2, 0);
  int last = 0;
  auto mark = [&](int line) {
    TF_CHECK(line >= 1 && static_cast<size_t>(line) <= newlines + 1) << "line number " << line;
    ++seen[static_cast<size_t>(line)];
    last = std::max(last, line);
  };
  for (const loader::SampleRecord& rec : ds.samples)
    for (int line : rec.lines) mark(line);
  for (const loader::BadRecord& bad : ds.bad) {
    TF_CHECK(!bad.file.empty() && !bad.reason.empty()) << "a bad record without file or reason";
    if (bad.line > 0) mark(bad.line);
  }
  for (int line = 1; line <= last; ++line)
    TF_CHECK(seen[static_cast<size_t>(line)] == 1)
        << "line " << line << " reported " << seen[static_cast<size_t>(line)] << " times";
}

}  // namespace

void icdar15_one_input(std::span<const uint8_t> input) {
  const IcdarFolder& folder = icdar_folder();
  write_file(folder.gt_file, input);
  size_t newlines = 0;
  for (uint8_t c : input) newlines += (c == '\n');
  for (loader::IgnoreText rule : {loader::IgnoreText::kSubstring, loader::IgnoreText::kExact}) {
    loader::ReaderOptions options;
    options.ignore_text = rule;
    const Result<loader::Dataset> ds = loader::read_icdar15(folder.root, options);
    if (!ds.has_value()) continue;  // a clear error is a fine answer
    TF_CHECK(ds->samples.size() <= 1) << ds->samples.size() << " samples from one image";
    for (const loader::SampleRecord& rec : ds->samples) check_record(rec);
    check_lines_accounted(*ds, newlines);
  }
}

}  // namespace textfeed::fuzz
