// The command line's flags of a field table (base/field_table.h): one flag per row, its --help
// from the row (doc, the text it takes, bound, default), its text checked as it is parsed by the
// row itself (set_field_text, then check_field: the message validate() gives), and the texts
// given applied to the options in table order afterwards. tools/spec_flags.cc adds the reader's
// and the sampler's flags with it; tests/transport/field_edges_test.cc runs it on a table of its
// own.
//
// Header-only (CLI11 is): the functions are templates on the options struct. Not thread-safe: a
// command line is parsed on one thread.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/field_table.h"

namespace textfeed::tools {

// Each flag's text as given, by row name.
using FieldTexts = std::map<std::string, std::string, std::less<>>;
// The options of each profile, by its name ({"", options} when they do not depend on it).
template <class O>
using ProfileDefaults = std::vector<std::pair<std::string, O>>;

// The flag of row `name`: "--" + the name with '-' for '_'; "--no-" + that for a bool row whose
// default is on (the flag turns it off).
inline std::string field_flag(std::string_view name, bool negated) {
  std::string flag = negated ? "--no-" : "--";
  for (char c : name) flag += c == '_' ? '-' : c;
  return flag;
}

namespace field_flags_detail {

inline std::string type_name(FieldKind kind) {
  switch (kind) {
    case FieldKind::kInt:
      return "INT";
    case FieldKind::kDouble:
      return "FLOAT";
    case FieldKind::kUint64:
      return "UINT64";
    default:
      return "TEXT";
  }
}

// What CLI11 shows after the type: "{a,b}" for an enum, "INT in [1, 4096]", "TEXT of [1, 255]
// bytes".
inline std::string check_text(FieldKind kind, std::span<const EnumName> names,
                              const FieldBound& bound) {
  if (kind == FieldKind::kEnum) {
    std::string s;
    for (const EnumName& n : names) s.append(s.empty() ? "{" : ",").append(n.name);
    return s + "}";
  }
  const std::string b = field_bound_text(kind, bound);
  if (kind == FieldKind::kText) return "TEXT of " + b + " bytes";
  if (kind == FieldKind::kTextList) return "TEXT of " + b + " comma-separated names";
  return type_name(kind) + " in " + b;
}

// "" for an empty value, which a help line cannot show.
inline std::string shown(const std::string& text) { return text.empty() ? "none" : text; }

// Each distinct default of row f with the profiles that have it, in the profiles' order.
template <class O>
std::vector<std::pair<std::string, std::string>> default_groups(
    const Field<O>& f, const ProfileDefaults<O>& defaults) {
  std::vector<std::pair<std::string, std::string>> groups;  // value, profiles
  for (const auto& [profile, o] : defaults) {
    const std::string value = field_text(o, f);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == value; });
    if (it == groups.end()) {
      groups.emplace_back(value, profile);
    } else {
      it->second += ", " + profile;
    }
  }
  return groups;
}

// "upstage, sakura: a,b; bc7: none".
inline std::string groups_text(const std::vector<std::pair<std::string, std::string>>& groups) {
  std::string s;
  for (const auto& [value, profiles] : groups)
    s.append(s.empty() ? "" : "; ").append(profiles).append(": ").append(shown(value));
  return s;
}

// The row's check of a flag's text: `number_check` first for a float (the command line's own
// check of a number), then the text must parse as the row's kind and the value hold its bound.
template <class O>
CLI::Validator validator(const Field<O>& f, const O& defaults, std::string_view what,
                         const CLI::Validator& number_check) {
  return CLI::Validator(
      [f, defaults, what = std::string(what), number_check](std::string& text) -> std::string {
        if (f.kind == FieldKind::kDouble) {
          std::string copy = text;
          if (std::string m = number_check(copy); !m.empty()) return m;
        }
        O scratch = defaults;
        if (Status s = set_field_text(scratch, f, text); !s.ok()) return s.message();
        if (Status s = check_field(scratch, f, what); !s.ok()) return s.message();
        return std::string();
      },
      check_text(f.kind, f.names, f.bound));
}

template <class O>
void add_bool_flag(CLI::App* cmd, const Field<O>& f, const O& defaults,
                   const std::function<void(std::string_view, const std::string&)>& store) {
  const bool negated = defaults.*f.b;
  const std::string help =
      negated ? "turns " + std::string(f.name) + " off (on by default): " + std::string(f.doc)
              : std::string(f.doc);
  // CLI11 counts the flag: +1 per bare use, -1 per "--flag=false" (or =0, =off). The sum's sign is
  // what the command line says; 0 (as many of each) leaves the row at its default.
  cmd->add_flag_function(
      field_flag(f.name, negated),
      [store, name = f.name, negated](int64_t count) {
        if (count != 0) store(name, (count > 0) != negated ? "true" : "false");
      },
      help);
}

}  // namespace field_flags_detail

// Adds one flag per row of `table` to `cmd` (field_flag(); a bool row's flag takes no value),
// each checked as it is parsed against its row (a refused one prints "--flag: MESSAGE", the
// message validate() gives, `what` naming the option: "reader option") and then handed to
// `store(row name, text)`. `defaults` (not empty): a default the same for every profile shows as
// "=DEFAULT", one that differs as "Default: the profile's (...)". `number_check`: the command
// line's own check of a float's text, run before the row's (may be empty).
template <class O>
void add_field_flags(CLI::App* cmd, std::span<const Field<O>> table,
                     const ProfileDefaults<O>& defaults, std::string_view what,
                     const std::function<void(std::string_view, const std::string&)>& store,
                     const CLI::Validator& number_check = CLI::Validator()) {
  namespace d = field_flags_detail;
  const O& first = defaults.front().second;
  for (const Field<O>& f : table) {
    if (f.kind == FieldKind::kBool) {
      d::add_bool_flag(cmd, f, first, store);
      continue;
    }
    const auto groups = d::default_groups(f, defaults);
    std::string help(f.doc);
    if (groups.size() > 1) help += ". Default: the profile's (" + d::groups_text(groups) + ")";
    CLI::Option* option = cmd->add_option_function<std::string>(
        field_flag(f.name, false),
        [store, name = f.name](const std::string& text) { store(name, text); }, help);
    option->type_name(d::type_name(f.kind));
    option->check(d::validator(f, first, what, number_check));
    if (groups.size() == 1 && !groups[0].first.empty()) option->default_str(groups[0].first);
  }
}

// Sets each row of `table` that `texts` names from its text, in table order. Errors:
// kInvalidArgument (a text that does not parse; a name no row has).
template <class O>
Status apply_field_texts(O& o, std::span<const Field<O>> table, const FieldTexts& texts) {
  for (const auto& [name, text] : texts)
    if (find_field(table, name) == nullptr)
      return Status::invalid_argument("no option is named '" + name + "'");
  for (const Field<O>& f : table)
    if (auto it = texts.find(f.name); it != texts.end())
      TF_RETURN_IF_ERROR(set_field_text(o, f, it->second));
  return Status();
}

// The flags that give `texts` again, in table order: what a command hands to another it runs.
// Each as one word "--flag=text" (a value that starts with '-' stays a value for any parser), a
// bool row's flag alone ("--flag", or "--no-flag" for a switch on by default) when the text turns
// its default over.
template <class O>
std::vector<std::string> field_flag_args(std::span<const Field<O>> table, const O& defaults,
                                         const FieldTexts& texts) {
  std::vector<std::string> args;
  for (const Field<O>& f : table) {
    auto it = texts.find(f.name);
    if (it == texts.end()) continue;
    if (f.kind != FieldKind::kBool) {
      args.push_back(field_flag(f.name, false) + "=" + it->second);
      continue;
    }
    const bool negated = defaults.*f.b;
    O o = defaults;
    if (set_field_text(o, f, it->second).ok() && o.*f.b != defaults.*f.b)
      args.push_back(field_flag(f.name, negated));
  }
  return args;
}

}  // namespace textfeed::tools
