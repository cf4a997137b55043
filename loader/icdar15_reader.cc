// ICDAR-2015 reader: images/<stem>.<ext> paired by name with gt/gt_<stem>.txt (TARGETS.md §1.1).
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "loader/dataset.h"
#include "loader/detail/text.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;

bool is_image_extension(std::string ext) {
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp" || ext == ".webp" ||
         ext == ".tif" || ext == ".tiff";
}

bool is_ignored_text(std::string_view line, std::string_view text, IgnoreText rule) {
  if (rule == IgnoreText::kSubstring) return line.find("###") != std::string_view::npos;
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  return text == "###" || text == "*";
}

// Parses one gt file into `rec`, listing bad lines in `bad`.
Status parse_gt_file(const std::string& path, const std::string& shown, const ReaderOptions& o,
                     SampleRecord& rec, std::vector<BadRecord>& bad) {
  TF_ASSIGN_OR_RETURN(std::string content, internal::read_text_file(path));
  const std::vector<std::string_view> lines = internal::split_lines(internal::strip_bom(content));
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string_view line = internal::strip_bom(lines[li]);
    const int line_no = static_cast<int>(li) + 1;
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank line
    Quad q;
    size_t pos = 0;
    std::string reason;
    for (int k = 0; k < 8; ++k) {
      const size_t comma = line.find(',', pos);
      if (comma == std::string_view::npos && k < 7) {
        reason = "expected 8 coordinates, found " + std::to_string(k + 1) + " fields";
        break;
      }
      const std::string_view field =
          line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
      double v;
      if (!internal::parse_number(field, &v)) {
        reason = "coordinate " + std::to_string(k + 1) + " is not a finite number: '" +
                 std::string(field.substr(0, 32)) + "'";
        break;
      }
      q.xy[k] = static_cast<float>(v);
      pos = comma == std::string_view::npos ? line.size() : comma + 1;
    }
    if (!reason.empty()) {
      bad.push_back({shown, line_no, reason});
      continue;
    }
    const std::string_view text = pos < line.size() ? line.substr(pos) : std::string_view();
    rec.quads.push_back(q);
    rec.labels.push_back(is_ignored_text(line, text, o.ignore_text) ? kLabelIgnored : kLabelValid);
    rec.texts.emplace_back(text);
    rec.lines.push_back(line_no);
  }
  return Status();
}

}  // namespace

Result<Dataset> read_icdar15(const std::string& root_in, const ReaderOptions& o) {
  std::error_code ec;
  const fs::path root = fs::absolute(root_in, ec);
  const fs::path images = root / o.images_dir, gt = root / o.gt_dir;
  if (!fs::is_directory(images)) return Status::not_found("ICDAR-2015 dataset " + root.string() + ": no folder " + images.string());
  if (!fs::is_directory(gt)) return Status::not_found("ICDAR-2015 dataset " + root.string() + ": no folder " + gt.string());

  Dataset ds;
  ds.root = root.string();
  ds.format = DatasetFormat::kIcdar15;
  std::map<std::string, std::string> image_by_stem;  // stem -> file name
  for (const auto& e : fs::directory_iterator(images, ec)) {
    if (!e.is_regular_file() || !is_image_extension(e.path().extension().string())) continue;
    const std::string stem = e.path().stem().string();
    auto [it, inserted] = image_by_stem.emplace(stem, e.path().filename().string());
    if (!inserted)
      ds.bad.push_back({(fs::path(o.images_dir) / e.path().filename()).string(), 0,
                        "two images share the stem '" + stem + "' (kept " + it->second + ")"});
  }
  if (ec) return Status::io("cannot list " + images.string() + ": " + ec.message());
  std::map<std::string, std::string> gt_by_stem;
  for (const auto& e : fs::directory_iterator(gt, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || e.path().extension() != ".txt") continue;
    if (name.rfind("gt_", 0) != 0) {
      ds.bad.push_back({(fs::path(o.gt_dir) / name).string(), 0, "gt file name does not start with 'gt_'"});
      continue;
    }
    gt_by_stem.emplace(e.path().stem().string().substr(3), name);
  }
  if (ec) return Status::io("cannot list " + gt.string() + ": " + ec.message());

  for (const auto& [stem, gt_name] : gt_by_stem)
    if (!image_by_stem.count(stem))
      ds.bad.push_back({(fs::path(o.gt_dir) / gt_name).string(), 0, "no image named '" + stem + ".*' in " + o.images_dir + "/"});

  for (const auto& [stem, image_name] : image_by_stem) {
    SampleRecord rec;
    rec.image = (fs::path(o.images_dir) / image_name).string();
    auto g = gt_by_stem.find(stem);
    if (g == gt_by_stem.end()) {
      ds.bad.push_back({rec.image, 0, "no ground truth file gt_" + stem + ".txt; kept with no words"});
    } else {
      rec.annotation = (fs::path(o.gt_dir) / g->second).string();
      Status s = parse_gt_file((gt / g->second).string(), rec.annotation, o, rec, ds.bad);
      if (!s.ok()) {
        ds.bad.push_back({rec.annotation, 0, s.message()});
        continue;
      }
    }
    ds.samples.push_back(std::move(rec));
  }
  std::sort(ds.samples.begin(), ds.samples.end(),
            [](const SampleRecord& a, const SampleRecord& b) { return a.image < b.image; });
  return ds;
}

}  // namespace textfeed::loader
