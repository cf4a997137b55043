// Fuzz target: cache manifests (cache/manifest.h). The input is written as a manifest beside two
// shard files the harness writes once (shards 0/2 and 1/2 of a dataset of 5 samples), then read
// and opened. The seed (corpus/manifest/) is the manifest merge_shards writes of them, so mutations
// reach the checks of every shard against the manifest. Beyond "no crash", it checks what
// read_manifest and open_manifest promise: paths below the folder, counts that add up.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/log.h"
#include "cache/cache.h"
#include "cache/manifest.h"
#include "tests/fuzz/fuzz_targets.h"

namespace textfeed::fuzz {
namespace {

constexpr uint32_t kShards = 2;
constexpr uint64_t kInputs = 5;

// A shard of 2x2 raw images with one word each, and a Meta that merges (fixed build time, empty
// root: the same bytes on every run and machine).
void write_shard(const std::string& path, uint32_t k) {
  const uint64_t first = k * kInputs / kShards, end = (k + 1) * kInputs / kShards;
  auto w = cache::CacheWriter::create(path, true);
  TF_CHECK(w.has_value()) << w.error().to_string();
  const std::vector<uint8_t> pixels(12, 7);
  const Quad quad{{0, 0, 1, 0, 1, 1, 0, 1}};
  const unsigned char label = kLabelValid;
  const std::string text = "w";
  for (uint64_t i = first; i < end; ++i) {
    const std::string name = "images/" + std::to_string(i) + ".jpg";
    cache::SampleData d{name,   2,          2,           2,         2, cache::PixelCodec::kRaw,
                        pixels, {&quad, 1}, {&label, 1}, {&text, 1}};
    TF_CHECK((*w)->add(d).ok());
  }
  cache::CacheMeta meta;
  meta.profile = "upstage";
  meta.image_size = 2048;
  meta.build_unix_seconds = 1700000000;
  meta.dataset_format = "icdar15";
  meta.shard_index = k;
  meta.shard_count = kShards;
  meta.first_input = first;
  meta.num_inputs = end - first;
  meta.dataset_samples = kInputs;
  meta.dataset_fingerprint = 0x0123456789abcdefULL;
  meta.reader_options = "format=auto";
  meta.max_bad_share = 0.05;
  TF_CHECK((*w)->finish(meta).ok());
}

// The folder holding shards/s0.tfc and shards/s1.tfc, written on first use.
const std::string& folder() {
  static const std::string dir = [] {
    const std::string d = scratch_dir() + "/manifest";
    std::filesystem::create_directories(d + "/shards");
    for (uint32_t k = 0; k < kShards; ++k)
      write_shard(d + "/shards/s" + std::to_string(k) + ".tfc", k);
    return d;
  }();
  return dir;
}

}  // namespace

std::string manifest_seed_for_testing() {
  std::vector<std::shared_ptr<const cache::CacheReader>> shards;
  std::vector<std::string> paths;
  for (uint32_t k = 0; k < kShards; ++k) {
    paths.push_back(folder() + "/shards/s" + std::to_string(k) + ".tfc");
    shards.push_back(*cache::CacheReader::open(paths.back()));
  }
  auto m = cache::merge_shards(shards, paths, folder() + "/m.tfmanifest");
  TF_CHECK(m.has_value()) << m.error().to_string();
  return cache::manifest_json(*m);
}

void manifest_one_input(std::span<const uint8_t> input) {
  static const std::string path = folder() + "/m.tfmanifest";
  write_file(path, input);
  const Result<cache::Manifest> m = cache::read_manifest(path);
  if (!m.has_value()) {
    const Code code = m.error().code();
    TF_CHECK(code == Code::kCorrupt || code == Code::kUnimplemented) << m.error().to_string();
    TF_CHECK(m.error().message().find(path) != std::string::npos)
        << "an error that does not name the file";
    return;
  }
  TF_CHECK(!m->shards.empty() && m->shards.size() == m->build.shard_count)
      << m->shards.size() << " shards";
  uint64_t samples = 0;
  for (size_t k = 0; k < m->shards.size(); ++k) {
    const cache::ManifestShard& s = m->shards[k];
    TF_CHECK(s.index == k && s.first == samples) << "shard " << k << " out of order";
    // ".." as a component leaves the folder; inside a name ("s..tfc") it does not.
    const std::string wrapped = "/" + s.path + "/";
    TF_CHECK(!s.path.empty() && s.path.front() != '/' && wrapped.find("/../") == std::string::npos)
        << "a shard path that leaves the folder: " << s.path;
    samples += s.samples;
  }
  TF_CHECK(samples == m->samples && samples > 0) << samples << " vs " << m->samples;
  const Result<std::shared_ptr<const cache::ShardSet>> set = cache::open_manifest(path);
  if (!set.has_value()) {
    const Code code = set.error().code();
    TF_CHECK(code == Code::kCorrupt || code == Code::kNotFound || code == Code::kInvalidArgument)
        << set.error().to_string();
    return;
  }
  TF_CHECK((*set)->shards.size() == m->shards.size());
  for (size_t k = 0; k < m->shards.size(); ++k) {
    const cache::CacheReader& r = *(*set)->shards[k];
    TF_CHECK(r.size() == m->shards[k].samples) << "shard " << k << " holds " << r.size();
    for (size_t i = 0; i < r.size(); ++i) (void)r.sample(i);
  }
}

}  // namespace textfeed::fuzz
