// Fuzz target: the polygon readers (Total-Text, CTW1500 txt and xml, PaddleOCR label file, mmocr
// json). The input is written as each format's label file in its own scratch folder and read with
// poly_policy skip and minrect. Beyond "no crash", it checks what the readers promise: polygon
// vectors that agree (a label per polygon, >= 3 points each, their points making poly_xy),
// finite coordinates, labels 0/1, equal-length quad vectors, and bad records with a file and a
// reason.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "base/log.h"
#include "loader/readers/dataset.h"
#include "tests/fuzz/fuzz_targets.h"

namespace textfeed::fuzz {
namespace {

namespace fs = std::filesystem;

enum class Kind { kTotalText, kCtwTxt, kCtwXml, kPaddle, kMmocr };

struct Folder {
  Kind kind;
  std::string root, label;
};

const std::vector<Folder>& folders() {
  static const std::vector<Folder> all = [] {
    std::vector<Folder> out;
    auto make = [&](Kind kind, const char* name, const char* label) {
      const fs::path root = fs::path(scratch_dir()) / name;
      fs::create_directories(root / "images");
      fs::create_directories(root / "gt");
      write_file((root / "images" / "img1.jpg").string(), {});  // never decoded by the readers
      out.push_back({kind, root.string(), (root / label).string()});
    };
    make(Kind::kTotalText, "totaltext", "gt/poly_gt_img1.txt");
    make(Kind::kCtwTxt, "ctw_txt", "gt/img1.txt");
    make(Kind::kCtwXml, "ctw_xml", "gt/img1.xml");
    make(Kind::kPaddle, "paddle", "label.txt");
    make(Kind::kMmocr, "mmocr", "textdet_train.json");
    return out;
  }();
  return all;
}

Result<loader::Dataset> read(const Folder& f, const loader::ReaderOptions& o) {
  switch (f.kind) {
    case Kind::kTotalText:
      return loader::read_totaltext(f.root, o);
    case Kind::kCtwTxt:
    case Kind::kCtwXml:
      return loader::read_ctw1500(f.root, o);
    case Kind::kPaddle:
      return loader::read_paddle(f.root, {f.label}, o);
    case Kind::kMmocr:
      return loader::read_mmocr(f.root, f.label, o);
  }
  return Status::invalid_argument("unknown kind");
}

void check_record(const loader::SampleRecord& rec) {
  const size_t n = rec.quads.size();
  TF_CHECK(rec.labels.size() == n && rec.texts.size() == n && rec.lines.size() == n)
      << "word vectors differ";
  TF_CHECK(rec.poly_labels.size() == rec.poly_points.size()) << "a label per polygon";
  TF_CHECK(n <= rec.poly_points.size()) << "more quads than polygons";
  size_t points = 0;
  for (size_t i = 0; i < rec.poly_points.size(); ++i) {
    TF_CHECK(rec.poly_points[i] >= 3) << "polygon of " << rec.poly_points[i] << " points";
    TF_CHECK(rec.poly_labels[i] == kLabelValid || rec.poly_labels[i] == kLabelIgnored)
        << "polygon label";
    points += rec.poly_points[i];
  }
  TF_CHECK(points * 2 == rec.poly_xy.size())
      << points << " points, " << rec.poly_xy.size() << " coordinates";
  for (float v : rec.poly_xy) TF_CHECK(std::isfinite(v)) << "polygon coordinate " << v;
  for (size_t i = 0; i < n; ++i) {
    TF_CHECK(rec.labels[i] == kLabelValid || rec.labels[i] == kLabelIgnored) << "label";
    for (float v : rec.quads[i].xy) TF_CHECK(std::isfinite(v)) << "quad coordinate " << v;
  }
}

}  // namespace

void poly_one_input(std::span<const uint8_t> input) {
  for (const Folder& f : folders()) {
    write_file(f.label, input);
    for (loader::PolyPolicy policy : {loader::PolyPolicy::kSkip, loader::PolyPolicy::kMinRect}) {
      loader::ReaderOptions o;
      o.poly_policy = policy;
      const Result<loader::Dataset> ds = read(f, o);
      if (!ds.has_value()) continue;  // a clear error is a fine answer
      for (const loader::SampleRecord& rec : ds->samples) check_record(rec);
      for (const loader::BadRecord& bad : ds->bad)
        TF_CHECK(!bad.file.empty() && !bad.reason.empty()) << "a bad record without file or reason";
    }
  }
}

}  // namespace textfeed::fuzz
