// build_cache: serial read -> parallel decode/resize/encode -> serial in-order write (oneTBB).
#include "loader/cache_builder.h"

#include <chrono>
#include <cstring>
#include <ctime>

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <opencv2/imgproc.hpp>
#include <turbojpeg.h>

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
  int orig_width = 0, orig_height = 0;
};

struct Worker {
  Decoder decoder;
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
  if (tjCompress2(w.compressor, img.data(), img.width(), 0, img.height(), TJPF_RGB, &dst, &size, TJSAMP_420,
                  quality, TJFLAG_NOREALLOC) != 0)
    return Status::internal(std::string("JPEG encode failed: ") + tjGetErrorStr2(w.compressor));
  out.resize(size);
  return Status();
}

void process(Item& it, const Dataset& ds, const CacheBuildOptions& o, Worker& w) {
  const SampleRecord& rec = ds.samples[it.index];
  const std::string path = ds.image_path(it.index);
  it.status = read_file(path, it.file);
  if (!it.status.ok()) return;
  auto info = w.decoder.read_info(it.file, path);
  if (!info.has_value()) {
    it.status = info.error();
    return;
  }
  it.orig_width = info->width;
  it.orig_height = info->height;
  const ResizePlan rp = o.image_size > 0 ? reference_resize(info->width, info->height, o.image_size)
                                         : ResizePlan{info->width, info->height, 1.0f};
  const int eighths = fast_dct_eighths(std::max(static_cast<double>(rp.width) / info->width,
                                                static_cast<double>(rp.height) / info->height));
  it.status = w.decoder.decode_eighths(it.file, path, eighths, it.decoded);
  if (!it.status.ok()) return;
  // Reserve 3 spare columns (>= 8 bytes) past the image and zero the first 8: the writer
  // references the pixels in place and pads them to a whole word with those bytes.
  it.stored.reset(rp.height, rp.width + 3, 3);
  it.stored.reset(rp.height, rp.width, 3);
  std::memset(it.stored.data() + it.stored.size_bytes(), 0, 8);
  if (it.decoded.width() == rp.width && it.decoded.height() == rp.height) {
    std::memcpy(it.stored.data(), it.decoded.data(), it.stored.size_bytes());
  } else {
    const cv::Mat src(it.decoded.height(), it.decoded.width(), CV_8UC3, it.decoded.data());
    cv::Mat dst(rp.height, rp.width, CV_8UC3, it.stored.data());
    // Below 0.75 bilinear would skip source pixels (aliasing): average them instead. Above it,
    // bilinear is what the reference's PIL filter nearly is, at a fraction of INTER_AREA's cost.
    const double ratio = std::min(static_cast<double>(rp.width) / it.decoded.width(),
                                  static_cast<double>(rp.height) / it.decoded.height());
    cv::resize(src, dst, dst.size(), 0, 0, ratio < 0.75 ? cv::INTER_AREA : cv::INTER_LINEAR);
  }
  it.quads.assign(rec.quads.begin(), rec.quads.end());
  for (Quad& q : it.quads)
    for (float& v : q.xy) v *= rp.quad_scale;  // float32 * float32, as numpy does
  if (o.codec == cache::PixelCodec::kJpeg) it.status = encode_jpeg(w, it.stored, o.jpeg_quality, it.jpeg);
}

}  // namespace

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

Result<BuildReport> build_cache(const Dataset& ds, const CacheBuildOptions& o, tbb::task_arena& arena,
                                const std::function<void(const BuildProgress&)>& progress) {
  if (o.image_size < 0) return Status::invalid_argument("image_size must be >= 0");
  if (o.codec == cache::PixelCodec::kJpeg && (o.jpeg_quality < 1 || o.jpeg_quality > 100))
    return Status::invalid_argument("JPEG quality must be in 1..100, got " + std::to_string(o.jpeg_quality));
  TF_ASSIGN_OR_RETURN(std::unique_ptr<cache::CacheWriter> writer, cache::CacheWriter::create(o.out, o.force));

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const size_t n = ds.samples.size();
  const size_t tokens = static_cast<size_t>(std::max(2, 2 * arena.max_concurrency()));
  // Item i uses pool slot i % tokens: with at most `tokens` items in flight and in-order output,
  // that slot's previous item has been written before item i is read.
  std::vector<Item> pool(tokens);
  tbb::enumerable_thread_specific<Worker> workers([&] { return Worker(o.decode); });
  BuildReport report;
  BuildProgress prog;
  prog.total = n;
  Status write_error;
  size_t next = 0;

  arena.execute([&] {
    tbb::parallel_pipeline(
        tokens,
        tbb::make_filter<void, Item*>(tbb::filter_mode::serial_in_order,
                                      [&](tbb::flow_control& fc) -> Item* {
                                        if (next >= n || !write_error.ok()) {
                                          fc.stop();
                                          return nullptr;
                                        }
                                        Item* it = &pool[next % tokens];
                                        it->index = next++;
                                        return it;
                                      }) &
            tbb::make_filter<Item*, Item*>(tbb::filter_mode::parallel,
                                           [&](Item* it) {
                                             process(*it, ds, o, workers.local());
                                             return it;
                                           }) &
            tbb::make_filter<Item*, void>(tbb::filter_mode::serial_in_order, [&](Item* it) {
              const SampleRecord& rec = ds.samples[it->index];
              if (!it->status.ok()) {
                report.quarantine.push_back({rec.image, it->status.message()});
              } else if (write_error.ok()) {
                cache::SampleData d;
                d.name = rec.image;
                d.orig_width = it->orig_width;
                d.orig_height = it->orig_height;
                d.width = it->stored.width();
                d.height = it->stored.height();
                d.codec = o.codec;
                d.pixels = o.codec == cache::PixelCodec::kJpeg
                               ? std::span<const uint8_t>(it->jpeg)
                               : std::span<const uint8_t>(it->stored.data(), it->stored.size_bytes());
                d.quads = it->quads;
                d.labels = rec.labels;
                d.texts = rec.texts;
                write_error = writer->add(d);
              }
              ++prog.done;
              prog.quarantined = report.quarantine.size();
              prog.bytes = writer->bytes_written();
              prog.seconds = elapsed();
              if (progress) progress(prog);
            }));
  });
  TF_RETURN_IF_ERROR(write_error);

  cache::CacheMeta meta;
  meta.profile = std::string(augment::profile_name(o.profile));
  meta.image_size = o.image_size;
  meta.codec = o.codec;
  meta.jpeg_quality = o.codec == cache::PixelCodec::kJpeg ? o.jpeg_quality : 0;
  meta.build_unix_seconds = static_cast<int64_t>(std::time(nullptr));
  meta.build_seconds = elapsed();
  meta.dataset_root = ds.root;
  meta.dataset_format = ds.format == DatasetFormat::kUfo ? "ufo" : "icdar15";
  meta.quarantine = report.quarantine;
  TF_RETURN_IF_ERROR(writer->finish(std::move(meta)));
  report.samples = writer->num_samples();
  report.quarantined = report.quarantine.size();
  report.bytes = writer->bytes_written();
  report.seconds = elapsed();
  return report;
}

}  // namespace textfeed::loader
