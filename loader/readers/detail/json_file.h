// What the json readers (UFO, mmocr, PaddleOCR label lines) share: loading a file whole with its
// limits, locating a parse error, and refusing keys a record holds twice.
#pragma once

#include <simdjson.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

#include "base/status.h"

namespace textfeed::loader::internal {

// The first of `keys` that `obj` holds more than once, or an empty view. simdjson's lookup takes
// the first of duplicate keys and Python's json the last: such a record means two things, and is
// refused rather than read one way.
std::string_view duplicate_key(simdjson::dom::object obj,
                               std::initializer_list<std::string_view> keys);

// The file whole, padded for simdjson: only a regular file (a FIFO named x.json must not block), of
// at most 1 GiB. `kind` names the file in messages ("UFO file"). Errors: kNotFound,
// kInvalidArgument (not regular, too large), kIo.
Result<simdjson::padded_string> load_json(const std::string& path, const char* kind);

// kCorrupt for a document simdjson refused, located by the syntax scanner where it can. `bom`:
// bytes skipped at the start of `body` (a UTF-8 byte-order mark).
Status json_error(const std::string& path, std::string_view body, size_t bom,
                  simdjson::error_code err, size_t max_depth);

// The path as messages show it: relative to `root` when it lies inside, else absolute.
std::string shown_path(const std::filesystem::path& root, const std::string& path);

// Parses the json file `path` (a UTF-8 BOM skipped, UTF-16/32 refused) into `doc`, owned by
// `parser` and `json`. Errors: those of load_json, kInvalidArgument (UTF-16/32), kCorrupt.
Status parse_json_file(const std::string& path, const char* kind, simdjson::dom::parser& parser,
                       simdjson::padded_string& json, simdjson::dom::element& doc);

}  // namespace textfeed::loader::internal
