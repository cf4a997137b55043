// The images/ + gt/ folder pairing of ICDAR-2015, Total-Text and CTW1500 (detail/paired_folder.h).
#include "loader/readers/detail/paired_folder.h"

#include <algorithm>
#include <filesystem>

#include "loader/readers/detail/text.h"
#include "loader/readers/detail/words.h"

namespace textfeed::loader::internal {
namespace {

namespace fs = std::filesystem;

// The label files by the stem of their image; two for one stem: the first (by name) is kept.
StemMap index_labels(const std::vector<std::string>& files, const std::vector<NonRegularEntry>& odd,
                     const ReaderOptions& o, const PairedFolderFormat& fmt,
                     std::vector<BadRecord>& bad) {
  std::vector<std::string> names = files;
  for (const NonRegularEntry& e : odd) names.push_back(e.name);  // fails to read later, naming it
  std::sort(names.begin(), names.end());
  StemMap by_stem;
  for (const std::string& name : names) {
    const std::optional<std::string> stem = fmt.stem_of(name);
    if (!stem) {
      if (std::string why = fmt.misnamed ? fmt.misnamed(name) : ""; !why.empty())
        bad.push_back({rel_path(o.gt_dir, name), 0, std::move(why)});
      continue;
    }
    auto [it, fresh] = by_stem.emplace(*stem, name);
    if (!fresh)
      bad.push_back(
          {rel_path(o.gt_dir, name), 0,
           "another label file pairs with image '" + *stem + "' (kept " + it->second + ")"});
  }
  return by_stem;
}

}  // namespace

Status check_word_limit(const SampleRecord& rec, const std::string& shown, int line) {
  if (rec.poly_points.size() < kMaxWordsPerImage) return Status();
  return Status::invalid_argument(shown + " has more than " + std::to_string(kMaxWordsPerImage) +
                                  " words (line " + std::to_string(line) + ")");
}

Result<Dataset> read_paired_folder(const std::string& root_in, const ReaderOptions& o,
                                   const PairedFolderFormat& fmt) {
  TF_RETURN_IF_ERROR(validate_options(o));
  std::error_code ec;
  const fs::path root = fs::absolute(root_in, ec).lexically_normal();
  const fs::path images = root / o.images_dir, gt = root / o.gt_dir;
  for (const fs::path& dir : {images, gt})
    if (!fs::is_directory(dir, ec))
      return Status::not_found(std::string(fmt.name) + " dataset " + root.string() +
                               ": no folder " + dir.string());
  std::vector<NonRegularEntry> odd_images, odd_gt;
  TF_ASSIGN_OR_RETURN(const std::vector<std::string> image_files,
                      list_files(images.string(), &odd_images));
  TF_ASSIGN_OR_RETURN(const std::vector<std::string> gt_files, list_files(gt.string(), &odd_gt));
  Dataset ds;
  ds.root = root.string();
  ds.format = fmt.format;
  report_odd_images(odd_images, o.images_dir, ds.bad);
  const StemMap image_by_stem = index_images(image_files, o.images_dir, ds.bad);
  const StemMap label_by_stem = index_labels(gt_files, odd_gt, o, fmt, ds.bad);
  for (const auto& [stem, name] : label_by_stem)
    if (!image_by_stem.count(stem))
      ds.bad.push_back({rel_path(o.gt_dir, name), 0,
                        "no image named '" + stem + ".*' in " + o.images_dir + "/; file not used"});
  for (const auto& [stem, image_name] : image_by_stem) {
    SampleRecord rec;
    rec.image = rel_path(o.images_dir, image_name);
    const auto g = label_by_stem.find(stem);
    if (g == label_by_stem.end()) {
      ds.bad.push_back(
          {rec.image, 0,
           fmt.unlabelled ? fmt.unlabelled(o, stem)
                          : "no label file for it in " + o.gt_dir + "/; image kept with no words"});
    } else {
      rec.annotation = rel_path(o.gt_dir, g->second);
      if (Status s = fmt.parse((gt / g->second).string(), rec.annotation, o, rec, ds.bad);
          !s.ok()) {
        ds.bad.push_back({rec.annotation, 0, s.message() + "; image left out"});
        continue;
      }
    }
    ds.samples.push_back(std::move(rec));
  }
  std::sort(ds.samples.begin(), ds.samples.end(),
            [](const SampleRecord& a, const SampleRecord& b) { return a.image < b.image; });
  return ds;
}

}  // namespace textfeed::loader::internal
