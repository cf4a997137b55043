// Small text helpers shared by the dataset readers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace textfeed::loader::internal {

// Strips a UTF-8 byte-order mark at the start of `s`.
std::string_view strip_bom(std::string_view s);
// Splits into lines on LF, dropping one trailing CR per line (CRLF files).
std::vector<std::string_view> split_lines(std::string_view text);
// Parses a whole field as a finite number (int or float, surrounding blanks allowed).
bool parse_number(std::string_view field, double* out);
// Reads a small text file whole. Errors: kNotFound, kIo.
Result<std::string> read_text_file(const std::string& path);

}  // namespace textfeed::loader::internal
