// An options struct on the wire through its field table (base/field_table.h): each row is the
// field named wire_field_name(row name) of a Cap'n Proto struct (a range: NameLo and NameHi; a
// triple: a list of 3), set and read through Cap'n Proto's reflection, so that a new row needs
// only its field in protocol.capnp (tests/transport/recipe_schema_test.cc and
// spec_schema_test.cc check the schema against the tables). The wire codec
// (transport/wire_codec.cc) puts the recipe, the reader options and the sampler with it.
//
// The struct's field types follow the rows' kinds: Int32 or UInt32 for an int (a UInt32 holds the
// int's two's complement, as a static_cast does; reading back, a value past INT32_MAX is
// refused), Float64, Bool, the enum with the row's names in camelCase, Text, List(Text), UInt64,
// two Float64 for a range, List(Float32) for a triple. The values' bounds are the receiver's
// validate()'s; what is checked here is what a struct could hold that the options cannot: an
// enumerant this build does not know, a list longer than the row's bound, a triple of other than
// 3 values.
//
// Stateless: any thread may call these, each on its own builder or reader.
#pragma once

#include <capnp/dynamic.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/field_table.h"
#include "base/status.h"
#include "transport/wire.h"

namespace textfeed::transport::internal {

// A Text field as the bytes it holds, NULs included: Cap'n Proto's own conversion stops at the
// first NUL, which would hand the receiver a shorter name than the one sent (and hide the NUL from
// the checks that refuse it).
inline std::string text_bytes(capnp::Text::Reader t) { return std::string(t.begin(), t.size()); }
// And the other way: all of the string's bytes.
inline capnp::Text::Reader text_view(const std::string& s) {
  return capnp::Text::Reader(s.data(), s.size());
}

// "Struct.field", the name a message about a struct's field gives it.
inline std::string wire_name(const capnp::StructSchema& schema, const std::string& field) {
  return std::string(schema.getShortDisplayName().cStr()) + "." + field;
}

template <class O>
void put_field(capnp::DynamicStruct::Builder d, const O& o, const Field<O>& f) {
  const std::string n = wire_field_name(f.name);
  switch (f.kind) {
    case FieldKind::kInt:
      if (d.getSchema().getFieldByName(n).getType().which() == capnp::schema::Type::UINT32)
        return d.set(n, static_cast<uint32_t>(o.*f.i));
      return d.set(n, o.*f.i);
    case FieldKind::kDouble:
      return d.set(n, o.*f.d);
    case FieldKind::kBool:
      return d.set(n, o.*f.b);
    case FieldKind::kEnum: {
      const capnp::EnumSchema e = d.getSchema().getFieldByName(n).getType().asEnum();
      return d.set(n, capnp::DynamicEnum(e, static_cast<uint16_t>(f.get_enum(o))));
    }
    case FieldKind::kFactor:
    case FieldKind::kShift:
      d.set(n + "Lo", (o.*f.r).lo);
      return d.set(n + "Hi", (o.*f.r).hi);
    case FieldKind::kTriple: {
      auto list = d.init(n, 3).template as<capnp::DynamicList>();
      for (unsigned c = 0; c < 3; ++c) list.set(c, (o.*f.t)[c]);
      return;
    }
    case FieldKind::kText:
      return d.set(n, text_view(o.*f.s));
    case FieldKind::kTextList: {
      const std::vector<std::string>& names = o.*f.l;
      auto list = d.init(n, static_cast<unsigned>(names.size())).template as<capnp::DynamicList>();
      for (size_t k = 0; k < names.size(); ++k)
        list.set(static_cast<unsigned>(k), text_view(names[k]));
      return;
    }
    case FieldKind::kUint64:
      return d.set(n, o.*f.u);
  }
}

// Reads an int row: from Int32, or from UInt32 where a value past INT32_MAX is refused.
inline Status get_int(capnp::DynamicStruct::Reader d, const std::string& n, int& out) {
  if (d.getSchema().getFieldByName(n).getType().which() != capnp::schema::Type::UINT32) {
    out = d.get(n).as<int32_t>();
    return Status();
  }
  const uint32_t v = d.get(n).as<uint32_t>();
  if (v > static_cast<uint32_t>(INT32_MAX))
    return Status::invalid_argument(wire_name(d.getSchema(), n) + " = " + std::to_string(v) +
                                    " is out of range");
  out = static_cast<int>(v);
  return Status();
}

template <class O>
Status get_list_field(capnp::DynamicStruct::Reader d, const std::string& n, const Field<O>& f,
                      O& o) {
  const auto list = d.get(n).template as<capnp::DynamicList>();
  switch (f.kind) {
    case FieldKind::kTriple:
      if (list.size() != 3)
        return Status::corrupt(wire_name(d.getSchema(), n) + " has " + std::to_string(list.size()) +
                               " values, 3 are expected");
      for (unsigned c = 0; c < 3; ++c) (o.*f.t)[c] = list[c].template as<float>();
      return Status();
    case FieldKind::kTextList: {
      // A well-formed request for more than the options may hold: invalidArgument, as validate()
      // would say, and before its entries are read.
      if (static_cast<double>(list.size()) > f.bound.hi)
        return Status::invalid_argument(wire_name(d.getSchema(), n) + " has " +
                                        std::to_string(list.size()) + " entries, at most " +
                                        field_detail::number_text(f.bound.hi) + " are allowed");
      std::vector<std::string>& names = o.*f.l;
      names.clear();
      for (const capnp::DynamicValue::Reader v : list)
        names.push_back(text_bytes(v.template as<capnp::Text>()));
      return Status();
    }
    default:
      return Status::internal(wire_name(d.getSchema(), n) + ": not a list row");
  }
}

template <class O>
Status get_field(capnp::DynamicStruct::Reader d, O& o, const Field<O>& f) {
  const std::string n = wire_field_name(f.name);
  switch (f.kind) {
    case FieldKind::kInt:
      return get_int(d, n, o.*f.i);
    case FieldKind::kDouble:
      o.*f.d = d.get(n).template as<double>();
      return Status();
    case FieldKind::kBool:
      o.*f.b = d.get(n).template as<bool>();
      return Status();
    case FieldKind::kEnum: {
      const uint16_t v = d.get(n).template as<capnp::DynamicEnum>().getRaw();
      if (field_detail::enum_text(f.names, v) == "?")
        return Status::invalid_argument(wire_name(d.getSchema(), n) + " = " + std::to_string(v) +
                                        " is not a value this daemon or client knows");
      f.set_enum(o, v);
      return Status();
    }
    case FieldKind::kFactor:
    case FieldKind::kShift:
      o.*f.r = {d.get(n + "Lo").template as<double>(), d.get(n + "Hi").template as<double>()};
      return Status();
    case FieldKind::kTriple:
    case FieldKind::kTextList:
      return get_list_field(d, n, f, o);
    case FieldKind::kText:
      o.*f.s = text_bytes(d.get(n).template as<capnp::Text>());
      return Status();
    case FieldKind::kUint64:
      o.*f.u = d.get(n).template as<uint64_t>();
      return Status();
  }
  return Status::internal(wire_name(d.getSchema(), n) + ": unknown field kind");
}

// Every row of `table`, in table order (the order the struct's texts and lists are allocated in
// the message, which the bytes of a message depend on).
template <class O>
void put_fields(capnp::DynamicStruct::Builder d, const O& o, std::span<const Field<O>> table) {
  for (const Field<O>& f : table) put_field(d, o, f);
}

// Every row of `table` from `d`; the first failure.
template <class O>
Status get_fields(capnp::DynamicStruct::Reader d, O& o, std::span<const Field<O>> table) {
  for (const Field<O>& f : table) TF_RETURN_IF_ERROR(get_field(d, o, f));
  return Status();
}

}  // namespace textfeed::transport::internal
