// Dataset: counts, paths, the root-confinement rule for image names, and format detection.
#include "loader/dataset.h"

#include <filesystem>
#include <vector>

#include "loader/detail/text.h"
#include "loader/detail/ufo_layout.h"

namespace textfeed::loader {

size_t Dataset::num_words() const {
  size_t n = 0;
  for (const SampleRecord& s : samples) n += s.quads.size();
  return n;
}

size_t Dataset::num_ignored() const {
  size_t n = 0;
  for (const SampleRecord& s : samples)
    for (unsigned char l : s.labels) n += (l == kLabelIgnored);
  return n;
}

std::string Dataset::image_path(size_t i) const {
  return (std::filesystem::path(root) / samples.at(i).image).string();
}

Result<std::string> safe_join(const std::string& root, const std::string& name) {
  namespace fs = std::filesystem;
  if (name.empty()) return Status::invalid_argument("empty image name");
  if (name.find('\0') != std::string::npos)
    return Status::invalid_argument("image name contains a NUL byte");
  const fs::path rel(name);
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    return Status::invalid_argument("image name '" + name +
                                    "' is absolute; names must be relative to the dataset root");
  int depth = 0;
  for (const fs::path& part : rel.lexically_normal()) {
    if (part == "..") {
      if (--depth < 0)
        return Status::invalid_argument("image name '" + name + "' escapes the dataset root");
    } else if (part != "." && !part.empty()) {
      ++depth;
    }
  }
  return (fs::path(root) / rel.lexically_normal()).string();
}

Result<Dataset> open_dataset(const std::string& path, const ReaderOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec).lexically_normal();
  if (fs::is_regular_file(p, ec)) {
    if (p.extension() != ".json")
      return Status::invalid_argument(
          path + ": a dataset is a folder (ICDAR-2015 or UFO) or a UFO .json file");
    // root/ufo/x.json -> root; any other x.json -> its own folder.
    const fs::path dir = p.parent_path();
    const fs::path root = dir.filename() == "ufo" ? dir.parent_path() : dir;
    return read_ufo(root.string(), p.string(), options);
  }
  if (!fs::is_directory(p, ec)) {
    if (fs::exists(p, ec)) return Status::invalid_argument(path + ": a dataset is a folder or a UFO .json file, and this is neither");
    return Status::not_found(path + ": no such file or folder");
  }
  if (fs::is_directory(p / options.gt_dir, ec)) return read_icdar15(p.string(), options);
  return internal::open_ufo_folder(p, options);
}

}  // namespace textfeed::loader
