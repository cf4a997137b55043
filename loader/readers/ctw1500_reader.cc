// SCUT-CTW1500 reader (docs/dataset_layouts.md "CTW1500"): one label file per image, <stem>.txt or
// <stem>.xml. Every word has 14 points. The .txt comes in two forms, told apart by the count of
// numbers on the line: 32 (the training release: the box xmin, ymin, xmax, ymax, then 28 offsets
// from (xmin, ymin)) or 28 (absolute coordinates, the test release), the latter optionally
// followed by ",####<text>". The .xml holds <box> elements with <label> and <segs> (28 absolute
// numbers). Transcription "###" = ignored.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "loader/readers/dataset.h"
#include "loader/readers/detail/paired_folder.h"
#include "loader/readers/detail/text.h"
#include "loader/readers/detail/words.h"

namespace textfeed::loader {
namespace {

constexpr size_t kPoints = 14;

// Parses `field` as a coordinate into `*v`; returns why it is bad, or "".
std::string number(std::string_view field, int k, double* v) {
  if (!internal::parse_number(field, v))
    return "number " + std::to_string(k) + " is not a finite number: '" +
           std::string(field.substr(0, 32)) + "'";
  if (!internal::finite_as_float(*v))
    return "number " + std::to_string(k) + " is out of range of a 32-bit float";
  return {};
}

// The comma-separated numbers of `s` into `out`; returns why it is bad, or "".
std::string numbers(std::string_view s, std::vector<float>* out) {
  out->clear();
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = std::min(s.find(',', pos), s.size());
    double v = 0;
    if (std::string why = number(s.substr(pos, comma - pos), static_cast<int>(out->size()) + 1, &v);
        !why.empty())
      return why;
    out->push_back(static_cast<float>(v));
    pos = comma + 1;
  }
  return {};
}

// One .txt line into `rec`; returns why it is bad, or "".
std::string parse_txt_line(std::string_view line, int line_no, const ReaderOptions& o,
                           SampleRecord& rec, std::vector<float>& v) {
  if (line.find('\0') != std::string_view::npos) return "line contains a NUL byte";
  std::string_view text;
  if (const size_t t = line.find("####"); t != std::string_view::npos) {
    text = line.substr(t + 4);
    line = line.substr(0, t);
    if (!line.empty() && line.back() == ',') line.remove_suffix(1);
  }
  if (std::string why = numbers(line, &v); !why.empty()) return why;
  if (v.size() == 4 + 2 * kPoints) {  // box + offsets from its top-left
    const float x0 = v[0], y0 = v[1];
    v.erase(v.begin(), v.begin() + 4);
    for (size_t i = 0; i < v.size(); i += 2) {
      v[i] += x0;
      v[i + 1] += y0;
    }
  } else if (v.size() != 2 * kPoints) {
    return std::to_string(v.size()) +
           " numbers; a CTW1500 line has 32 (box + 28 offsets) or 28 (14 points)";
  }
  for (float c : v)
    if (!std::isfinite(c)) return "a point is out of range of a 32-bit float once the box is added";
  const unsigned char label = text == "###" ? kLabelIgnored : kLabelValid;
  internal::add_polygon_word(rec, v, label, text, line_no, o);
  return {};
}

Status parse_txt(const std::string& path, const std::string& shown, const ReaderOptions& o,
                 SampleRecord& rec, std::vector<BadRecord>& bad) {
  TF_ASSIGN_OR_RETURN(std::string content, internal::read_text_file(path));
  const std::vector<std::string_view> lines = internal::split_lines(internal::strip_bom(content));
  std::vector<float> v;
  for (size_t li = 0; li < lines.size(); ++li) {
    const std::string_view line = internal::strip_bom(lines[li]);
    const int line_no = static_cast<int>(li) + 1;
    if (internal::is_blank(line)) continue;
    TF_RETURN_IF_ERROR(internal::check_word_limit(rec, shown, line_no));
    if (std::string why = parse_txt_line(line, line_no, o, rec, v); !why.empty())
      bad.push_back({shown, line_no, std::move(why)});
  }
  return Status();
}

// The text between <tag> and </tag> in `box`, or nullopt.
std::optional<std::string_view> element_text(std::string_view box, std::string_view tag) {
  std::string open("<"), close("</");
  open.append(tag).push_back('>');
  close.append(tag).push_back('>');
  const size_t a = box.find(open);
  if (a == std::string_view::npos) return std::nullopt;
  const size_t b = box.find(close, a + open.size());
  if (b == std::string_view::npos) return std::nullopt;
  return box.substr(a + open.size(), b - a - open.size());
}

// XML's five predefined entities decoded; any other '&' is kept as written.
std::string unescape(std::string_view s) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    bool done = false;
    for (const auto& [name, c] : kEntities)
      if (s.substr(i, name.size()) == name) {
        out.push_back(c);
        i += name.size() - 1;
        done = true;
        break;
      }
    if (!done) out.push_back(s[i]);
  }
  return out;
}

// One <box> element into `rec`; returns why it is bad, or "".
std::string parse_box(std::string_view box, int line_no, const ReaderOptions& o, SampleRecord& rec,
                      std::vector<float>& v) {
  if (box.find('\0') != std::string_view::npos) return "<box> contains a NUL byte";
  const std::optional<std::string_view> segs = element_text(box, "segs");
  if (!segs) return "<box> has no <segs>...</segs>";
  if (std::string why = numbers(*segs, &v); !why.empty()) return "<segs>: " + why;
  if (v.size() != 2 * kPoints)
    return "<segs> has " + std::to_string(v.size()) + " numbers; CTW1500 has 28";
  const std::string text = unescape(element_text(box, "label").value_or(""));
  internal::add_polygon_word(rec, v, text == "###" ? kLabelIgnored : kLabelValid, text, line_no, o);
  return {};
}

Status parse_xml(const std::string& path, const std::string& shown, const ReaderOptions& o,
                 SampleRecord& rec, std::vector<BadRecord>& bad) {
  TF_ASSIGN_OR_RETURN(std::string content, internal::read_text_file(path));
  const std::string_view xml = internal::strip_bom(content);
  if (xml.find("<Annotations") == std::string_view::npos)
    return Status::invalid_argument(shown +
                                    ": no <Annotations> element; not a CTW1500 xml label file");
  std::vector<float> v;
  size_t pos = 0, line_at = 0;
  int line_no = 1;
  while ((pos = xml.find("<box", pos)) != std::string_view::npos) {
    for (; line_at < pos; ++line_at) line_no += xml[line_at] == '\n';
    const size_t end = xml.find("</box>", pos);
    if (end == std::string_view::npos) {
      bad.push_back({shown, line_no, "<box> is not closed by </box>"});
      break;
    }
    TF_RETURN_IF_ERROR(internal::check_word_limit(rec, shown, line_no));
    if (std::string why = parse_box(xml.substr(pos, end - pos), line_no, o, rec, v); !why.empty())
      bad.push_back({shown, line_no, std::move(why)});
    pos = end + 6;
  }
  return Status();
}

std::optional<std::string> label_stem(const std::string& name) {
  for (std::string_view ext : {".txt", ".xml"})
    if (name.size() > ext.size() && name.ends_with(ext))
      return name.substr(0, name.size() - ext.size());
  return std::nullopt;
}

Status parse_label(const std::string& path, const std::string& shown, const ReaderOptions& o,
                   SampleRecord& rec, std::vector<BadRecord>& bad) {
  if (path.ends_with(".xml")) return parse_xml(path, shown, o, rec, bad);
  return parse_txt(path, shown, o, rec, bad);
}

}  // namespace

Result<Dataset> read_ctw1500(const std::string& root, const ReaderOptions& options) {
  return internal::read_paired_folder(root, options,
                                      {ReaderFormat::kCtw1500, "CTW1500", label_stem, parse_label});
}

}  // namespace textfeed::loader
