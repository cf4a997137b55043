// Text that came from outside (file names, gt lines, client names, error messages) made safe to
// print or to store where valid UTF-8 is required. Everything textfeed writes to a terminal, a log
// or a JSON document goes through one of these.
#pragma once

#include <string>
#include <string_view>

namespace textfeed {

// `text` with every byte that could move a terminal's cursor or forge a line escaped: C0 controls
// (newline, carriage return, ESC, ... as \n, \r, \t or \xNN), DEL, the C1 controls U+0080..U+009F,
// a backslash (as \\, so the escaping is unambiguous) and every byte that is not part of valid
// UTF-8 (as \xNN). Printable UTF-8 passes unchanged. Thread-safe.
std::string printable(std::string_view text);

// `text` as valid UTF-8: each byte of an invalid sequence (overlong forms, surrogates, code points
// past U+10FFFF, truncated sequences) becomes U+FFFD. Valid text passes unchanged. Thread-safe.
std::string valid_utf8(std::string_view text);

// Whether `text` is valid UTF-8 (the rules of valid_utf8).
bool is_valid_utf8(std::string_view text);

}  // namespace textfeed
