// A strict JSON syntax scanner that reports where the first error is (see json_syntax.h).
#include "loader/readers/detail/json_syntax.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace textfeed::loader::internal {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

size_t skip_blanks(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}

// Length of the valid UTF-8 sequence starting at s[i] (a byte >= 0x80), or 0 if invalid.
// Rejects overlong forms, surrogates and code points above U+10FFFF, as simdjson does.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

// Scans the string starting at the quote s[*i]; on success *i is past the closing quote.
// On failure *i is at the offending byte and the reason is returned.
const char* scan_string(std::string_view s, size_t* i) {
  size_t k = *i + 1;
  while (k < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[k]);
    if (c == '"') {
      *i = k + 1;
      return nullptr;
    }
    if (c < 0x20) {
      *i = k;
      return "control character inside a string";
    }
    if (c == '\\') {
      if (k + 1 >= s.size()) break;
      const char e = s[k + 1];
      if (e == 'u') {
        for (size_t h = 0; h < 4; ++h) {
          const size_t p = k + 2 + h;
          if (p >= s.size()) break;
          const char x = s[p];
          if (!is_digit(x) && !(x >= 'a' && x <= 'f') && !(x >= 'A' && x <= 'F')) {
            *i = p;
            return "bad \\u escape";
          }
        }
        k += 6;
      } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                 e == 'r' || e == 't') {
        k += 2;
      } else {
        *i = k;
        return "bad escape sequence";
      }
      continue;
    }
    if (c >= 0x80) {
      const size_t n = utf8_sequence(s, k);
      if (n == 0) {
        *i = k;
        return "invalid UTF-8";
      }
      k += n;
      continue;
    }
    ++k;
  }
  *i = s.size();
  return "unterminated string";
}

// Scans a number at s[*i] (RFC 8259 grammar). Same contract as scan_string.
const char* scan_number(std::string_view s, size_t* i) {
  size_t k = *i;
  const auto digits = [&]() {
    const size_t start = k;
    while (k < s.size() && is_digit(s[k])) ++k;
    return k > start;
  };
  if (k < s.size() && s[k] == '-') ++k;
  if (k < s.size() && s[k] == '0') {
    ++k;
  } else if (!digits()) {
    *i = k;
    return "bad number";
  }
  if (k < s.size() && s[k] == '.') {
    ++k;
    if (!digits()) {
      *i = k;
      return "bad number: no digit after '.'";
    }
  }
  if (k < s.size() && (s[k] == 'e' || s[k] == 'E')) {
    ++k;
    if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
    if (!digits()) {
      *i = k;
      return "bad number: no digit in the exponent";
    }
  }
  *i = k;
  return nullptr;
}

// Whether the number s[begin, end) (valid JSON grammar) is one simdjson refuses: an integer
// outside [-2^63, 2^64 - 1] or a number whose magnitude overflows a double (underflow to 0 is
// accepted, as simdjson accepts it).
bool number_out_of_range(std::string_view s, size_t begin, size_t end) {
  const std::string_view n = s.substr(begin, end - begin);
  if (n.find_first_of(".eE") == std::string_view::npos) {
    // JSON has no leading zeros: a longer digit string is larger, an equal-length one compares
    // as text.
    const bool negative = n.front() == '-';
    const std::string_view digits = negative ? n.substr(1) : n;
    const std::string_view limit = negative ? "9223372036854775808" : "18446744073709551615";
    return digits.size() > limit.size() || (digits.size() == limit.size() && digits > limit);
  }
  const std::string text(n);  // strtod needs a terminated string; this is the error path only
  return std::isinf(std::strtod(text.c_str(), nullptr));
}

// Scans one scalar value (string, number, literal) at s[*i].
const char* scan_scalar(std::string_view s, size_t* i) {
  const char c = s[*i];
  if (c == '"') return scan_string(s, i);
  if (c == '-' || is_digit(c)) {
    const size_t begin = *i;
    if (const char* why = scan_number(s, i)) return why;
    if (number_out_of_range(s, begin, *i)) {
      *i = begin;
      return "number out of range (integers must fit in 64 bits, other numbers in a double)";
    }
    return nullptr;
  }
  for (std::string_view lit : {"true", "false", "null"}) {
    if (s.substr(*i, lit.size()) == lit) {
      *i += lit.size();
      return nullptr;
    }
  }
  return "expected a value";
}

JsonSyntaxError at(std::string_view s, size_t offset, std::string what) {
  JsonSyntaxError e{offset, 1, 1, std::move(what)};
  for (size_t k = 0; k < offset && k < s.size(); ++k) {
    if (s[k] == '\n') {
      ++e.line;
      e.column = 1;
    } else {
      ++e.column;
    }
  }
  return e;
}

enum class Want { kValue, kValueOrClose, kKey, kKeyOrClose, kColon, kCommaOrClose };

// The scanner between tokens: what comes next, where, and inside which containers.
struct Scanner {
  std::string_view s;
  size_t max_depth = 0;
  std::vector<char> open;  // '{' or '[' of each enclosing container
  Want want = Want::kValue;
  size_t i = 0;
};

using MaybeError = std::optional<JsonSyntaxError>;

// The input ended at sc.i: fine only after a whole document.
MaybeError at_end(const Scanner& sc) {
  if (sc.open.empty() && sc.want == Want::kCommaOrClose) return std::nullopt;
  return at(sc.s, sc.i,
            sc.open.empty()
                ? "empty document"
                : "unexpected end of file (unclosed '" + std::string(1, sc.open.back()) + "')");
}

// A value at s[i] = c: a container opens, or a scalar is scanned.
MaybeError on_value(Scanner& sc, char c) {
  if (c == '{' || c == '[') {
    if (sc.open.size() >= sc.max_depth)
      return at(sc.s, sc.i,
                "nested deeper than " + std::to_string(sc.max_depth) + " arrays and objects");
    sc.open.push_back(c);
    ++sc.i;
    sc.want = c == '{' ? Want::kKeyOrClose : Want::kValueOrClose;
    return std::nullopt;
  }
  if (const char* why = scan_scalar(sc.s, &sc.i)) return at(sc.s, sc.i, why);
  sc.want = Want::kCommaOrClose;
  return std::nullopt;
}

MaybeError on_key(Scanner& sc, char c) {
  if (c != '"') return at(sc.s, sc.i, "expected a string key");
  if (const char* why = scan_string(sc.s, &sc.i)) return at(sc.s, sc.i, why);
  sc.want = Want::kColon;
  return std::nullopt;
}

MaybeError on_colon(Scanner& sc, char c) {
  if (c != ':') return at(sc.s, sc.i, "expected ':' after a key");
  ++sc.i;
  sc.want = Want::kValue;
  return std::nullopt;
}

// After a value: the next member or element, or the end of its container.
MaybeError on_comma_or_close(Scanner& sc, char c) {
  if (sc.open.empty()) return at(sc.s, sc.i, "unexpected content after the document");
  const char close = sc.open.back() == '{' ? '}' : ']';
  if (c == ',') {
    sc.want = sc.open.back() == '{' ? Want::kKey : Want::kValue;
  } else if (c == close) {
    sc.open.pop_back();
  } else {
    return at(sc.s, sc.i, std::string("expected ',' or '") + close + "'");
  }
  ++sc.i;
  return std::nullopt;
}

// The token at s[i] = c (not a blank).
MaybeError on_token(Scanner& sc, char c) {
  if ((sc.want == Want::kValueOrClose && c == ']') || (sc.want == Want::kKeyOrClose && c == '}')) {
    sc.open.pop_back();  // an empty container closes
    ++sc.i;
    sc.want = Want::kCommaOrClose;
    return std::nullopt;
  }
  switch (sc.want) {
    case Want::kValue:
    case Want::kValueOrClose:
      return on_value(sc, c);
    case Want::kKey:
    case Want::kKeyOrClose:
      return on_key(sc, c);
    case Want::kColon:
      return on_colon(sc, c);
    case Want::kCommaOrClose:
      return on_comma_or_close(sc, c);
  }
  return std::nullopt;  // unreachable: every Want is handled above
}

}  // namespace

std::optional<JsonSyntaxError> find_json_syntax_error(std::string_view s, size_t max_depth) {
  Scanner sc{s, max_depth};
  while (true) {
    sc.i = skip_blanks(s, sc.i);
    if (sc.i == s.size()) return at_end(sc);
    if (MaybeError e = on_token(sc, s[sc.i])) return e;
  }
}

}  // namespace textfeed::loader::internal
