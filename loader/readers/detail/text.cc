// Helpers for the readers (see text.h).
#include "loader/readers/detail/text.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>

#include "base/file.h"

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
    size_t end = text.find_first_of("\r\n", start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
    if (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n') ++start;  // CR LF
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

bool finite_as_float(double v) {
  return std::isfinite(v) && std::abs(v) <= static_cast<double>(std::numeric_limits<float>::max());
}

Status refuse_utf16_or_32(std::string_view text, const std::string& path) {
  const auto starts = [&](std::string_view bom) { return text.substr(0, bom.size()) == bom; };
  // UTF-32 first: its little-endian mark begins with UTF-16's.
  if (starts(std::string_view("\xFF\xFE\0\0", 4)) || starts(std::string_view("\0\0\xFE\xFF", 4)))
    return Status::invalid_argument(
        path + " is UTF-32 text (it starts with a UTF-32 byte-order mark); save it as UTF-8");
  if (starts("\xFF\xFE") || starts("\xFE\xFF"))
    return Status::invalid_argument(
        path + " is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8");
  return Status();
}

Result<std::string> read_text_file(const std::string& path) {
  std::string text;
  TF_RETURN_IF_ERROR(read_regular_file(path, text, kMaxAnnotationFileBytes));
  TF_RETURN_IF_ERROR(refuse_utf16_or_32(text, path));
  return text;
}

const char* non_regular_kind(const fs::file_status& st) {
  return fs::is_directory(st)                                 ? "a folder"
         : fs::is_fifo(st)                                    ? "a FIFO"
         : fs::is_socket(st)                                  ? "a socket"
         : fs::is_character_file(st) || fs::is_block_file(st) ? "a device"
         : st.type() == fs::file_type::not_found              ? "a broken symlink"
                                                              : "not a regular file";
}

Result<std::vector<std::string>> list_files(const std::string& dir,
                                            std::vector<NonRegularEntry>* others) {
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
    if (name.empty() || name[0] == '.') continue;
    std::error_code type_ec;
    const fs::file_status st = it->status(type_ec);  // symlinks followed
    if (fs::is_regular_file(st)) {
      names.push_back(std::move(name));
    } else if (others) {
      others->push_back({std::move(name), non_regular_kind(st)});
    }
  }
  if (ec) return Status::io("cannot list " + dir + ": " + ec.message());
  std::sort(names.begin(), names.end());
  if (others)
    std::sort(others->begin(), others->end(),
              [](const NonRegularEntry& a, const NonRegularEntry& b) { return a.name < b.name; });
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
  return validate(o);  // the bounds every edge checks (split, illegibility, tags)
}

}  // namespace textfeed::loader::internal
