// Cache manifests as JSON text: written with nlohmann::json, read back with every field's type and
// bound checked. No exception reaches the caller: a parse error is a discarded value, and a type
// is checked before each read.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "cache/detail/manifest_rules.h"
#include "cache/manifest.h"

namespace textfeed::cache {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using internal::hex64;
using internal::input_range;
using internal::is_contained_relative;

// Deepest nesting a manifest needs is 3 (object, shards array, shard object).
constexpr int kMaxManifestDepth = 8;

}  // namespace

std::string manifest_json(const Manifest& m) {
  Json j;
  j["format"] = kManifestFormat;
  j["version"] = kManifestVersion;
  j["samples"] = m.samples;
  const CacheMeta& b = m.build;
  j["dataset"] = {{"root", b.dataset_root},
                  {"format", b.dataset_format},
                  {"samples", b.dataset_samples},
                  {"fingerprint", hex64(b.dataset_fingerprint)},
                  {"reader_options", b.reader_options}};
  j["build"] = {{"profile", b.profile},           {"image_size", b.image_size},
                {"codec", codec_name(b.codec)},   {"jpeg_quality", b.jpeg_quality},
                {"restart_rows", b.restart_rows}, {"max_bad_share", b.max_bad_share},
                {"shards", b.shard_count}};
  Json shards = Json::array();
  for (const ManifestShard& s : m.shards)
    shards.push_back({{"path", s.path},
                      {"shard", s.index},
                      {"first", s.first},
                      {"samples", s.samples},
                      {"first_input", s.first_input},
                      {"inputs", s.num_inputs},
                      {"bytes", s.file_bytes},
                      {"header_crc", s.header_crc},
                      {"footer_crc", s.footer_crc}});
  j["shards"] = std::move(shards);
  // Bytes that are not UTF-8 become U+FFFD: harmless in the root, which is for people only;
  // write_manifest refuses such a shard path.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Status write_manifest(const Manifest& manifest, const std::string& path, bool overwrite) {
  for (const ManifestShard& s : manifest.shards) {
    const Json back = Json::parse(Json(s.path).dump(-1, ' ', false, Json::error_handler_t::replace),
                                  nullptr, /*allow_exceptions=*/false);
    if (!back.is_string() || back.get<std::string>() != s.path)
      return Status::invalid_argument(
          s.path + ": a shard path that is not valid UTF-8 cannot be written to a manifest");
  }
  TF_RETURN_IF_ERROR(check_replaceable(path, overwrite));
  std::error_code ec;
  if (overwrite && fs::file_size(path, ec) > 0 && !ec && !is_manifest_file(path))
    return Status::invalid_argument(
        path + " exists and is not a cache manifest: only a manifest is replaced");
  const std::string text = manifest_json(manifest);
  TF_ASSIGN_OR_RETURN(TempFile t, create_temp_beside(path, 0644));
  Status s;
  for (size_t at = 0; at < text.size() && s.ok();) {
    const ssize_t n = ::write(t.fd.get(), text.data() + at, text.size() - at);
    if (n < 0 && errno != EINTR) s = Status::from_errno("cannot write " + t.path, errno);
    if (n > 0) at += static_cast<size_t>(n);
  }
  if (s.ok() && ::fsync(t.fd.get()) != 0) s = Status::from_errno("fsync " + t.path, errno);
  if (s.ok()) s = t.fd.close().with_context(t.path);
  if (s.ok()) s = rename_into_place(t.path, path, overwrite);
  if (!s.ok()) ::unlink(t.path.c_str());
  return s;
}

bool is_manifest_path(const std::string& path) {
  return path.ends_with(".tfmanifest") || is_manifest_file(path);
}

bool is_manifest_file(const std::string& path) {
  Result<ReadableFile> f = open_regular_file(path);
  if (!f.has_value()) return false;
  char head[256] = {};
  const size_t n = static_cast<size_t>(std::min<uint64_t>(f->size, sizeof head));
  if (n == 0 || !read_exactly(*f, path, head, n).ok()) return false;
  const std::string_view text(head, n);
  size_t at = 0;
  // Each token in turn, white space allowed before it.
  for (std::string_view token :
       {std::string_view("{"), std::string_view("\"format\""), std::string_view(":"),
        std::string_view("\"textfeed-cache-manifest\"")}) {
    while (at < text.size() &&
           (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' || text[at] == '\n'))
      ++at;
    if (text.substr(at, token.size()) != token) return false;
    at += token.size();
  }
  return true;
}

namespace {

// The nesting depth of JSON text (brackets outside strings), checked before parsing.
int json_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

// Typed, bounded reads of one JSON object's fields; the first failure is kept, naming the file and
// the field ("shards[2].path").
class FieldReader {
 public:
  FieldReader(const std::string& file, Status& error) : file_(file), error_(error) {}

  const Json* field(const Json& obj, const std::string& where, const char* key) {
    if (!error_.ok()) return nullptr;
    const auto it = obj.find(key);
    if (it == obj.end()) return fail(where + key, "is missing");
    return &*it;
  }
  uint64_t u64(const Json& obj, const std::string& where, const char* key, uint64_t max) {
    const Json* v = field(obj, where, key);
    if (v == nullptr) return 0;
    if (!v->is_number_unsigned() || v->get<uint64_t>() > max)
      return fail(where + key, "must be a whole number in [0, " + std::to_string(max) + "]"), 0;
    return v->get<uint64_t>();
  }
  std::string text(const Json& obj, const std::string& where, const char* key) {
    const Json* v = field(obj, where, key);
    if (v == nullptr) return {};
    if (!v->is_string()) return fail(where + key, "must be a string"), std::string();
    return v->get<std::string>();
  }
  bool boolean(const Json& obj, const std::string& where, const char* key) {
    const Json* v = field(obj, where, key);
    if (v == nullptr) return false;
    if (!v->is_boolean()) return fail(where + key, "must be true or false"), false;
    return v->get<bool>();
  }
  double number(const Json& obj, const std::string& where, const char* key, double lo, double hi) {
    const Json* v = field(obj, where, key);
    if (v == nullptr) return 0;
    if (!v->is_number() || !(v->get<double>() >= lo && v->get<double>() <= hi))
      return fail(where + key,
                  "must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"),
             0.0;
    return v->get<double>();
  }
  const Json* object(const Json& obj, const std::string& where, const char* key) {
    const Json* v = field(obj, where, key);
    if (v != nullptr && !v->is_object()) return fail(where + key, "must be an object");
    return v;
  }
  std::nullptr_t fail(const std::string& field, const std::string& what) {
    if (error_.ok())
      error_ = Status::corrupt(file_ + ": cache manifest field '" + field + "' " + what);
    return nullptr;
  }

 private:
  const std::string& file_;
  Status& error_;
};

uint32_t to_u32(uint64_t v) { return static_cast<uint32_t>(v); }

void read_header_fields(const Json& j, FieldReader& f, Manifest& m) {
  constexpr uint64_t kBig = uint64_t{1} << 53;  // what a JSON number holds exactly
  m.samples = f.u64(j, "", "samples", kBig);
  if (const Json* d = f.object(j, "", "dataset")) {
    m.build.dataset_root = f.text(*d, "dataset.", "root");
    m.build.dataset_format = f.text(*d, "dataset.", "format");
    m.build.dataset_samples = f.u64(*d, "dataset.", "samples", kBig);
    const std::string fp = f.text(*d, "dataset.", "fingerprint");
    if (fp.size() != 16 || fp.find_first_not_of("0123456789abcdef") != std::string::npos)
      f.fail("dataset.fingerprint", "must be 16 lowercase hex digits");
    else
      m.build.dataset_fingerprint = std::stoull(fp, nullptr, 16);
    m.build.reader_options = f.text(*d, "dataset.", "reader_options");
  }
  if (const Json* b = f.object(j, "", "build")) {
    m.build.profile = f.text(*b, "build.", "profile");
    m.build.image_size = static_cast<int>(f.u64(*b, "build.", "image_size", 32768));
    const std::string codec = f.text(*b, "build.", "codec");
    if (codec != "raw" && codec != "jpeg") f.fail("build.codec", "must be raw or jpeg");
    m.build.codec = codec == "jpeg" ? PixelCodec::kJpeg : PixelCodec::kRaw;
    m.build.jpeg_quality = static_cast<int>(f.u64(*b, "build.", "jpeg_quality", 100));
    m.build.restart_rows = f.boolean(*b, "build.", "restart_rows");
    m.build.max_bad_share = f.number(*b, "build.", "max_bad_share", 0, 1);
    m.build.shard_count = to_u32(f.u64(*b, "build.", "shards", kMaxShards));
  }
}

void read_shard_fields(const Json& j, FieldReader& f, Manifest& m) {
  const Json* list = f.field(j, "", "shards");
  if (list == nullptr) return;
  if (!list->is_array() || list->empty() || list->size() != m.build.shard_count) {
    f.fail("shards",
           "must be a list of build.shards (" + std::to_string(m.build.shard_count) + ") shards");
    return;
  }
  uint64_t first = 0;
  for (size_t k = 0; k < list->size(); ++k) {
    const std::string where = "shards[" + std::to_string(k) + "].";
    const Json& e = (*list)[k];
    if (!e.is_object())
      return void(f.fail("shards[" + std::to_string(k) + "]", "must be an object"));
    ManifestShard s;
    s.path = f.text(e, where, "path");
    if (!f.field(e, where, "path")) return;
    if (!is_contained_relative(s.path))
      return void(
          f.fail(where + "path", "'" + s.path +
                                     "' must be a relative path below the manifest's folder "
                                     "(not absolute, no '..' or empty component)"));
    s.index = to_u32(f.u64(e, where, "shard", kMaxShards));
    s.first = f.u64(e, where, "first", m.samples);
    s.samples = f.u64(e, where, "samples", m.samples);
    s.first_input = f.u64(e, where, "first_input", m.build.dataset_samples);
    s.num_inputs = f.u64(e, where, "inputs", m.build.dataset_samples);
    s.file_bytes = f.u64(e, where, "bytes", UINT64_MAX);
    s.header_crc = to_u32(f.u64(e, where, "header_crc", UINT32_MAX));
    s.footer_crc = to_u32(f.u64(e, where, "footer_crc", UINT32_MAX));
    if (s.index != k)
      return void(
          f.fail(where + "shard", "is " + std::to_string(s.index) + ", not " + std::to_string(k)));
    if (s.first != first)
      return void(f.fail(where + "first", "is " + std::to_string(s.first) +
                                              " but the shards before hold " +
                                              std::to_string(first) + " samples"));
    const auto [begin, count] =
        input_range(m.build.dataset_samples, to_u32(k), m.build.shard_count);
    if (s.first_input != begin || s.num_inputs != count || s.samples > s.num_inputs)
      return void(f.fail(where + "inputs", "do not make shard " + std::to_string(k) + "/" +
                                               std::to_string(m.build.shard_count) + " of " +
                                               std::to_string(m.build.dataset_samples) +
                                               " inputs"));
    first += s.samples;
    m.shards.push_back(std::move(s));
  }
  if (f.field(j, "", "samples") && first != m.samples)
    f.fail("samples",
           "is " + std::to_string(m.samples) + " but the shards hold " + std::to_string(first));
}

}  // namespace

Result<Manifest> read_manifest(const std::string& path) {
  std::string text;
  if (Status s = read_regular_file(path, text, kMaxManifestBytes); !s.ok()) {
    if (s.code() == Code::kNotFound) return Status::not_found(path + ": no such cache manifest");
    return s;
  }
  if (json_depth(text) > kMaxManifestDepth)
    return Status::corrupt(path + ": not a cache manifest (JSON nested deeper than " +
                           std::to_string(kMaxManifestDepth) + ")");
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return Status::corrupt(path + ": cache manifest is not valid JSON (truncated or damaged)");
  if (!j.is_object()) return Status::corrupt(path + ": cache manifest is not a JSON object");
  Status error;
  FieldReader f(path, error);
  if (f.text(j, "", "format") != kManifestFormat && error.ok())
    f.fail("format", "must be \"" + std::string(kManifestFormat) + "\"");
  const uint64_t version = f.u64(j, "", "version", UINT32_MAX);
  if (error.ok() && version > static_cast<uint64_t>(kManifestVersion))
    return Status::unimplemented(path + ": cache manifest version " + std::to_string(version) +
                                 " is newer than this textfeed reads (" +
                                 std::to_string(kManifestVersion) + ")");
  if (error.ok() && version != static_cast<uint64_t>(kManifestVersion))
    f.fail("version", "must be 1");
  Manifest m;
  if (error.ok()) read_header_fields(j, f, m);
  if (error.ok() && m.build.shard_count == 0) f.fail("build.shards", "must be at least 1");
  if (error.ok()) read_shard_fields(j, f, m);
  if (!error.ok()) return error;
  if (m.samples == 0) return Status::corrupt(path + ": cache manifest lists no samples");
  return m;
}

}  // namespace textfeed::cache
