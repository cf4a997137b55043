// Text helpers for the readers.
#include "loader/detail/text.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace textfeed::loader::internal {

std::string_view strip_bom(std::string_view s) {
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF &&
      static_cast<unsigned char>(s[1]) == 0xBB && static_cast<unsigned char>(s[2]) == 0xBF)
    s.remove_prefix(3);
  return s;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

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

}  // namespace textfeed::loader::internal
