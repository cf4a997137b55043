// build_cache: serial read -> parallel decode/resize/encode -> serial in-order write (oneTBB).
#include "loader/cache_build/cache_builder.h"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <sys/stat.h>
#include <turbojpeg.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>

#include "augment/inference.h"
#include "cache/manifest.h"
#include "loader/decode/detail/jpeg_restart.h"
#include "loader/pipeline/detail/worker_pool_tbb.h"
#include "loader/sources/dataset_source.h"

namespace textfeed::loader {
namespace {

// One sample on its way through the pipeline; a fixed pool of these is reused (see build_cache).
struct Item {
  size_t index = 0;
  Status status;
  std::vector<uint8_t> file;
  Image decoded;
  Image stored;
  std::vector<uint8_t> jpeg;
  std::vector<Quad> quads;
  std::vector<float> poly_xy;  // the record's polygons, scaled as the quads
  int orig_width = 0, orig_height = 0;
};

struct Worker {
  Decoder decoder;
  augment::InferenceScratch resize;  // pil_bilinear_resize's buffers
  tjhandle compressor = nullptr;
  explicit Worker(const DecodeOptions& o) : decoder(o) {}
  ~Worker() {
    if (compressor) tjDestroy(compressor);
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
};

Status encode_jpeg(Worker& w, const Image& img, int quality, std::vector<uint8_t>& out) {
  if (!w.compressor) w.compressor = tjInitCompress();
  if (!w.compressor) return Status::internal("tjInitCompress failed");
  unsigned long size = tjBufSize(img.width(), img.height(), TJSAMP_420);
  out.resize(size + 8);
  unsigned char* dst = out.data();
  if (tjCompress2(w.compressor, img.data(), img.width(), 0, img.height(), TJPF_RGB, &dst, &size,
                  TJSAMP_420, quality, TJFLAG_NOREALLOC) != 0) {
    Status s = Status::internal(std::string("JPEG encode failed: ") + tjGetErrorStr2(w.compressor));
    tjDestroy(w.compressor);  // a handle that failed mid-way is not trusted with the next image
    w.compressor = nullptr;
    return s;
  }
  out.resize(size);
  return Status();
}

// The stored image must hold a pixel and stay under the decode and blob limits. Checked before
// anything is allocated: an image_size far above the sources' sizes would otherwise make every
// worker allocate gigabytes for one record that cannot be stored anyway.
Status check_stored_size(const std::string& path, const ImageInfo& info, const ResizePlan& rp,
                         const CacheBuildOptions& o) {
  if (rp.width < 1 || rp.height < 1)  // e.g. 3000x1 to a longer side of 2048: 2048x0
    return Status::invalid_argument(
        path + ": a " + std::to_string(info.width) + "x" + std::to_string(info.height) +
        " image resized to a longer side of " + std::to_string(o.image_size) +
        " is empty: its aspect ratio is too extreme");
  const int64_t stored_px = int64_t{rp.width} * rp.height;
  const int64_t max_px = std::min<int64_t>(o.decode.max_pixels, cache::kMaxBlobBytes / 3);
  if (stored_px > max_px)
    return Status::invalid_argument(
        path + ": a " + std::to_string(info.width) + "x" + std::to_string(info.height) +
        " image resized to a longer side of " + std::to_string(o.image_size) + " would have " +
        std::to_string(stored_px) + " pixels, over the limit of " + std::to_string(max_px));
  return Status();
}

// What one record holds is bounded too (cache::kMaxRecordBytes): raw pixels are an upper bound
// of a JPEG's for any image this large.
Status check_record_size(const std::string& path, const SampleRecord& rec, const ResizePlan& rp) {
  const int64_t stored_px = int64_t{rp.width} * rp.height;
  uint64_t text_bytes = 0;
  for (const std::string& t : rec.texts) text_bytes += t.size() + 1;
  const uint64_t record = cache::record_bytes_bound(
      rec.image.size(), static_cast<uint64_t>(stored_px) * 3, rec.quads.size(), text_bytes);
  if (text_bytes > cache::kMaxBlobBytes || record > cache::kMaxRecordBytes)
    return Status::invalid_argument(
        path + ": with the " + std::to_string(text_bytes) + " bytes of transcriptions of " +
        rec.annotation + " its record would take " + std::to_string(record) +
        " bytes, over the limit of " + std::to_string(cache::kMaxRecordBytes));
  return Status();
}

// Decodes it.file at the smallest DCT scale that is still at least the plan's size (up to 5%
// less), then resizes into it.stored (rp.width x rp.height) as the references' resize_img does:
// PIL's bilinear resize. From a full-size decode the stored pixels are then the references' own.
Status decode_resized(Item& it, const std::string& path, const ImageInfo& info,
                      const ResizePlan& rp, Worker& w) {
  const int eighths = fast_dct_eighths(std::max(static_cast<double>(rp.width) / info.width,
                                                static_cast<double>(rp.height) / info.height));
  TF_RETURN_IF_ERROR(w.decoder.decode_eighths(it.file, path, eighths, it.decoded));
  // Reserve 3 spare columns (>= 8 bytes) past the image and zero the first 8: the writer
  // references the pixels in place and pads them to a whole word with those bytes.
  it.stored.reset(rp.height, rp.width + 3, 3);
  it.stored.reset(rp.height, rp.width, 3);
  std::memset(it.stored.data() + it.stored.size_bytes(), 0, 8);
  if (it.decoded.width() == rp.width && it.decoded.height() == rp.height) {
    std::memcpy(it.stored.data(), it.decoded.data(), it.stored.size_bytes());
    return Status();
  }
  augment::pil_bilinear_resize(it.decoded.view(), it.stored.mutable_view(), w.resize);
  return Status();
}

// The record's quads into it.quads, scaled as its image was.
Status scale_quads(Item& it, const SampleRecord& rec, float quad_scale, const std::string& path) {
  it.quads.assign(rec.quads.begin(), rec.quads.end());
  for (size_t k = 0; k < it.quads.size(); ++k)
    for (float& v : it.quads[k].xy) {
      v *= quad_scale;        // float32 * float32, as numpy does
      if (!std::isfinite(v))  // 3e38 is finite; upscaled, it is not: never stored as an infinity
        return Status::invalid_argument(path + ": word " + std::to_string(k + 1) + " of " +
                                        rec.annotation +
                                        " has a coordinate that overflows float32 once resized");
    }
  it.poly_xy.assign(rec.poly_xy.begin(), rec.poly_xy.end());
  for (float& v : it.poly_xy) {
    v *= quad_scale;
    if (!std::isfinite(v))
      return Status::invalid_argument(path + ": a polygon of " + rec.annotation +
                                      " has a coordinate that overflows float32 once resized");
  }
  return Status();
}

// Read, check the sizes, decode and resize, scale the quads, encode: one sample, into `it`.
Status process_unguarded(Item& it, const Dataset& ds, const CacheBuildOptions& o, Worker& w) {
  const SampleRecord& rec = ds.samples[it.index];
  const std::string path = ds.image_path(it.index);
  TF_RETURN_IF_ERROR(read_file(path, it.file));
  TF_ASSIGN_OR_RETURN(const ImageInfo info, w.decoder.read_info(it.file, path));
  it.orig_width = info.width;
  it.orig_height = info.height;
  const ResizePlan rp = o.image_size > 0 ? reference_resize(info.width, info.height, o.image_size)
                                         : ResizePlan{info.width, info.height, 1.0f};
  TF_RETURN_IF_ERROR(check_stored_size(path, info, rp, o));
  TF_RETURN_IF_ERROR(check_record_size(path, rec, rp));
  TF_RETURN_IF_ERROR(decode_resized(it, path, info, rp, w));
  TF_RETURN_IF_ERROR(scale_quads(it, rec, rp.quad_scale, path));
  if (o.codec != cache::PixelCodec::kJpeg) return Status();
  if (o.restart_rows)
    return internal::encode_jpeg_restart_rows(it.stored, o.jpeg_quality, it.jpeg)
        .with_context(path);
  return encode_jpeg(w, it.stored, o.jpeg_quality, it.jpeg);
}

// One sample, never throwing: an exception in a parallel filter would end the whole build.
void process(Item& it, const Dataset& ds, const CacheBuildOptions& o, Worker& w) {
  try {
    it.status = process_unguarded(it, ds, o, w);
  } catch (const std::exception& e) {
    it.status = Status::internal(ds.image_path(it.index) + ": " + e.what());
  }
}

}  // namespace

static_assert(kMaxShardCount == cache::kMaxShards, "every shard count a build takes must merge");

Result<ShardSpec> parse_shard(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return Status::invalid_argument("--shard " + std::string(text) + ": " + why);
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos)
    return bad("expected K/N, e.g. 0/3 for the first of 3 shards");
  uint64_t part[2] = {0, 0};
  const std::string_view digits[2] = {text.substr(0, slash), text.substr(slash + 1)};
  for (int i = 0; i < 2; ++i) {
    if (digits[i].empty() || digits[i].size() > 9 ||
        digits[i].find_first_not_of("0123456789") != std::string_view::npos)
      return bad("expected K/N of two whole numbers, e.g. 0/3 for the first of 3 shards");
    for (char c : digits[i]) part[i] = part[i] * 10 + static_cast<uint64_t>(c - '0');
  }
  if (part[1] == 0) return bad("N must be at least 1");
  if (part[1] > kMaxShardCount) return bad("N must be at most " + std::to_string(kMaxShardCount));
  if (part[0] >= part[1])
    return bad("K must be below N (shards are numbered 0 to " + std::to_string(part[1] - 1) + ")");
  return ShardSpec{static_cast<uint32_t>(part[0]), static_cast<uint32_t>(part[1])};
}

std::pair<size_t, size_t> shard_inputs(size_t n, ShardSpec shard) {
  // floor(k n / N) as k (n / N) + floor(k (n % N) / N): no product wraps (k <= N < 2^32).
  const uint64_t count = std::max<uint32_t>(shard.count, 1);
  const auto at = [&](uint64_t k) {
    return static_cast<size_t>(k * (n / count) + k * (n % count) / count);
  };
  return {at(shard.index), at(uint64_t{shard.index} + 1) - at(shard.index)};
}

ResizePlan reference_resize(int width, int height, int image_size) {
  const double r = static_cast<double>(image_size) / std::max(width, height);
  ResizePlan p;
  p.quad_scale = static_cast<float>(r);
  if (width > height) {
    p.width = image_size;
    p.height = static_cast<int>(height * r);
  } else {
    p.width = static_cast<int>(width * r);
    p.height = image_size;
  }
  return p;
}

namespace {

// The serial end of the pipeline, in sample order: writes each good sample, quarantines each bad
// one, reports progress, and stops the build once more inputs are bad than max_bad_share allows.
class Collector {
 public:
  // `inputs`: how many samples this build takes (its shard's). The budget of bad ones is the
  // whole dataset's, whatever the shard.
  Collector(const Dataset& ds, const CacheBuildOptions& o, size_t inputs,
            cache::CacheWriter& writer, const std::function<void(const BuildProgress&)>& progress,
            std::function<double()> elapsed)
      : ds_(ds), o_(o), writer_(writer), progress_(progress), elapsed_(std::move(elapsed)) {
    prog_.total = inputs;
    max_bad_ =
        static_cast<size_t>(std::floor(o.max_bad_share * static_cast<double>(ds.samples.size())));
  }

  void take(const Item& it) {
    const SampleRecord& rec = ds_.samples[it.index];
    if (!it.status.ok()) {
      report_.quarantine.push_back({rec.image, it.status.message()});
      if (report_.quarantine.size() > max_bad_ && error_.ok()) error_ = too_many_bad();
    } else if (error_.ok()) {
      error_ = writer_.add(sample_data(it, rec));
    }
    ++prog_.done;
    prog_.quarantined = report_.quarantine.size();
    prog_.bytes = writer_.bytes_written();
    prog_.seconds = elapsed_();
    if (progress_) progress_(prog_);
  }
  // The first write error, or the quarantine over its budget; the build stops at either.
  const Status& error() const { return error_; }
  size_t done() const { return prog_.done; }
  BuildReport& report() { return report_; }
  // " First failures: FILE: REASON; ..." (at most 5), for the errors that stop a build.
  std::string first_failures() const {
    const auto& q = report_.quarantine;
    std::string m = q.empty() ? "" : " First failures:";
    for (size_t i = 0; i < q.size() && i < 5; ++i)
      m += (i ? "; " : " ") + q[i].file + ": " + q[i].reason;
    return m;
  }

 private:
  cache::SampleData sample_data(const Item& it, const SampleRecord& rec) const {
    cache::SampleData d;
    d.name = rec.image;
    d.orig_width = it.orig_width;
    d.orig_height = it.orig_height;
    d.width = it.stored.width();
    d.height = it.stored.height();
    d.codec = o_.codec;
    d.pixels = o_.codec == cache::PixelCodec::kJpeg
                   ? std::span<const uint8_t>(it.jpeg)
                   : std::span<const uint8_t>(it.stored.data(), it.stored.size_bytes());
    d.quads = it.quads;
    d.labels = rec.labels;
    d.texts = rec.texts;
    d.poly_xy = it.poly_xy;
    d.poly_points = rec.poly_points;
    d.poly_labels = rec.poly_labels;
    return d;
  }

  Status too_many_bad() const {
    const auto& q = report_.quarantine;
    return Status::corrupt(
        std::to_string(q.size()) + " of the first " + std::to_string(prog_.done + 1) + " of " +
        std::to_string(prog_.total) + " images could not be used, more than the allowed share of " +
        std::to_string(o_.max_bad_share) + " (at most " + std::to_string(max_bad_) + " of the " +
        std::to_string(ds_.samples.size()) + " of the dataset); nothing was written." +
        first_failures());
  }

  const Dataset& ds_;
  const CacheBuildOptions& o_;
  cache::CacheWriter& writer_;
  const std::function<void(const BuildProgress&)>& progress_;
  std::function<double()> elapsed_;
  size_t max_bad_ = 0;
  BuildProgress prog_;
  BuildReport report_;
  Status error_;
};

Status check_options(const Dataset& ds, const CacheBuildOptions& o) {
  if (o.image_size != 0 &&
      (o.image_size < 32 || o.image_size > 32768))  // augment::validate's bounds
    return Status::invalid_argument(
        "image_size must be 0 (keep the source size) or in [32, 32768], got " +
        std::to_string(o.image_size));
  if (o.restart_rows && o.codec != cache::PixelCodec::kJpeg)
    return Status::invalid_argument(
        "restart rows are a JPEG codec option: the raw codec has no markers to place");
  if (o.codec == cache::PixelCodec::kJpeg && (o.jpeg_quality < 1 || o.jpeg_quality > 100))
    return Status::invalid_argument("JPEG quality must be in 1..100, got " +
                                    std::to_string(o.jpeg_quality));
  if (!(o.max_bad_share >= 0 && o.max_bad_share <= 1))
    return Status::invalid_argument("the share of bad inputs allowed must be in [0, 1], got " +
                                    std::to_string(o.max_bad_share));
  if (ds.samples.empty())
    return Status::invalid_argument("dataset " + ds.root +
                                    " has no images; a cache of nothing is not written");
  if (o.shard.count < 1 || o.shard.count > kMaxShardCount || o.shard.index >= o.shard.count)
    return Status::invalid_argument(
        "shard " + std::to_string(o.shard.index) + "/" + std::to_string(o.shard.count) +
        ": K must be below N, and N in [1, " + std::to_string(kMaxShardCount) + "]");
  if (o.shard.count > ds.samples.size())
    return Status::invalid_argument("shard " + std::to_string(o.shard.index) + "/" +
                                    std::to_string(o.shard.count) + ": N is more than the " +
                                    std::to_string(ds.samples.size()) + " images of " + ds.root +
                                    "; every shard needs at least one");
  return Status();
}

// With force, `out` may name an existing file, but never one of the build's own inputs: the
// rename would replace an image or annotation of the dataset with the cache. Inputs are compared
// by device and inode, statting only those whose file name is out's (nothing, without force or
// when out does not exist).
Status check_out_is_not_an_input(const Dataset& ds, const std::string& out) {
  struct stat o;
  if (::stat(out.c_str(), &o) != 0) return Status();
  const std::string name = std::filesystem::path(out).filename().string();
  std::string checked;  // a UFO annotation is the same file for every sample: statted once
  for (const SampleRecord& r : ds.samples)
    for (const std::string* input : {&r.image, &r.annotation}) {
      if (name.empty() || !input->ends_with(name) || *input == checked) continue;
      checked = *input;
      const std::filesystem::path p = std::filesystem::path(ds.root) / *input;
      struct stat st;
      if (p.filename() == name && ::stat(p.c_str(), &st) == 0 && st.st_dev == o.st_dev &&
          st.st_ino == o.st_ino)
        return Status::invalid_argument(out + " is " + *input +
                                        " of the dataset being built; refusing to replace "
                                        "one of its inputs with the cache");
    }
  return Status();
}

// Runs the build's pipeline in `arena` (serial read -> parallel process -> serial in-order
// collect) until every sample is collected, the collector reports an error or o.cancel is set;
// returns whether it was cancelled.
bool run_pipeline(tbb::task_arena& arena, const Dataset& ds, const CacheBuildOptions& o,
                  Collector& out) {
  const auto [first, count] = shard_inputs(ds.samples.size(), o.shard);
  const size_t end = first + count;
  const size_t tokens = static_cast<size_t>(std::max(2, 2 * arena.max_concurrency()));
  // Item i uses items[i % tokens]: with at most `tokens` items in flight and in-order output,
  // that item's previous sample has been written before sample i is read.
  std::vector<Item> items(tokens);
  tbb::enumerable_thread_specific<Worker> workers([&] { return Worker(o.decode); });
  bool cancelled = false;
  size_t next = first;
  arena.execute([&] {
    tbb::parallel_pipeline(
        tokens, tbb::make_filter<void, Item*>(tbb::filter_mode::serial_in_order,
                                              [&](tbb::flow_control& fc) -> Item* {
                                                cancelled =
                                                    cancelled || (o.cancel && o.cancel->load());
                                                if (next >= end || !out.error().ok() || cancelled) {
                                                  fc.stop();
                                                  return nullptr;
                                                }
                                                Item* it = &items[next % tokens];
                                                it->index = next++;
                                                return it;
                                              }) &
                    tbb::make_filter<Item*, Item*>(tbb::filter_mode::parallel,
                                                   [&](Item* it) {
                                                     process(*it, ds, o, workers.local());
                                                     return it;
                                                   }) &
                    tbb::make_filter<Item*, void>(tbb::filter_mode::serial_in_order,
                                                  [&](Item* it) { out.take(*it); }));
  });
  return cancelled;
}

// What the cache's footer records of its build.
cache::CacheMeta build_meta(const Dataset& ds, const CacheBuildOptions& o,
                            const BuildReport& report, double build_seconds) {
  cache::CacheMeta meta;
  meta.profile = std::string(augment::profile_name(o.profile));
  meta.image_size = o.image_size;
  meta.codec = o.codec;
  meta.jpeg_quality = o.codec == cache::PixelCodec::kJpeg ? o.jpeg_quality : 0;
  meta.build_unix_seconds = static_cast<int64_t>(std::time(nullptr));
  meta.build_seconds = build_seconds;
  meta.dataset_root = ds.root;
  meta.dataset_format = std::string(reader_format_name(ds.format));
  meta.quarantine = report.quarantine;
  const auto [first, count] = shard_inputs(ds.samples.size(), o.shard);
  meta.shard_index = o.shard.index;
  meta.shard_count = o.shard.count;
  meta.first_input = first;
  meta.num_inputs = count;
  meta.dataset_samples = ds.samples.size();
  meta.dataset_fingerprint = dataset_fingerprint(ds);
  meta.reader_options = describe(o.reader);
  meta.restart_rows = o.restart_rows;
  meta.max_bad_share = o.max_bad_share;
  return meta;
}

}  // namespace

Result<BuildReport> build_cache(const Dataset& ds, const CacheBuildOptions& o, WorkerPool& pool,
                                const std::function<void(const BuildProgress&)>& progress) {
  TF_RETURN_IF_ERROR(check_options(ds, o));
  if (o.force) TF_RETURN_IF_ERROR(check_out_is_not_an_input(ds, o.out));
  TF_ASSIGN_OR_RETURN(std::unique_ptr<cache::CacheWriter> writer,
                      cache::CacheWriter::create(o.out, o.force));

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const size_t n = shard_inputs(ds.samples.size(), o.shard).second;
  Collector out(ds, o, n, *writer, progress, elapsed);
  const bool cancelled = run_pipeline(internal::arena_of(pool), ds, o, out);
  // Returning before finish() destroys the writer, which removes its temporary file.
  if (cancelled)
    return Status::cancelled("interrupted after " + std::to_string(out.done()) + " of " +
                             std::to_string(n) + " images; nothing was written");
  TF_RETURN_IF_ERROR(out.error());
  BuildReport& report = out.report();
  // A shard may be all quarantined (within the dataset's budget): merged, it adds no sample.
  if (writer->num_samples() == 0 && o.shard.count == 1)
    return Status::corrupt("none of the " + std::to_string(n) +
                           " images could be used; nothing was written." + out.first_failures());

  TF_RETURN_IF_ERROR(writer->finish(build_meta(ds, o, report, elapsed())));
  report.samples = writer->num_samples();
  report.quarantined = report.quarantine.size();
  report.bytes = writer->bytes_written();
  report.seconds = elapsed();
  return std::move(report);
}

}  // namespace textfeed::loader
