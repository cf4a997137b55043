// Locates the first syntax error of a JSON text, for error messages only. simdjson says THAT a
// document is malformed but not WHERE; this small scanner runs only after simdjson has refused a
// file, so the hot path never pays for it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace textfeed::loader::internal {

struct JsonSyntaxError {
  size_t offset = 0;  // byte offset into the scanned text
  int line = 1;       // 1-based
  int column = 1;     // 1-based, in bytes
  std::string what;   // e.g. "expected ',' or '}'"
};

// The first RFC 8259 syntax error of `text` (strict: no comments, no trailing commas, UTF-8
// validated inside strings), or nullopt when the scanner finds none. Also reported, as simdjson
// refuses them: containers nested deeper than `max_depth`, integers outside [-2^63, 2^64 - 1]
// and numbers beyond the range of a double. Iterative: hostile nesting depth costs heap, not
// stack. Thread-safe (pure function).
std::optional<JsonSyntaxError> find_json_syntax_error(std::string_view text,
                                                      size_t max_depth = static_cast<size_t>(-1));

}  // namespace textfeed::loader::internal
