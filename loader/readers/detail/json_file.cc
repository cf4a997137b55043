// The json helpers the UFO, mmocr and PaddleOCR readers share (detail/json_file.h).
#include "loader/readers/detail/json_file.h"

#include <cstdint>

#include "base/file.h"
#include "loader/readers/detail/json_syntax.h"
#include "loader/readers/detail/text.h"

namespace textfeed::loader::internal {

namespace fs = std::filesystem;

// The first of `keys` that `obj` holds more than once, or an empty view. simdjson's lookup takes
// the first of duplicate keys and Python's json the last: such a record means two things, and is
// refused rather than read one way.
std::string_view duplicate_key(simdjson::dom::object obj,
                               std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) {
    int seen = 0;
    for (auto field : obj)
      if (field.key == key && ++seen == 2) return key;
  }
  return {};
}

// kCorrupt for a document simdjson refused, located by the syntax scanner where it can.
Status json_error(const std::string& path, std::string_view body, size_t bom,
                  simdjson::error_code err, size_t max_depth) {
  std::string msg = path + ": not valid JSON (" + simdjson::error_message(err) + ")";
  if (auto e = find_json_syntax_error(body.substr(bom), max_depth))
    msg += " at byte " + std::to_string(e->offset + bom) + " (line " + std::to_string(e->line) +
           ", column " + std::to_string(e->column) + "): " + e->what;
  return Status::corrupt(std::move(msg));
}

// Relative to the root when the file lies inside, else absolute.
std::string shown_path(const fs::path& root, const std::string& json_path) {
  std::error_code ec;
  const fs::path abs = fs::absolute(json_path, ec).lexically_normal();
  const fs::path rel = abs.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return abs.string();
  return rel.string();
}

// The file whole, padded for simdjson: only a regular file (a FIFO named x.json must not block).
Result<simdjson::padded_string> load_json(const std::string& path, const char* kind) {
  Result<ReadableFile> f = open_regular_file(path);
  if (!f.has_value()) return f.error().with_context(kind);
  // The parsed document costs a few times the file: past 1 GiB a file is refused before it is read.
  constexpr uint64_t kMaxUfoFileBytes = uint64_t{1} << 30;
  static_assert(kMaxUfoFileBytes <= simdjson::SIMDJSON_MAXSIZE_BYTES);
  if (f->size > kMaxUfoFileBytes)
    return Status::invalid_argument(path + ": a " + std::string(kind) + " of " +
                                    std::to_string(f->size) + " bytes is over the limit of " +
                                    std::to_string(kMaxUfoFileBytes) + " bytes");
  simdjson::padded_string json(static_cast<size_t>(f->size));
  if (json.data() == nullptr)
    return Status::io(path + ": cannot allocate " + std::to_string(f->size) + " bytes");
  TF_RETURN_IF_ERROR(read_exactly(*f, path, json.data(), json.size()));
  return json;
}

Status parse_json_file(const std::string& path, const char* kind, simdjson::dom::parser& parser,
                       simdjson::padded_string& json, simdjson::dom::element& doc) {
  TF_ASSIGN_OR_RETURN(json, load_json(path, kind));
  const std::string_view body(json.data(), json.size());
  TF_RETURN_IF_ERROR(refuse_utf16_or_32(body, path));
  const size_t bom = strip_bom(body).size() == body.size() ? 0 : 3;
  if (auto err = parser.parse(json.data() + bom, json.size() - bom, false).get(doc))
    return json_error(path, body, bom, err, parser.max_depth());
  return Status();
}

}  // namespace textfeed::loader::internal
