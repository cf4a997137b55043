// build_cache: dataset folder -> cache file. Decodes every image (DCT-scaled where the profile's
// resize allows), resizes it as the reference's resize_img does (longer side = image_size), scales
// the quads with the reference's float32 arithmetic, and writes them with cache::CacheWriter.
// Inputs that fail are quarantined (listed with file and reason) and the build goes on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "augment/profile.h"
#include "cache/cache.h"
#include "loader/decode/decode.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/readers/dataset.h"

namespace textfeed::loader {

// Which part of a dataset a build writes (`cache build --shard K/N`): shard `index` of `count`
// holds the inputs [floor(index n / count), floor((index + 1) n / count)) of the reader's sample
// order (n = the dataset's size), so shards are disjoint, together cover every input, and their
// samples end to end are a whole build's, in the same order. {0, 1}: the whole dataset.
struct ShardSpec {
  uint32_t index = 0;
  uint32_t count = 1;
};
// The most shards of one dataset (cache::kMaxShards: what a manifest lists).
inline constexpr uint32_t kMaxShardCount = 4096;

// "K/N" (decimal, K < N, 1 <= N <= kMaxShardCount). Errors: kInvalidArgument saying which rule
// the text breaks.
Result<ShardSpec> parse_shard(std::string_view text);
// [first, first + count) of the inputs of `shard` in a dataset of `n`.
std::pair<size_t, size_t> shard_inputs(size_t n, ShardSpec shard);

struct CacheBuildOptions {
  std::string out;             // final path of the cache file
  augment::Profile profile{};  // the first registered profile (upstage)
  int image_size =
      2048;  // longer side of the stored pixels, in [32, 32768]; 0 = keep the source size
  cache::PixelCodec codec = cache::PixelCodec::kRaw;
  // 1..100, for kJpeg. 90: against 95, the decode stage a quarter shorter (the JPEG cache sample
  // 6-15% cheaper), 37-40% smaller, ~1 dB lower PSNR of the crops against a raw cache's (README
  // "The cache").
  int jpeg_quality = 90;
  // kJpeg: restart markers every few MCUs of every MCU row (16 pixel rows), so that a window decode
  // reads only the part of the JPEG the window needs instead of entropy-decoding every MCU of every
  // row above and beside it (loader/decode/detail/jpeg_restart.h). Same pixels; the whole-image
  // decode is slower (libjpeg-turbo's fast Huffman path is off).
  bool restart_rows = false;
  bool force = false;  // replace an existing regular file at `out` (never one of the inputs)
  DecodeOptions decode;
  // The build fails, writing nothing, as soon as more than this share of the dataset's images
  // are quarantined: a mostly unreadable dataset (a wrong folder, a broken copy) is an error to
  // report, not a cache to write. In [0, 1]; 1 accepts any number of bad images (but not all).
  double max_bad_share = 0.05;
  // The part of the dataset to build; the budget of max_bad_share stays the whole dataset's
  // (floor(max_bad_share * n)): a shard fails when it alone quarantines more, and
  // `cache merge` refuses shards that together do, so a sharded build fails where a whole one
  // would. Each shard must hold at least one input (count <= n).
  ShardSpec shard;
  // The options the dataset was read with, recorded in the cache's Meta (as describe(reader)):
  // `cache merge` refuses shards read differently.
  ReaderOptions reader;
  // Polled between samples (may be set from a signal handler): the build then stops, removes its
  // temporary file and returns kCancelled. Must outlive the build; null: never cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

struct BuildProgress {
  size_t done = 0;  // samples written or quarantined
  size_t total = 0;
  size_t quarantined = 0;
  uint64_t bytes = 0;  // written so far
  double seconds = 0;
};

struct BuildReport {
  size_t samples = 0;
  size_t quarantined = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  std::vector<cache::QuarantineEntry> quarantine;
};

// Stored size and quad scale of resize_img (docs/targets.md §2.2 step 2): r = S / max(w, h) in
// double for the size, (S, int(h r)) if w > h else (int(w r), S); the quads use float32(r).
struct ResizePlan {
  int width = 0;
  int height = 0;
  float quad_scale = 1.0f;
};
ResizePlan reference_resize(int width, int height, int image_size);

// Builds the cache on `pool` (its threads() is the thread count). `progress` is called
// from one thread at a time after every sample. Per-sample failures are quarantined (listed in the
// report and the cache's Meta) up to max_bad_share; among them an image whose stored size would
// exceed decode.max_pixels (or what one record holds), which is never allocated. Errors, after
// which nothing is left at `out` nor beside it: kInvalidArgument (options, an empty dataset, a
// shard of no inputs, an existing output without force, an output that is not a regular file or is
// one of the dataset's images or annotation files), kCorrupt (more images quarantined than
// max_bad_share allows, or none usable; both name the first ones and why), kCancelled, kIo.
Result<BuildReport> build_cache(const Dataset& dataset, const CacheBuildOptions& options,
                                WorkerPool& pool,
                                const std::function<void(const BuildProgress&)>& progress);

}  // namespace textfeed::loader
