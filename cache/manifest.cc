// Cache manifests: merge (checks a set of shard files) and open (maps the shards and checks each
// against the manifest). The JSON text, both ways, is manifest_json.cc's.
#include "cache/manifest.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "cache/detail/manifest_rules.h"

namespace textfeed::cache {
namespace {

namespace fs = std::filesystem;
using internal::hex64;
using internal::input_range;
using internal::is_contained_relative;

std::string shard_name(const ManifestShard& s, uint32_t count) {
  return "shard " + std::to_string(s.index) + "/" + std::to_string(count) + " (" + s.path + ")";
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
  // Before anything is sized by N (shard_order's table): a file's N is data, not a promise.
  if (m.shard_count > kMaxShards)
    return Status::invalid_argument(path + ": shard " + std::to_string(m.shard_index) + "/" +
                                    std::to_string(m.shard_count) + ": N is over the " +
                                    std::to_string(kMaxShards) + " shards a manifest holds");
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

namespace {

// The position in `shards` of shard K, for every K of 0..N-1, once each shard is checked on its
// own and against the first. Errors: kInvalidArgument naming the file, a K given twice or missing.
Result<std::vector<size_t>> shard_order(std::span<const std::shared_ptr<const CacheReader>> shards,
                                        std::span<const std::string> paths) {
  const CacheMeta& first = shards[0]->meta();
  std::vector<int> by_index;  // shard K -> position in `shards`, -1: none yet
  for (size_t i = 0; i < shards.size(); ++i) {
    TF_RETURN_IF_ERROR(check_merge_member(*shards[i], paths[i], first));
    if (i == 0) by_index.assign(first.shard_count, -1);
    const uint32_t k = shards[i]->meta().shard_index;
    if (by_index[k] >= 0)
      return Status::invalid_argument(paths[static_cast<size_t>(by_index[k])] + " and " + paths[i] +
                                      " are both shard " + std::to_string(k) + "/" +
                                      std::to_string(first.shard_count));
    by_index[k] = static_cast<int>(i);
  }
  std::vector<size_t> order;
  for (uint32_t k = 0; k < first.shard_count; ++k) {
    if (by_index[k] < 0)
      return Status::invalid_argument(
          "shard " + std::to_string(k) + "/" + std::to_string(first.shard_count) +
          " of the dataset of " + paths[0] + " is missing (" + std::to_string(shards.size()) +
          " of " + std::to_string(first.shard_count) + " shard files given)");
    order.push_back(static_cast<size_t>(by_index[k]));
  }
  return order;
}

// What a manifest records of shard file `r`, shard `k`, whose samples start at global `first`.
ManifestShard manifest_entry(const CacheReader& r, uint32_t k, uint64_t first, std::string path) {
  ManifestShard e;
  e.path = std::move(path);
  e.index = k;
  e.first = first;
  e.samples = r.size();
  e.first_input = r.meta().first_input;
  e.num_inputs = r.meta().num_inputs;
  e.file_bytes = r.file_bytes();
  e.header_crc = r.header_crc();
  e.footer_crc = r.footer_crc();
  return e;
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
  TF_ASSIGN_OR_RETURN(const std::vector<size_t> order, shard_order(shards, shard_paths));
  const CacheMeta& first = shards[0]->meta();
  std::error_code ec;
  const fs::path folder =
      fs::absolute(fs::path(manifest_path), ec).lexically_normal().parent_path();
  Manifest out;
  out.build = common_build(first);
  uint64_t quarantined = 0;
  for (uint32_t k = 0; k < first.shard_count; ++k) {
    const size_t i = order[k];
    const auto rel =
        relative_below(folder, fs::absolute(fs::path(shard_paths[i]), ec).lexically_normal());
    if (!rel)
      return Status::invalid_argument(
          shard_paths[i] + " is not in or below " + folder.string() +
          ", the manifest's folder: a manifest names its shards by relative paths "
          "without '..'");
    out.shards.push_back(manifest_entry(*shards[i], k, out.samples, *rel));
    out.samples += shards[i]->size();
    quarantined += shards[i]->meta().quarantine.size();
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
  if (meta.first_input != s.first_input || meta.num_inputs != s.num_inputs)
    return differs("inputs",
                   std::to_string(meta.first_input) + " + " + std::to_string(meta.num_inputs),
                   std::to_string(s.first_input) + " + " + std::to_string(s.num_inputs));
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
      return Status(r.error().code(),  // kNotFound for a missing shard, kCorrupt for a damaged one
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
