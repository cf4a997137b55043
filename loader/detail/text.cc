// Helpers for the readers (see text.h).
#include "loader/detail/text.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace textfeed::loader::internal {

namespace fs = std::filesystem;

std::string_view strip_bom(std::string_view s) {
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF &&
      static_cast<unsigned char>(s[1]) == 0xBB && static_cast<unsigned char>(s[2]) == 0xBF)
    s.remove_prefix(3);
  return s;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

bool is_blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

bool parse_number(std::string_view f, double* out) {
  while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
  while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) f.remove_suffix(1);
  if (!f.empty() && f.front() == '+') f.remove_prefix(1);
  if (f.empty()) return false;
  double v = 0;
  auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || ptr != f.data() + f.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return Status::not_found(path + ": no such file");
    return Status::from_errno("cannot open " + path, errno);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::io("cannot read " + path);
  return ss.str();
}

Result<std::vector<std::string>> list_files(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory)
      return Status::not_found(dir + ": no such folder");
    return Status::io("cannot list " + dir + ": " + ec.message());
  }
  std::vector<std::string> names;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (name.empty() || name[0] == '.' || !it->is_regular_file(type_ec)) continue;
    names.push_back(std::move(name));
  }
  if (ec) return Status::io("cannot list " + dir + ": " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// A folder name below the root: relative, non-empty, no "..".
bool is_plain_subdir(const std::string& name) {
  if (name.empty()) return false;
  const fs::path p(name);
  if (p.is_absolute() || p.has_root_name()) return false;
  for (const fs::path& part : p)
    if (part == "..") return false;
  return true;
}

}  // namespace

Status validate_options(const ReaderOptions& o) {
  if (!std::isfinite(o.drop_under_area) || o.drop_under_area < 0)
    return Status::invalid_argument(
        "ReaderOptions.drop_under_area must be a finite area >= 0 px^2");
  if (!std::isfinite(o.ignore_under_area) || o.ignore_under_area < 0)
    return Status::invalid_argument(
        "ReaderOptions.ignore_under_area must be a finite area >= 0 px^2 (0 = off)");
  if (!is_plain_subdir(o.images_dir))
    return Status::invalid_argument("ReaderOptions.images_dir '" + o.images_dir +
                                    "' must be a folder name below the dataset root");
  if (!is_plain_subdir(o.gt_dir))
    return Status::invalid_argument("ReaderOptions.gt_dir '" + o.gt_dir +
                                    "' must be a folder name below the dataset root");
  return Status();
}

}  // namespace textfeed::loader::internal
