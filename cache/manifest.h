// Sharded caches: a small JSON manifest that names the shard files of one dataset (each a
// complete cache of a contiguous range of its samples) so that they open as one cache
// (docs/cache_format.md "Sharded caches and manifests"). merge_shards() checks that a set of
// shard files is complete, disjoint and of one build; open_manifest() maps every shard the
// manifest names and checks each against what the manifest recorded of it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cache/cache.h"

namespace textfeed::cache {

// The manifest's "format" value and version; a reader refuses a newer version.
inline constexpr std::string_view kManifestFormat = "textfeed-cache-manifest";
inline constexpr int kManifestVersion = 1;
// Bounds a reader holds a manifest to: it is read whole, and each shard is mapped at open.
inline constexpr uint64_t kMaxManifestBytes = uint64_t{16} << 20;
inline constexpr size_t kMaxShards = 4096;

// One shard file as a manifest lists it.
struct ManifestShard {
  std::string path;      // relative to the manifest's folder, '/'-separated; never absolute,
                         // never with a ".." component
  uint32_t index = 0;    // K of K/N
  uint64_t first = 0;    // global index of its first sample: the samples of the shards before it
  uint64_t samples = 0;  // records in the file
  uint64_t first_input = 0;  // dataset index of its first input (CacheMeta::first_input)
  uint64_t num_inputs = 0;   // inputs covered: samples + quarantined
  uint64_t file_bytes = 0;
  uint32_t header_crc = 0;  // CacheReader::header_crc()
  uint32_t footer_crc = 0;  // CacheReader::footer_crc(): identifies the file's build
};

// A manifest's content, a value type. `build` holds what every shard's Meta shares (profile,
// image_size, codec, jpeg_quality, restart_rows, max_bad_share, dataset_root, dataset_format,
// dataset_samples, dataset_fingerprint, reader_options, shard_count); its per-file fields
// (counts, quarantine, build time, shard_index, first_input, num_inputs) are not used.
struct Manifest {
  uint64_t samples = 0;  // all shards' samples
  CacheMeta build;
  std::vector<ManifestShard> shards;  // in shard order: shards[k].index == k
};

// Whether `path` is a regular file whose first bytes are those a manifest starts with
// (`{"format": "textfeed-cache-manifest"`, white space allowed between the tokens): a manifest
// is told from a dataset's json by its content, without parsing it.
bool is_manifest_file(const std::string& path);

// Whether `path` is to be opened as a manifest: named "*.tfmanifest" (then one that does not open
// is reported as a broken manifest), or is_manifest_file.
bool is_manifest_path(const std::string& path);

// The manifest of shard files `shards` (the opened files, in any order) to be written at
// `manifest_path`; `shard_paths[i]` is the path shards[i] was opened from. Checks that they are
// one complete set: every K of 0..N-1 exactly once, each covering floor(K n / N) ..
// floor((K + 1) n / N) of the same dataset (fingerprint, sample count, reader options) built with
// the same options, every input of its range either a sample or quarantined, the quarantine of
// all within the build's --max-bad budget, and each file in or below the manifest's folder.
// Errors: kInvalidArgument naming the shard file and what differs or is missing.
Result<Manifest> merge_shards(std::span<const std::shared_ptr<const CacheReader>> shards,
                              std::span<const std::string> shard_paths,
                              const std::string& manifest_path);

// The manifest as JSON text (docs/cache_format.md gives its fields).
std::string manifest_json(const Manifest& manifest);

// Writes manifest_json() to `path` atomically (a fresh temporary renamed into place, fsync'd);
// replaces only an existing manifest, and only when `overwrite`. Errors: kInvalidArgument (exists
// and !overwrite, or is not a manifest), kIo.
Status write_manifest(const Manifest& manifest, const std::string& path, bool overwrite);

// Reads and checks a manifest's structure: format and version, every field of its type and
// bounds, shard paths relative without "..", shards in order with `first` the running sum of
// `samples`. Opens no shard. Errors: kNotFound, kInvalidArgument (not a regular file, too large),
// kCorrupt (not JSON, a missing or mistyped field, a hostile path: naming the file and the
// field), kUnimplemented (a newer version).
Result<Manifest> read_manifest(const std::string& path);

// The path shard `shard` of the manifest at `manifest_path` is opened from.
std::string shard_file_path(const std::string& manifest_path, const ManifestShard& shard);

// Whether `reader`, opened from shard_file_path(manifest_path, manifest.shards[k]), is the file
// the manifest recorded: its sample count, size, header and footer CRCs, and its Meta's shard
// K/N and dataset. Errors: kCorrupt naming the shard file, the manifest and what differs.
Status check_shard(const Manifest& manifest, const std::string& manifest_path, size_t k,
                   const CacheReader& reader);

// A manifest with every shard mapped. Immutable after open_manifest(); shared between threads.
struct ShardSet {
  std::string path;  // the manifest's
  Manifest manifest;
  std::vector<std::shared_ptr<const CacheReader>> shards;  // shards[k] is manifest.shards[k]
  // The shards' Meta merged: `build`'s fields, counts summed, the quarantines concatenated in
  // shard order, the longest build time.
  CacheMeta meta;
  uint64_t file_bytes = 0;  // the shards' together
};

// read_manifest(path), then CacheReader::open and check_shard for every shard, in order.
// Errors: those of read_manifest; those of CacheReader::open (kNotFound for a missing shard file,
// kCorrupt for a damaged one, ...) and kCorrupt (a shard that differs from the manifest): each
// naming the shard file and the manifest.
Result<std::shared_ptr<const ShardSet>> open_manifest(const std::string& path);

}  // namespace textfeed::cache
