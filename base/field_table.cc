// Field tables: the text of each kind of field, and the bound messages.
#include "base/field_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace textfeed {
namespace field_detail {
namespace {

Status bad_value(std::string_view name, std::string_view text, std::string_view expected) {
  return Status::invalid_argument("option " + std::string(name) + " = '" + std::string(text) +
                                  "': expected " + std::string(expected));
}

// from_chars, not strtod: the same text means the same number whatever the process's locale,
// and no hex floats.
bool to_double(std::string_view text, double& out) {
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() ||
      !std::isfinite(v))
    return false;
  out = v;
  return true;
}

}  // namespace

Status parse_int(std::string_view name, std::string_view text, int& out) {
  int v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
    return bad_value(name, text, "an integer");
  out = v;
  return Status();
}

Status parse_double(std::string_view name, std::string_view text, double& out) {
  if (!to_double(text, out)) return bad_value(name, text, "a finite decimal number");
  return Status();
}

Status parse_bool(std::string_view name, std::string_view text, bool& out) {
  if (text == "true" || text == "1") return out = true, Status();
  if (text == "false" || text == "0") return out = false, Status();
  return bad_value(name, text, "true or false");
}

Status parse_range(std::string_view name, std::string_view text, bool factor, UniformRange& out) {
  const std::string expected = factor ? "'lo,hi' or one number b >= 0 (for [max(0, 1 - b), 1 + b])"
                                      : "'lo,hi' or one number h >= 0 (for [-h, h])";
  const size_t comma = text.find(',');
  if (comma != std::string_view::npos) {
    double lo = 0, hi = 0;
    if (!to_double(text.substr(0, comma), lo) || !to_double(text.substr(comma + 1), hi))
      return bad_value(name, text, expected);
    if (lo > hi) return bad_value(name, text, expected + "; lo must not exceed hi");
    out = {lo, hi};
    return Status();
  }
  double x = 0;
  if (!to_double(text, x)) return bad_value(name, text, expected);
  if (x < 0) return bad_value(name, text, expected + "; a single number must not be negative");
  out = factor ? UniformRange{std::max(0.0, 1 - x), 1 + x} : UniformRange{-x, x};
  return Status();
}

Status parse_triple(std::string_view name, std::string_view text, float out[3]) {
  double v[3];
  std::string_view rest = text;
  for (int c = 0; c < 3; ++c) {
    const size_t comma = c < 2 ? rest.find(',') : rest.size();
    if (comma == std::string_view::npos || !to_double(rest.substr(0, comma), v[c]))
      return bad_value(name, text, "three finite numbers 'a,b,c' (one per image plane)");
    rest = comma < rest.size() ? rest.substr(comma + 1) : std::string_view();
  }
  for (int c = 0; c < 3; ++c) out[c] = static_cast<float>(v[c]);
  return Status();
}

Status parse_enum(std::string_view name, std::string_view text, std::span<const EnumName> names,
                  int& out) {
  for (const EnumName& n : names)
    if (n.name == text) return out = n.value, Status();
  return bad_value(name, text, field_syntax(FieldKind::kEnum, names));
}

Status parse_uint64(std::string_view name, std::string_view text, uint64_t& out) {
  uint64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
    return bad_value(name, text, "an integer in 0.." + std::to_string(UINT64_MAX));
  out = v;
  return Status();
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) out.emplace_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

std::string join_list(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) s += ',';
    s += names[i];
  }
  return s;
}

std::vector<std::string> as_set(const std::vector<std::string>& names) {
  std::vector<std::string> set = names;
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  return set;
}

std::string_view enum_text(std::span<const EnumName> names, int value) {
  for (const EnumName& n : names)
    if (n.value == value) return n.name;
  return "?";
}

std::string number_text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

Status out_of_bound(std::string_view what, std::string_view name, const std::string& value,
                    const FieldBound& bound) {
  return Status::invalid_argument(std::string(what) + " " + std::string(name) + " = " + value +
                                  ": must be " + (bound.zero_is_off ? "" : "in ") + bound.text());
}

Status check_text(std::string_view what, std::string_view name, const std::string& value,
                  const FieldBound& bytes, Status (*rule)(std::string_view, const std::string&)) {
  const std::string field = std::string(what) + " " + std::string(name);
  if (value.find('\0') != std::string::npos)
    return Status::invalid_argument(field + " contains a NUL byte");
  if (!bytes.holds(static_cast<double>(value.size())))
    return Status::invalid_argument(field + " is " + std::to_string(value.size()) +
                                    " bytes long: must be in " +
                                    field_bound_text(FieldKind::kText, bytes) + " bytes");
  return rule ? rule(name, value) : Status();
}

Status check_list(std::string_view what, std::string_view name,
                  const std::vector<std::string>& values, const FieldBound& count,
                  Status (*rule)(std::string_view, const std::string&)) {
  const std::string field = std::string(what) + " " + std::string(name);
  if (!count.holds(static_cast<double>(values.size())))
    return Status::invalid_argument(field + " has " + std::to_string(values.size()) +
                                    " names: must have " +
                                    field_bound_text(FieldKind::kTextList, count));
  for (const std::string& v : values) {
    if (v.find('\0') != std::string::npos)
      return Status::invalid_argument(field + " has a name with a NUL byte");
    // The list's text form ("a,b"; "" for none) must give it back: no empty name, no comma.
    if (v.empty()) return Status::invalid_argument(field + " has an empty name");
    if (v.find(',') != std::string::npos)
      return Status::invalid_argument(field + " has the name '" + v +
                                      "', which holds a comma (the list's separator)");
    if (rule) TF_RETURN_IF_ERROR(rule(name, v));
  }
  return Status();
}

Status check_uint64(std::string_view what, std::string_view name, uint64_t v,
                    const FieldBound& bound) {
  // Compared as integers: a double holds neither 2^64 - 1 nor every value near it.
  const uint64_t lo = bound.lo <= 0 ? 0 : static_cast<uint64_t>(bound.lo);
  const bool hi_unbounded = bound.hi >= 0x1p64;
  const uint64_t hi = hi_unbounded ? UINT64_MAX : static_cast<uint64_t>(bound.hi);
  const bool holds =
      (bound.zero_is_off && v == 0) ||
      ((bound.lo_open ? v > lo : v >= lo) && (hi_unbounded || (bound.hi_open ? v < hi : v <= hi)));
  if (holds) return Status();
  return Status::invalid_argument(
      std::string(what) + " " + std::string(name) + " = " + std::to_string(v) + ": must be " +
      (bound.zero_is_off ? "" : "in ") + field_bound_text(FieldKind::kUint64, bound));
}

}  // namespace field_detail

std::string FieldBound::text() const {
  using field_detail::number_text;
  std::string s = std::string(lo_open ? "(" : "[") + number_text(lo) + ", " + number_text(hi) +
                  (hi_open ? ")" : "]");
  return zero_is_off ? "0 (off) or in " + s : s;
}

std::string field_syntax(FieldKind kind, std::span<const EnumName> names) {
  switch (kind) {
    case FieldKind::kInt:
      return "int";
    case FieldKind::kDouble:
      return "float";
    case FieldKind::kBool:
      return "true|false";
    case FieldKind::kFactor:
    case FieldKind::kShift:
      return "lo,hi";
    case FieldKind::kTriple:
      return "a,b,c";
    case FieldKind::kText:
      return "text";
    case FieldKind::kTextList:
      return "name,name,...";
    case FieldKind::kUint64:
      return "uint64";
    case FieldKind::kEnum:
      break;
  }
  std::string s;
  for (const EnumName& n : names) {
    if (!s.empty()) s += '|';
    s += n.name;
  }
  return s;
}

std::string_view field_kind_name(FieldKind kind) {
  switch (kind) {
    case FieldKind::kInt:
      return "int";
    case FieldKind::kDouble:
      return "float";
    case FieldKind::kBool:
      return "bool";
    case FieldKind::kEnum:
      return "enum";
    case FieldKind::kFactor:
      return "factor_range";
    case FieldKind::kShift:
      return "shift_range";
    case FieldKind::kTriple:
      return "triple";
    case FieldKind::kText:
      return "text";
    case FieldKind::kTextList:
      return "text_list";
    case FieldKind::kUint64:
      return "uint64";
  }
  return "?";
}

bool field_kind_bounded(FieldKind kind) {
  return kind != FieldKind::kBool && kind != FieldKind::kEnum;
}

std::string field_bound_text(FieldKind kind, const FieldBound& bound) {
  if (kind != FieldKind::kUint64) return bound.text();
  const auto end = [](double v) {
    if (v <= 0) return std::string("0");
    return v >= 0x1p64 ? std::to_string(UINT64_MAX) : std::to_string(static_cast<uint64_t>(v));
  };
  const std::string s = std::string(bound.lo_open ? "(" : "[") + end(bound.lo) + ", " +
                        end(bound.hi) + (bound.hi_open ? ")" : "]");
  return bound.zero_is_off ? "0 (off) or in " + s : s;
}

}  // namespace textfeed
