// Dataset: counts, paths, and the root-confinement rule for image names.
#include "loader/dataset.h"

#include <filesystem>

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
    return Status::invalid_argument("image name '" + name + "' is absolute; names must be relative to the dataset root");
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

}  // namespace textfeed::loader
