// Small helpers shared by the dataset readers: text splitting, number parsing, file listing,
// option validation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "loader/dataset.h"

namespace textfeed::loader::internal {

// Strips a UTF-8 byte-order mark at the start of `s`.
std::string_view strip_bom(std::string_view s);
// Splits into lines on LF, dropping one trailing CR per line (CRLF files). A final line ending
// does not make an extra empty line.
std::vector<std::string_view> split_lines(std::string_view text);
// Whether `s` holds only blanks (space, tab, CR).
bool is_blank(std::string_view s);
// Parses a whole field as a finite number (int or float, surrounding blanks allowed).
bool parse_number(std::string_view field, double* out);
// Reads a small text file whole. Errors: kNotFound, kIo.
Result<std::string> read_text_file(const std::string& path);
// File names (not paths) of the regular files in `dir`, symlinks followed, hidden names (".x")
// left out, sorted. Errors: kNotFound, kIo.
Result<std::vector<std::string>> list_files(const std::string& dir);
// Checks the options the readers rely on. Errors: kInvalidArgument naming the field.
Status validate_options(const ReaderOptions& options);

}  // namespace textfeed::loader::internal
