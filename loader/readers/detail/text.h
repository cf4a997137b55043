// Small helpers shared by the dataset readers: text splitting, number parsing, file listing,
// option validation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "loader/readers/dataset.h"

namespace textfeed::loader::internal {

// Strips a UTF-8 byte-order mark at the start of `s`.
std::string_view strip_bom(std::string_view s);
// Splits into lines at LF, CR LF or a lone CR (files from old Mac tools end lines with CR only).
// A final line ending does not make an extra empty line.
std::vector<std::string_view> split_lines(std::string_view text);
// Whether `s` holds only blanks (space, tab, CR).
bool is_blank(std::string_view s);
// Parses a whole field as a finite number (int or float, surrounding blanks allowed).
bool parse_number(std::string_view field, double* out);
// Whether `v` is finite also as a float32: coordinates are stored as float32, and 1e39 or 1e300
// would become infinities there.
bool finite_as_float(double v);

// The largest annotation file read whole (an ICDAR gt file is a few KB).
inline constexpr uint64_t kMaxAnnotationFileBytes = uint64_t{64} << 20;
// The most words one image may have: beyond this the image is left out (a crafted file must not
// make the crop search and targets of one sample take minutes).
inline constexpr size_t kMaxWordsPerImage = 65536;

// kInvalidArgument naming `path` when `text` starts with a UTF-16 or UTF-32 byte-order mark
// (a file saved in another encoding, which would otherwise be reported as garbage).
Status refuse_utf16_or_32(std::string_view text, const std::string& path);

// Reads a text annotation file whole: a regular file of at most kMaxAnnotationFileBytes, in UTF-8
// (a UTF-16 or UTF-32 byte-order mark is refused by name rather than read as garbage).
// Errors: kNotFound, kInvalidArgument (not a regular file, too large, UTF-16/32), kIo.
Result<std::string> read_text_file(const std::string& path);

// What an entry that is not a regular file is, as the readers' messages say it: "a folder",
// "a FIFO", "a socket", "a device", "a broken symlink" (nothing there), "not a regular file".
const char* non_regular_kind(const std::filesystem::file_status& status);

// What list_files leaves out besides hidden names: an entry that is not a regular file.
struct NonRegularEntry {
  std::string name;
  std::string kind;  // "a folder", "a FIFO", "a broken symlink", ...
};
// File names (not paths) of the regular files in `dir`, symlinks followed, hidden names (".x")
// left out, sorted. Other non-hidden entries go to `others` when given (sorted).
// Errors: kNotFound, kIo.
Result<std::vector<std::string>> list_files(const std::string& dir,
                                            std::vector<NonRegularEntry>* others = nullptr);
// Checks the options the readers rely on. Errors: kInvalidArgument naming the field.
Status validate_options(const ReaderOptions& options);

}  // namespace textfeed::loader::internal
