// Total-Text reader (docs/dataset_layouts.md "Total-Text"): one gt file per image,
// poly_gt_<stem>.txt, each word a record `x: [[x1 x2 ...]], y: [[y1 y2 ...]], ornt: [u'c'],
// transcriptions: [u'TEXT']`. NumPy wraps long arrays, so a record may run over several lines: a
// record starts at a line beginning with "x:" and takes the lines up to the next. The arrays may
// also read `array([[...]], dtype=int16)` and the text u'..', '..', u"..", "..". "#" = ignored.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loader/readers/dataset.h"
#include "loader/readers/detail/paired_folder.h"
#include "loader/readers/detail/text.h"
#include "loader/readers/detail/words.h"

namespace textfeed::loader {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// The numbers of the array after `key` ("x:") in `rec`, from `*pos` on; `*pos` moves past its
// "]]". Returns why it is bad, or "".
std::string read_array(std::string_view rec, std::string_view key, size_t* pos,
                       std::vector<double>* out) {
  const size_t k = rec.find(key, *pos);
  if (k == std::string_view::npos) return std::string("no array ").append(key);
  const size_t open = rec.find("[[", k);
  const size_t close = open == std::string_view::npos ? open : rec.find("]]", open);
  if (close == std::string_view::npos) return std::string("no [[ ... ]] after ").append(key);
  const std::string_view body = rec.substr(open + 2, close - open - 2);
  out->clear();
  size_t i = 0;
  while (i < body.size()) {
    while (i < body.size() &&
           (body[i] == ' ' || body[i] == ',' || body[i] == '\t' || body[i] == '\n'))
      ++i;
    size_t j = i;
    while (j < body.size() && body[j] != ' ' && body[j] != ',' && body[j] != '\t' &&
           body[j] != '\n')
      ++j;
    if (j == i) break;
    double v = 0;
    const std::string_view field = body.substr(i, j - i);
    const bool finite = internal::parse_number(field, &v);
    if (!finite || !internal::finite_as_float(v)) {
      std::string why(key);  // appended, not concatenated: GCC 12 warns (-Wrestrict) on the chain
      why.append(" holds '").append(field.substr(0, 32));
      why.append(finite ? "', out of range of a 32-bit float" : "', not a finite number");
      return why;
    }
    out->push_back(v);
    i = j;
  }
  *pos = close + 2;
  return {};
}

// The transcription of `rec`: what the quotes after "transcriptions: [" enclose (u'..', "..").
std::optional<std::string_view> read_text(std::string_view rec, size_t from) {
  const size_t k = rec.find("transcriptions:", from);
  if (k == std::string_view::npos) return std::nullopt;
  size_t i = rec.find('[', k);
  const size_t end = rec.rfind(']');
  if (i == std::string_view::npos || end == std::string_view::npos || end < i) return std::nullopt;
  std::string_view inner = trim(rec.substr(i + 1, end - i - 1));
  if (!inner.empty() && (inner.front() == 'u' || inner.front() == 'b')) inner.remove_prefix(1);
  if (inner.size() < 2 || (inner.front() != '\'' && inner.front() != '"') ||
      inner.back() != inner.front())
    return std::nullopt;
  return inner.substr(1, inner.size() - 2);
}

// One record (its lines joined with '\n') into `rec`; returns why it is bad, or "".
std::string parse_record(std::string_view record, int line, const ReaderOptions& o,
                         SampleRecord& rec, std::vector<double>& xs, std::vector<double>& ys,
                         std::vector<float>& xy) {
  if (record.find('\0') != std::string_view::npos) return "record contains a NUL byte";
  size_t pos = 0;
  if (std::string why = read_array(record, "x:", &pos, &xs); !why.empty()) return why;
  if (std::string why = read_array(record, "y:", &pos, &ys); !why.empty()) return why;
  if (xs.size() != ys.size())
    return std::to_string(xs.size()) + " x but " + std::to_string(ys.size()) + " y coordinates";
  if (xs.size() < 3) return std::to_string(xs.size()) + " points; a polygon needs at least 3";
  const std::optional<std::string_view> text = read_text(record, pos);
  if (!text) return "no quoted text in 'transcriptions: [...]'";
  xy.clear();
  for (size_t i = 0; i < xs.size(); ++i)
    xy.insert(xy.end(), {static_cast<float>(xs[i]), static_cast<float>(ys[i])});
  const unsigned char label = *text == "#" ? kLabelIgnored : kLabelValid;
  internal::add_polygon_word(rec, xy, label, *text, line, o);
  return {};
}

Status parse_gt(const std::string& path, const std::string& shown, const ReaderOptions& o,
                SampleRecord& rec, std::vector<BadRecord>& bad) {
  TF_ASSIGN_OR_RETURN(std::string content, internal::read_text_file(path));
  const std::vector<std::string_view> lines = internal::split_lines(internal::strip_bom(content));
  std::vector<double> xs, ys;
  std::vector<float> xy;
  std::string record;
  int record_line = 0;
  auto flush = [&]() -> Status {
    if (record_line == 0) return Status();
    TF_RETURN_IF_ERROR(internal::check_word_limit(rec, shown, record_line));
    if (std::string why = parse_record(record, record_line, o, rec, xs, ys, xy); !why.empty())
      bad.push_back({shown, record_line, std::move(why)});
    record.clear();
    record_line = 0;
    return Status();
  };
  for (size_t li = 0; li < lines.size(); ++li) {
    const std::string_view line = trim(internal::strip_bom(lines[li]));
    if (line.empty()) continue;
    if (line.starts_with("x:")) {
      TF_RETURN_IF_ERROR(flush());
      record_line = static_cast<int>(li) + 1;
    } else if (record_line == 0) {
      bad.push_back(
          {shown, static_cast<int>(li) + 1, "line does not start a record ('x: [[...]], y: ...')"});
      continue;
    }
    record.append(line).push_back('\n');
  }
  return flush();
}

// poly_gt_<stem>.txt (the release), gt_<stem>.txt (some conversions), <stem>.txt.
std::optional<std::string> gt_stem(const std::string& name) {
  if (!name.ends_with(".txt") || name.size() <= 4) return std::nullopt;
  std::string stem = name.substr(0, name.size() - 4);
  for (std::string_view prefix : {"poly_gt_", "gt_"})
    if (stem.starts_with(prefix) && stem.size() > prefix.size()) return stem.substr(prefix.size());
  return stem;
}

}  // namespace

Result<Dataset> read_totaltext(const std::string& root, const ReaderOptions& options) {
  return internal::read_paired_folder(root, options,
                                      {ReaderFormat::kTotalText, "Total-Text", gt_stem, parse_gt});
}

}  // namespace textfeed::loader
