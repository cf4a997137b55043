// Cache manifests: merge (checks a set of shard files), JSON text both ways, open (maps the shards
// and checks each against the manifest). nlohmann::json is used without exceptions reaching the
// caller: parse errors come back as a discarded value, type errors are checked before each read.
#include "cache/manifest.h"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/file.h"

namespace textfeed::cache {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// Deepest nesting a manifest needs is 3 (object, shards array, shard object).
constexpr int kMaxManifestDepth = 8;

std::string hex64(uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016" PRIx64, v);
  return s;
}

std::string shard_name(const ManifestShard& s, uint32_t count) {
  return "shard " + std::to_string(s.index) + "/" + std::to_string(count) + " (" + s.path + ")";
}

// Whether a relative path stays in its folder: not empty, not absolute, no ".." or empty
// component, no NUL or backslash.
bool is_contained_relative(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.find('\0') != std::string_view::npos ||
      p.find('\\') != std::string_view::npos)
    return false;
  size_t at = 0;
  while (at <= p.size()) {
    const size_t slash = std::min(p.find('/', at), p.size());
    const std::string_view part = p.substr(at, slash - at);
    if (part.empty() || part == "..") return false;
    at = slash + 1;
  }
  return true;
}

// The two Metas describe the same dataset read the same way and built the same way; else what
// differs, as "field a vs b".
std::string build_difference(const CacheMeta& a, const CacheMeta& b) {
  auto differ = [](const char* field, const auto& x, const auto& y) {
    if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>)
      return field + std::string(" '") + x + "' vs '" + y + "'";
    else
      return field + std::string(" ") + std::to_string(x) + " vs " + std::to_string(y);
  };
  if (a.shard_count != b.shard_count) return differ("shard count N", a.shard_count, b.shard_count);
  if (a.dataset_samples != b.dataset_samples)
    return differ("dataset samples", a.dataset_samples, b.dataset_samples);
  if (a.dataset_fingerprint != b.dataset_fingerprint)
    return "dataset fingerprint " + hex64(a.dataset_fingerprint) + " vs " +
           hex64(b.dataset_fingerprint) +
           " (another dataset, or the same one changed or read with other options)";
  if (a.dataset_format != b.dataset_format)
    return differ("dataset format", a.dataset_format, b.dataset_format);
  if (a.reader_options != b.reader_options)
    return differ("reader options", a.reader_options, b.reader_options);
  if (a.profile != b.profile) return differ("profile", a.profile, b.profile);
  if (a.image_size != b.image_size) return differ("image_size", a.image_size, b.image_size);
  if (a.codec != b.codec)
    return differ("codec", std::string(codec_name(a.codec)), std::string(codec_name(b.codec)));
  if (a.jpeg_quality != b.jpeg_quality)
    return differ("JPEG quality", a.jpeg_quality, b.jpeg_quality);
  if (a.restart_rows != b.restart_rows)
    return differ("restart rows", int{a.restart_rows}, int{b.restart_rows});
  if (a.max_bad_share != b.max_bad_share)
    return differ("max bad share", a.max_bad_share, b.max_bad_share);
  return std::string();
}

// [first, first + count) of shard k of n inputs in `shards` parts.
std::pair<uint64_t, uint64_t> input_range(uint64_t n, uint32_t k, uint32_t shards) {
  // floor(j n / N) as j (n / N) + floor(j (n % N) / N): no product wraps for N < 2^32 (j <= N).
  const auto at = [&](uint64_t j) { return j * (n / shards) + j * (n % shards) / shards; };
  return {at(k), at(uint64_t{k} + 1) - at(k)};
}

// `shard` relative to `folder` (both absolute and normal), or nullopt when it is not below it.
std::optional<std::string> relative_below(const fs::path& folder, const fs::path& shard) {
  const fs::path rel = shard.lexically_relative(folder);
  const std::string s = rel.generic_string();
  if (rel.empty() || !is_contained_relative(s)) return std::nullopt;
  return s;
}

// The build fields every shard shares, taken from one of them.
CacheMeta common_build(const CacheMeta& m) {
  CacheMeta b;
  b.profile = m.profile;
  b.image_size = m.image_size;
  b.codec = m.codec;
  b.jpeg_quality = m.jpeg_quality;
  b.restart_rows = m.restart_rows;
  b.max_bad_share = m.max_bad_share;
  b.dataset_root = m.dataset_root;
  b.dataset_format = m.dataset_format;
  b.dataset_samples = m.dataset_samples;
  b.dataset_fingerprint = m.dataset_fingerprint;
  b.reader_options = m.reader_options;
  b.shard_count = m.shard_count;
  return b;
}

// Checks shards[i] on its own (a shard at all, its range, nothing dropped) and against `first`.
Status check_merge_member(const CacheReader& r, const std::string& path, const CacheMeta& first) {
  const CacheMeta& m = r.meta();
  if (m.shard_count == 0)
    return Status::invalid_argument(
        path +
        ": a cache written before shards existed records no dataset to merge by; "
        "rebuild it");
  if (m.shard_index >= m.shard_count)
    return Status::invalid_argument(path + ": shard " + std::to_string(m.shard_index) + "/" +
                                    std::to_string(m.shard_count) + " is out of range");
  if (std::string d = build_difference(first, m); !d.empty())
    return Status::invalid_argument(path +
                                    " is not of the same build as the first shard given: " + d);
  const auto [begin, count] = input_range(m.dataset_samples, m.shard_index, m.shard_count);
  if (m.first_input != begin || m.num_inputs != count)
    return Status::invalid_argument(
        path + ": shard " + std::to_string(m.shard_index) + "/" + std::to_string(m.shard_count) +
        " covers inputs " + std::to_string(m.first_input) + " + " + std::to_string(m.num_inputs) +
        " but should cover " + std::to_string(begin) + " + " + std::to_string(count));
  if (r.size() + m.quarantine.size() != m.num_inputs)
    return Status::invalid_argument(path + ": " + std::to_string(r.size()) + " samples and " +
                                    std::to_string(m.quarantine.size()) +
                                    " quarantined do not make its " + std::to_string(m.num_inputs) +
                                    " inputs");
  return Status();
}

}  // namespace

Result<Manifest> merge_shards(std::span<const std::shared_ptr<const CacheReader>> shards,
                              std::span<const std::string> shard_paths,
                              const std::string& manifest_path) {
  if (shards.empty() || shards.size() != shard_paths.size())
    return Status::invalid_argument("no shard files to merge");
  if (shards.size() > kMaxShards)
    return Status::invalid_argument(std::to_string(shards.size()) +
                                    " shard files, over the limit of " +
                                    std::to_string(kMaxShards));
  const CacheMeta& first = shards[0]->meta();
  std::vector<int> by_index;  // shard K -> position in `shards`, -1: none yet
  for (size_t i = 0; i < shards.size(); ++i) {
    TF_RETURN_IF_ERROR(check_merge_member(*shards[i], shard_paths[i], first));
    if (i == 0) by_index.assign(first.shard_count, -1);
    const uint32_t k = shards[i]->meta().shard_index;
    if (by_index[k] >= 0)
      return Status::invalid_argument(shard_paths[static_cast<size_t>(by_index[k])] + " and " +
                                      shard_paths[i] + " are both shard " + std::to_string(k) +
                                      "/" + std::to_string(first.shard_count));
    by_index[k] = static_cast<int>(i);
  }
  for (uint32_t k = 0; k < first.shard_count; ++k)
    if (by_index[k] < 0)
      return Status::invalid_argument(
          "shard " + std::to_string(k) + "/" + std::to_string(first.shard_count) +
          " of the dataset of " + shard_paths[0] + " is missing (" + std::to_string(shards.size()) +
          " of " + std::to_string(first.shard_count) + " shard files given)");
  std::error_code ec;
  const fs::path folder =
      fs::absolute(fs::path(manifest_path), ec).lexically_normal().parent_path();
  Manifest out;
  out.build = common_build(first);
  uint64_t quarantined = 0;
  for (uint32_t k = 0; k < first.shard_count; ++k) {
    const size_t i = static_cast<size_t>(by_index[k]);
    const CacheReader& r = *shards[i];
    const auto rel =
        relative_below(folder, fs::absolute(fs::path(shard_paths[i]), ec).lexically_normal());
    if (!rel)
      return Status::invalid_argument(
          shard_paths[i] + " is not in or below " + folder.string() +
          ", the manifest's folder: a manifest names its shards by relative paths "
          "without '..'");
    ManifestShard e;
    e.path = *rel;
    e.index = k;
    e.first = out.samples;
    e.samples = r.size();
    e.first_input = r.meta().first_input;
    e.num_inputs = r.meta().num_inputs;
    e.file_bytes = r.file_bytes();
    e.header_crc = r.header_crc();
    e.footer_crc = r.footer_crc();
    out.shards.push_back(std::move(e));
    out.samples += r.size();
    quarantined += r.meta().quarantine.size();
  }
  const auto budget = static_cast<uint64_t>(
      std::floor(first.max_bad_share * static_cast<double>(first.dataset_samples)));
  if (quarantined > budget)
    return Status::invalid_argument("the shards quarantined " + std::to_string(quarantined) +
                                    " of " + std::to_string(first.dataset_samples) +
                                    " inputs, more than the build's share of " +
                                    std::to_string(first.max_bad_share) + " allows (" +
                                    std::to_string(budget) + "); a whole build would have failed");
  if (out.samples == 0) return Status::invalid_argument("the shards hold no samples");
  return out;
}

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
    const std::string round_trip =
        Json(s.path).dump(-1, ' ', false, Json::error_handler_t::replace);
    if (Json::parse(round_trip).get<std::string>() != s.path)
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
    while (at < text.size() && std::strchr(" \t\r\n", text[at]) != nullptr) ++at;
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

std::string shard_file_path(const std::string& manifest_path, const ManifestShard& shard) {
  return (fs::path(manifest_path).parent_path() / shard.path).string();
}

Status check_shard(const Manifest& m, const std::string& manifest_path, size_t k,
                   const CacheReader& r) {
  const ManifestShard& s = m.shards[k];
  const std::string who = shard_file_path(manifest_path, s) + " (" +
                          shard_name(s, m.build.shard_count) + " of manifest " + manifest_path +
                          ")";
  auto differs = [&](const std::string& what, const std::string& file, const std::string& listed) {
    return Status::corrupt(who + " is not the file the manifest lists: its " + what + " is " +
                           file + ", the manifest's " + listed +
                           " (a shard replaced or rebuilt since the merge)");
  };
  if (r.size() != s.samples)
    return differs("sample count", std::to_string(r.size()), std::to_string(s.samples));
  if (r.header_crc() != s.header_crc)
    return differs("header checksum", std::to_string(r.header_crc()), std::to_string(s.header_crc));
  if (r.footer_crc() != s.footer_crc)
    return differs("footer checksum", std::to_string(r.footer_crc()), std::to_string(s.footer_crc));
  if (r.file_bytes() != s.file_bytes)
    return differs("size", std::to_string(r.file_bytes()), std::to_string(s.file_bytes));
  const CacheMeta& meta = r.meta();
  if (meta.shard_index != s.index || meta.shard_count != m.build.shard_count)
    return differs("shard",
                   std::to_string(meta.shard_index) + "/" + std::to_string(meta.shard_count),
                   std::to_string(s.index) + "/" + std::to_string(m.build.shard_count));
  CacheMeta listed = m.build;
  listed.max_bad_share =
      meta.max_bad_share;  // a double that went through JSON text: compared loosely
  if (std::string d = build_difference(listed, meta); !d.empty())
    return Status::corrupt(who + " was not built as the manifest records: " + d);
  if (std::abs(m.build.max_bad_share - meta.max_bad_share) > 1e-12)
    return differs("max bad share", std::to_string(meta.max_bad_share),
                   std::to_string(m.build.max_bad_share));
  return Status();
}

Result<std::shared_ptr<const ShardSet>> open_manifest(const std::string& path) {
  TF_ASSIGN_OR_RETURN(Manifest m, read_manifest(path));
  auto set = std::make_shared<ShardSet>();
  set->path = path;
  set->meta = m.build;
  for (size_t k = 0; k < m.shards.size(); ++k) {
    const std::string file = shard_file_path(path, m.shards[k]);
    Result<std::shared_ptr<const CacheReader>> r = CacheReader::open(file);
    if (!r.has_value())
      return Status(r.error().code() == Code::kNotFound ? Code::kNotFound : Code::kCorrupt,
                    shard_name(m.shards[k], m.build.shard_count) + " of cache manifest " + path +
                        ": " + r.error().message());
    TF_RETURN_IF_ERROR(check_shard(m, path, k, **r));
    const CacheMeta& sm = (*r)->meta();
    set->meta.num_words += sm.num_words;
    set->meta.num_ignored += sm.num_ignored;
    set->meta.pixel_bytes += sm.pixel_bytes;
    set->meta.raw_pixel_bytes += sm.raw_pixel_bytes;
    set->meta.build_unix_seconds = std::max(set->meta.build_unix_seconds, sm.build_unix_seconds);
    set->meta.build_seconds = std::max(set->meta.build_seconds, sm.build_seconds);
    set->meta.quarantine.insert(set->meta.quarantine.end(), sm.quarantine.begin(),
                                sm.quarantine.end());
    set->file_bytes += (*r)->file_bytes();
    set->shards.push_back(std::move(*r));
  }
  set->meta.num_inputs = m.build.dataset_samples;
  set->manifest = std::move(m);
  return std::shared_ptr<const ShardSet>(std::move(set));
}

}  // namespace textfeed::cache
