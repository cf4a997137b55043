// ICDAR-2015 reader: images/<stem>.<ext> paired by name with gt/gt_<stem>.txt (docs/targets.md
// §1.1, §5 #16). Per line: 8 numbers (int or float), then the transcription (commas allowed).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>

#include "loader/dataset.h"
#include "loader/detail/text.h"
#include "loader/detail/words.h"

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

using internal::rel_path;
using internal::StemMap;

// The gt files by the stem of their image (gt_<stem>.txt). A gt "file" that is a folder or a FIFO
// still pairs with its image, whose reading then fails naming it: the image is left out rather
// than kept with no words (all its text background).
StemMap index_gt_files(const std::vector<std::string>& gt_files,
                       const std::vector<internal::NonRegularEntry>& odd_gt, const ReaderOptions& o,
                       std::vector<BadRecord>& bad) {
  std::vector<std::string> gt_names = gt_files;
  for (const internal::NonRegularEntry& e : odd_gt) gt_names.push_back(e.name);
  StemMap by_stem;
  for (const std::string& name : gt_names) {
    const fs::path p(name);
    if (p.extension() != ".txt") continue;
    if (name.rfind("gt_", 0) != 0) {
      bad.push_back({rel_path(o.gt_dir, name), 0, "gt file name does not start with 'gt_'"});
      continue;
    }
    by_stem.emplace(p.stem().string().substr(3), name);
  }
  return by_stem;
}

void report_unpaired_gt(const StemMap& gt, const StemMap& images, const ReaderOptions& o,
                        std::vector<BadRecord>& bad) {
  for (const auto& [stem, gt_name] : gt)
    if (!images.count(stem))
      bad.push_back({rel_path(o.gt_dir, gt_name), 0,
                     "no image named '" + stem + ".*' in " + o.images_dir + "/; file not used"});
}

// One sample per image, with the words of its gt file (in folder `gt_dir`), sorted by image path.
// An image without a gt file is kept with no words; one whose gt file cannot be read is left out.
void read_samples(const StemMap& images, const StemMap& gt, const fs::path& gt_dir,
                  const ReaderOptions& o, Dataset& ds) {
  for (const auto& [stem, image_name] : images) {
    SampleRecord rec;
    rec.image = rel_path(o.images_dir, image_name);
    const auto g = gt.find(stem);
    if (g == gt.end()) {
      ds.bad.push_back(
          {rec.image, 0,
           "no ground truth file " + o.gt_dir + "/gt_" + stem + ".txt; image kept with no words"});
    } else {
      rec.annotation = rel_path(o.gt_dir, g->second);
      const Status s = parse_gt_file((gt_dir / g->second).string(), rec.annotation, o, rec, ds.bad);
      if (!s.ok()) {
        ds.bad.push_back({rec.annotation, 0, s.message() + "; image left out"});
        continue;
      }
    }
    ds.samples.push_back(std::move(rec));
  }
  std::sort(ds.samples.begin(), ds.samples.end(),
            [](const SampleRecord& a, const SampleRecord& b) { return a.image < b.image; });
}

}  // namespace

Result<Dataset> read_icdar15(const std::string& root_in, const ReaderOptions& o) {
  TF_RETURN_IF_ERROR(internal::validate_options(o));
  std::error_code ec;
  const fs::path root = fs::absolute(root_in, ec).lexically_normal();
  const fs::path images = root / o.images_dir, gt = root / o.gt_dir;
  for (const fs::path& dir : {images, gt})
    if (!fs::is_directory(dir, ec))
      return Status::not_found("ICDAR-2015 dataset " + root.string() + ": no folder " +
                               dir.string());
  std::vector<internal::NonRegularEntry> odd_images, odd_gt;
  TF_ASSIGN_OR_RETURN(const std::vector<std::string> image_files,
                      internal::list_files(images.string(), &odd_images));
  TF_ASSIGN_OR_RETURN(const std::vector<std::string> gt_files,
                      internal::list_files(gt.string(), &odd_gt));

  Dataset ds;
  ds.root = root.string();
  ds.format = ReaderFormat::kIcdar15;
  internal::report_odd_images(odd_images, o.images_dir, ds.bad);
  const StemMap image_by_stem = internal::index_images(image_files, o.images_dir, ds.bad);
  const StemMap gt_by_stem = index_gt_files(gt_files, odd_gt, o, ds.bad);
  report_unpaired_gt(gt_by_stem, image_by_stem, o, ds.bad);
  read_samples(image_by_stem, gt_by_stem, gt, o, ds);
  return ds;
}

}  // namespace textfeed::loader
