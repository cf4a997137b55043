// Field tables: an options struct described once, as rows — name, member, kind, bound, one-line
// doc — from which its text parsing (CLI flags, Python keywords given as text), its bound checks,
// its list of names, its one-line description and its documentation all come. Adding an option
// is one row. The cross-field rules (lo <= hi of two fields, a product that must be an integer)
// stay with the struct's own validate(), after the table's per-field checks.
//
// A row reads and writes its field through a member pointer (numbers, flags, ranges, triples) or
// through two functions made from one (enums, whose names come with the row).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/status.h"

namespace textfeed {

// The closed interval [lo, hi] a value is drawn from, uniformly.
struct UniformRange {
  double lo = 0;
  double hi = 0;
  friend bool operator==(const UniformRange&, const UniformRange&) = default;
};

enum class FieldKind : unsigned char {
  kInt,     // int; text: a decimal integer
  kDouble,  // double; text: a finite decimal number
  kBool,    // bool; text: true|false|1|0
  kEnum,    // an enum; text: one of the row's names
  kFactor,  // UniformRange of a factor; text "lo,hi", or one b >= 0 for [max(0, 1 - b), 1 + b]
  kShift,   // UniformRange of a shift; text "lo,hi", or one h >= 0 for [-h, h]
  kTriple,  // float[3]; text "a,b,c" (one per image plane)
};

// One name of an enum field, with its value.
struct EnumName {
  std::string_view name;
  int value;
};

// The bound of a number, or of each end of a range, or of each value of a triple:
// [lo, hi], an end excluded when open; `zero_is_off`: 0 is allowed besides (a switch).
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
std::string_view enum_text(std::span<const EnumName> names, int value);  // "?" when none
std::string number_text(double v);                                       // shortest exact
// "WHAT NAME = VALUE: must be in BOUND"
Status out_of_bound(std::string_view what, std::string_view name, const std::string& value,
                    const FieldBound& bound);
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
  for (const Field<O>& f : table) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
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
  for (const Field<O>& f : table)
    s += (s.empty() ? "" : " ") + std::string(f.name) + "=" + field_text(o, f);
  return s;
}

// What a row's text looks like, for --help and docs: "int", "float", "true|false", the enum's
// names joined by '|', "lo,hi", "a,b,c".
std::string field_syntax(FieldKind kind, std::span<const EnumName> names);

}  // namespace textfeed
