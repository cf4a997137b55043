// Fuzz target: the UFO json reader. The input becomes ufo/train.json under a scratch root that
// has an images/ folder, read with the default options and with the min-rect polygon policy (the
// path through cv::minAreaRect). Beyond "no crash", it checks what read_ufo promises: image paths
// relative, inside images/ and unique, equal-length word vectors, finite coordinates, labels 0/1.
#include <cmath>
#include <filesystem>
#include <set>
#include <string>

#include "base/log.h"
#include "loader/readers/dataset.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/known_issues.h"

namespace textfeed::fuzz {
namespace {

namespace fs = std::filesystem;

struct UfoFolder {
  std::string root, json;
};

const UfoFolder& ufo_folder() {
  static const UfoFolder folder = [] {
    const fs::path root = fs::path(scratch_dir()) / "ufo";
    fs::create_directories(root / "images");
    fs::create_directories(root / "ufo");
    return UfoFolder{root.string(), (root / "ufo" / "train.json").string()};
  }();
  return folder;
}

void check_image_path(const std::string& image) {
  const fs::path p(image);
  TF_CHECK(!p.is_absolute() && !p.has_root_name()) << "absolute image path " << image;
  TF_CHECK(!p.empty() && *p.begin() == "images") << "image path outside images/: " << image;
  for (const fs::path& part : p) TF_CHECK(part != "..") << "image path with '..': " << image;
}

void check_record(const loader::SampleRecord& rec) {
  check_image_path(rec.image);
  const size_t n = rec.quads.size();
  TF_CHECK(rec.labels.size() == n && rec.texts.size() == n && rec.lines.size() == n)
      << rec.image << ": word vectors differ in length";
  TF_CHECK(rec.width >= 0 && rec.height >= 0) << rec.image << ": negative size";
  for (size_t i = 0; i < n; ++i) {
    TF_CHECK(rec.labels[i] == kLabelValid || rec.labels[i] == kLabelIgnored)
        << "label " << int{rec.labels[i]};
    TF_CHECK(i == 0 || rec.lines[i] > rec.lines[i - 1])
        << rec.image << ": word ordinals out of order";
    for (float v : rec.quads[i].xy)
      TF_CHECK(std::isfinite(v)) << rec.image << " word " << rec.lines[i] << ": coordinate " << v;
  }
}

}  // namespace

void ufo_one_input(std::span<const uint8_t> input) {
  const UfoFolder& folder = ufo_folder();
  write_file(folder.json, input);
  loader::ReaderOptions min_rect;
  min_rect.poly_policy = loader::PolyPolicy::kMinRect;
  min_rect.drop_under_area = 0;
  min_rect.ignore_under_area = 25;
  for (const loader::ReaderOptions& options : {loader::ReaderOptions{}, min_rect}) {
    const Result<loader::Dataset> ds = loader::read_ufo(folder.root, folder.json, options);
    if (!ds.has_value()) continue;  // a clear error is a fine answer
    std::set<std::string> images;
    for (const loader::SampleRecord& rec : ds->samples) {
      check_record(rec);
      TF_CHECK(images.insert(rec.image).second) << "image " << rec.image << " listed twice";
    }
    for (const loader::BadRecord& bad : ds->bad)
      TF_CHECK(!bad.file.empty() && !bad.reason.empty()) << "a bad record without file or reason";
  }
}

}  // namespace textfeed::fuzz
