// Field tables: an options struct described once, as rows — name, member, kind, bound, one-line
// doc — from which its text parsing (CLI flags, Python keywords given as text), its bound checks,
// its list of names, its one-line description and its documentation all come. Adding an option
// is one row. The cross-field rules (lo <= hi of two fields, a product that must be an integer)
// stay with the struct's own validate(), after the table's per-field checks.
//
// Past the 250-line header cap on purpose: what runs over a table's rows is templates on the
// options struct, which must be seen where the table is used.
//
// A row reads and writes its field through a member pointer (numbers, flags, ranges, triples,
// texts, lists of texts) or through two functions made from one (enums, whose names come with the
// row).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/status.h"

namespace textfeed {

// The closed interval [lo, hi] a value is drawn from, uniformly.
struct UniformRange {
  double lo = 0;
  double hi = 0;
  friend bool operator==(const UniformRange&, const UniformRange&) = default;
};

enum class FieldKind : unsigned char {
  kInt,       // int; text: a decimal integer
  kDouble,    // double; text: a finite decimal number
  kBool,      // bool; text: true|false|1|0
  kEnum,      // an enum; text: one of the row's names
  kFactor,    // UniformRange of a factor; text "lo,hi", or one b >= 0 for [max(0, 1 - b), 1 + b]
  kShift,     // UniformRange of a shift; text "lo,hi", or one h >= 0 for [-h, h]
  kTriple,    // float[3]; text "a,b,c" (one per image plane)
  kText,      // std::string; text: itself. Bound: its length in bytes; never a NUL byte
  kTextList,  // std::vector<std::string>, a set of names (order and repeats mean nothing when two
              // are compared); text "a,b,c" ('' none; empty items dropped, so no name holds ',').
              // Bound: the number of names; each name never holds a NUL byte
  kUint64,    // uint64_t; text: decimal digits (no sign)
};

// One name of an enum field, with its value.
struct EnumName {
  std::string_view name;
  int value;
};

// The bound of a number, or of each end of a range, or of each value of a triple:
// [lo, hi], an end excluded when open; `zero_is_off`: 0 is allowed besides (a switch). A text's
// bound is on its length in bytes, a text list's on its number of names.
struct FieldBound {
  double lo = 0, hi = 0;
  bool lo_open = false, hi_open = false;
  bool zero_is_off = false;
  bool holds(double v) const {  // NaN fails
    if (zero_is_off && v == 0) return true;
    return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  }
  std::string text() const;  // "[8, 16384]", "(0, 1]", "0 (off) or [32, 32768]"
};

template <class O>
struct Field {
  std::string_view name;
  FieldKind kind = FieldKind::kInt;
  std::string_view doc;     // one line
  std::string_view family;  // "" when every profile reads it, else the family whose chain does
  FieldBound bound;         // numbers, ranges and triples
  std::span<const EnumName> names;  // kEnum
  int O::*i = nullptr;
  double O::*d = nullptr;
  bool O::*b = nullptr;
  UniformRange O::*r = nullptr;
  float (O::*t)[3] = nullptr;
  int (*get_enum)(const O&) = nullptr;
  void (*set_enum)(O&, int) = nullptr;
  std::string O::*s = nullptr;
  std::vector<std::string> O::*l = nullptr;
  uint64_t O::*u = nullptr;
  // kText, kTextList: what each text (each name of a list) must be beyond its bound and NUL-free
  // (a folder below a root, a file name stem); null: anything. Errors: kInvalidArgument naming
  // the row (`name`) and the rule.
  Status (*text_rule)(std::string_view name, const std::string& value) = nullptr;
};

// Row makers, for tables written as constexpr arrays.
template <class O>
constexpr Field<O> int_field(std::string_view name, int O::*m, FieldBound bound,
                             std::string_view doc, std::string_view family = {}) {
  Field<O> f{name, FieldKind::kInt, doc, family, bound};
  f.i = m;
  return f;
}
template <class O>
constexpr Field<O> double_field(std::string_view name, double O::*m, FieldBound bound,
                                std::string_view doc, std::string_view family = {}) {
  Field<O> f{name, FieldKind::kDouble, doc, family, bound};
  f.d = m;
  return f;
}
template <class O>
constexpr Field<O> bool_field(std::string_view name, bool O::*m, std::string_view doc,
                              std::string_view family = {}) {
  Field<O> f{name, FieldKind::kBool, doc, family};
  f.b = m;
  return f;
}
template <class O>
constexpr Field<O> range_field(std::string_view name, FieldKind kind, UniformRange O::*m,
                               FieldBound bound, std::string_view doc,
                               std::string_view family = {}) {
  Field<O> f{name, kind, doc, family, bound};
  f.r = m;
  return f;
}
template <class O>
constexpr Field<O> triple_field(std::string_view name, float (O::*m)[3], FieldBound bound,
                                std::string_view doc, std::string_view family = {}) {
  Field<O> f{name, FieldKind::kTriple, doc, family, bound};
  f.t = m;
  return f;
}
template <class O>
constexpr Field<O> text_field(std::string_view name, std::string O::*m, FieldBound bytes,
                              Status (*rule)(std::string_view, const std::string&),
                              std::string_view doc, std::string_view family = {}) {
  Field<O> f{name, FieldKind::kText, doc, family, bytes};
  f.s = m;
  f.text_rule = rule;
  return f;
}
template <class O>
constexpr Field<O> text_list_field(std::string_view name, std::vector<std::string> O::*m,
                                   FieldBound count,
                                   Status (*rule)(std::string_view, const std::string&),
                                   std::string_view doc, std::string_view family = {}) {
  Field<O> f{name, FieldKind::kTextList, doc, family, count};
  f.l = m;
  f.text_rule = rule;
  return f;
}
template <class O>
constexpr Field<O> uint64_field(std::string_view name, uint64_t O::*m, FieldBound bound,
                                std::string_view doc, std::string_view family = {}) {
  Field<O> f{name, FieldKind::kUint64, doc, family, bound};
  f.u = m;
  return f;
}
// The class of a member pointer's member.
template <class T>
struct member_class;
template <class C, class M>
struct member_class<M C::*> {
  using type = C;
};

template <auto Member, class O>
int get_enum_member(const O& o) {
  return static_cast<int>(o.*Member);
}
template <auto Member, class O>
void set_enum_member(O& o, int v) {
  using E = std::remove_reference_t<decltype(o.*Member)>;
  o.*Member = static_cast<E>(v);
}
// An enum field: `Member` is a pointer to an enum member of its options struct.
template <auto Member, class O = typename member_class<decltype(Member)>::type>
constexpr Field<O> enum_field(std::string_view name, std::span<const EnumName> names,
                              std::string_view doc, std::string_view family = {}) {
  Field<O> f{name, FieldKind::kEnum, doc, family, {}};
  f.names = names;
  f.get_enum = &get_enum_member<Member, O>;
  f.set_enum = &set_enum_member<Member, O>;
  return f;
}

namespace field_detail {
// Parsers of one field's text (base/field_table.cc). Errors: kInvalidArgument
// "option NAME = 'TEXT': expected ...".
Status parse_int(std::string_view name, std::string_view text, int& out);
Status parse_double(std::string_view name, std::string_view text, double& out);
Status parse_bool(std::string_view name, std::string_view text, bool& out);
Status parse_range(std::string_view name, std::string_view text, bool factor, UniformRange& out);
Status parse_triple(std::string_view name, std::string_view text, float out[3]);
Status parse_enum(std::string_view name, std::string_view text, std::span<const EnumName> names,
                  int& out);
Status parse_uint64(std::string_view name, std::string_view text, uint64_t& out);
std::vector<std::string> split_list(std::string_view text);  // "a,,b" -> {a, b}; "" -> {}
std::string join_list(const std::vector<std::string>& names);
std::string_view enum_text(std::span<const EnumName> names, int value);  // "?" when none
std::string number_text(double v);                                       // shortest exact
// "WHAT NAME = VALUE: must be in BOUND"
Status out_of_bound(std::string_view what, std::string_view name, const std::string& value,
                    const FieldBound& bound);
// A text's or a list's checks: NUL-free, its length (its count) in the bound, the rule.
Status check_text(std::string_view what, std::string_view name, const std::string& value,
                  const FieldBound& bytes, Status (*rule)(std::string_view, const std::string&));
Status check_list(std::string_view what, std::string_view name,
                  const std::vector<std::string>& values, const FieldBound& count,
                  Status (*rule)(std::string_view, const std::string&));
Status check_uint64(std::string_view what, std::string_view name, uint64_t v,
                    const FieldBound& bound);
// A text list as a set: sorted, repeats dropped.
std::vector<std::string> as_set(const std::vector<std::string>& names);
}  // namespace field_detail

// The row named `name`; null when none is.
template <class O>
const Field<O>* find_field(std::span<const Field<O>> table, std::string_view name) {
  for (const Field<O>& f : table)
    if (f.name == name) return &f;
  return nullptr;
}

// Every row's name, ", " separated, in table order.
template <class O>
std::string field_names(std::span<const Field<O>> table) {
  std::string s;
  for (const Field<O>& f : table) {
    if (!s.empty()) s += ", ";
    s += f.name;
  }
  return s;
}

template <class O>
Status set_field_text(O& o, const Field<O>& f, std::string_view text);

// Sets the row named `name` from its text (find_field, then set_field_text): what a NAME=VALUE
// edge does (the CLI's --set, Python's keywords given as text). Errors: kInvalidArgument
// "unknown option 'NAME' (known: ...)", or the row's parse error.
template <class O>
Status set_named_field(O& o, std::span<const Field<O>> table, std::string_view name,
                       std::string_view text) {
  const Field<O>* f = find_field(table, name);
  if (f == nullptr)
    return Status::invalid_argument("unknown option '" + std::string(name) +
                                    "' (known: " + field_names(table) + ")");
  return set_field_text(o, *f, text);
}

// Sets row f of `o` from its text. Does not check the bound (check_fields does, for the whole).
template <class O>
Status set_field_text(O& o, const Field<O>& f, std::string_view text) {
  namespace d = field_detail;
  switch (f.kind) {
    case FieldKind::kInt:
      return d::parse_int(f.name, text, o.*f.i);
    case FieldKind::kDouble:
      return d::parse_double(f.name, text, o.*f.d);
    case FieldKind::kBool:
      return d::parse_bool(f.name, text, o.*f.b);
    case FieldKind::kFactor:
    case FieldKind::kShift:
      return d::parse_range(f.name, text, f.kind == FieldKind::kFactor, o.*f.r);
    case FieldKind::kTriple:
      return d::parse_triple(f.name, text, o.*f.t);
    case FieldKind::kEnum: {
      int v = 0;
      TF_RETURN_IF_ERROR(d::parse_enum(f.name, text, f.names, v));
      f.set_enum(o, v);
      return Status();
    }
    case FieldKind::kText:
      o.*f.s = std::string(text);
      return Status();
    case FieldKind::kTextList:
      o.*f.l = d::split_list(text);
      return Status();
    case FieldKind::kUint64:
      return d::parse_uint64(f.name, text, o.*f.u);
  }
  return Status::internal("field " + std::string(f.name) + ": unknown kind");
}

// The text set_field_text() takes for row f's value in `o` (numbers exact).
template <class O>
std::string field_text(const O& o, const Field<O>& f) {
  namespace d = field_detail;
  switch (f.kind) {
    case FieldKind::kInt:
      return std::to_string(o.*f.i);
    case FieldKind::kDouble:
      return d::number_text(o.*f.d);
    case FieldKind::kBool:
      return o.*f.b ? "true" : "false";
    case FieldKind::kFactor:
    case FieldKind::kShift:
      return d::number_text((o.*f.r).lo) + "," + d::number_text((o.*f.r).hi);
    case FieldKind::kTriple:
      return d::number_text((o.*f.t)[0]) + "," + d::number_text((o.*f.t)[1]) + "," +
             d::number_text((o.*f.t)[2]);
    case FieldKind::kEnum:
      return std::string(d::enum_text(f.names, f.get_enum(o)));
    case FieldKind::kText:
      return o.*f.s;
    case FieldKind::kTextList:
      return d::join_list(o.*f.l);
    case FieldKind::kUint64:
      return std::to_string(o.*f.u);
  }
  return "?";
}

// Checks row f's value in `o` against its bound (an enum: against its names). Errors:
// kInvalidArgument "WHAT NAME = VALUE: must be ..." (a range: "need lo <= hi" when reversed).
template <class O>
Status check_field(const O& o, const Field<O>& f, std::string_view what) {
  namespace d = field_detail;
  switch (f.kind) {
    case FieldKind::kInt:
      if (!f.bound.holds(o.*f.i)) return d::out_of_bound(what, f.name, field_text(o, f), f.bound);
      return Status();
    case FieldKind::kDouble:
      if (!f.bound.holds(o.*f.d)) return d::out_of_bound(what, f.name, field_text(o, f), f.bound);
      return Status();
    case FieldKind::kBool:
      return Status();
    case FieldKind::kFactor:
    case FieldKind::kShift: {
      const UniformRange r = o.*f.r;
      if (f.bound.holds(r.lo) && f.bound.holds(r.hi) && r.lo <= r.hi) return Status();
      const std::string lo_op = f.bound.lo_open ? " < " : " <= ";
      const std::string hi_op = f.bound.hi_open ? " < " : " <= ";
      return Status::invalid_argument(std::string(what) + " " + std::string(f.name) + " = [" +
                                      d::number_text(r.lo) + ", " + d::number_text(r.hi) +
                                      "]: need " + d::number_text(f.bound.lo) + lo_op + "lo <= hi" +
                                      hi_op + d::number_text(f.bound.hi));
    }
    case FieldKind::kTriple:
      for (int c = 0; c < 3; ++c)
        if (!f.bound.holds((o.*f.t)[c]))
          return d::out_of_bound(what, f.name, d::number_text((o.*f.t)[c]), f.bound);
      return Status();
    case FieldKind::kEnum:
      if (d::enum_text(f.names, f.get_enum(o)) == "?")
        return Status::invalid_argument(std::string(what) + " " + std::string(f.name) + " = " +
                                        std::to_string(f.get_enum(o)) + ": not one of its names");
      return Status();
    case FieldKind::kText:
      return d::check_text(what, f.name, o.*f.s, f.bound, f.text_rule);
    case FieldKind::kTextList:
      return d::check_list(what, f.name, o.*f.l, f.bound, f.text_rule);
    case FieldKind::kUint64:
      return d::check_uint64(what, f.name, o.*f.u, f.bound);
  }
  return Status::internal("field " + std::string(f.name) + ": unknown kind");
}

// Every row of the table, in order; the first failure.
template <class O>
Status check_fields(const O& o, std::span<const Field<O>> table, std::string_view what) {
  for (const Field<O>& f : table) TF_RETURN_IF_ERROR(check_field(o, f, what));
  return Status();
}

// "name=value" of every row, space separated, in table order.
template <class O>
std::string describe_fields(const O& o, std::span<const Field<O>> table) {
  std::string s;
  for (const Field<O>& f : table) {
    if (!s.empty()) s += ' ';
    s.append(f.name).append("=").append(field_text(o, f));
  }
  return s;
}

// Whether row f holds the same value in `a` and `b` (numbers by value, a text list as a set).
template <class O>
bool same_field(const O& a, const O& b, const Field<O>& f) {
  switch (f.kind) {
    case FieldKind::kInt:
      return a.*f.i == b.*f.i;
    case FieldKind::kDouble:
      return a.*f.d == b.*f.d;
    case FieldKind::kBool:
      return a.*f.b == b.*f.b;
    case FieldKind::kEnum:
      return f.get_enum(a) == f.get_enum(b);
    case FieldKind::kFactor:
    case FieldKind::kShift:
      return a.*f.r == b.*f.r;
    case FieldKind::kTriple:
      return std::equal(a.*f.t, a.*f.t + 3, b.*f.t);
    case FieldKind::kText:
      return a.*f.s == b.*f.s;
    case FieldKind::kTextList:
      return field_detail::as_set(a.*f.l) == field_detail::as_set(b.*f.l);
    case FieldKind::kUint64:
      return a.*f.u == b.*f.u;
  }
  return false;
}

// The first row of `table` whose value differs between `a` and `b` (same_field); null when none.
template <class O>
const Field<O>* first_difference(const O& a, const O& b, std::span<const Field<O>> table) {
  for (const Field<O>& f : table)
    if (!same_field(a, b, f)) return &f;
  return nullptr;
}

// field_text() as same_field() compares: a text list as its sorted set of names.
template <class O>
std::string field_set_text(const O& o, const Field<O>& f) {
  if (f.kind == FieldKind::kTextList) return field_detail::join_list(field_detail::as_set(o.*f.l));
  return field_text(o, f);
}

// What a row's text looks like, for --help and docs: "int", "float", "true|false", the enum's
// names joined by '|', "lo,hi", "a,b,c", "text", "name,name,...", "uint64".
std::string field_syntax(FieldKind kind, std::span<const EnumName> names);
// The name of a kind at the edges that list rows (Python's _core.*_fields()): "int", "float",
// "bool", "enum", "factor_range", "shift_range", "triple", "text", "text_list", "uint64".
std::string_view field_kind_name(FieldKind kind);
// Whether a row of `kind` has a bound (every kind but bool and enum).
bool field_kind_bounded(FieldKind kind);
// A row's bound as text: FieldBound::text(), a uint64 row's ends as exact integers (its upper end
// 2^64 or more: "18446744073709551615").
std::string field_bound_text(FieldKind kind, const FieldBound& bound);

}  // namespace textfeed
