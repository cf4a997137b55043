// textfeed cache bench: the figures the cache is judged by, on one dataset.
//   decode   pure decode rate, one thread: files already in memory, header + DCT-scaled decode at
//            the scale the build uses (what a build cannot avoid doing)
//   build    `cache build` rate with --threads N, against decode rate x N
//   write    the build's serial stage alone (CacheWriter::add per sample): the rate above which
//            more threads cannot help
//   read     CacheReader::sample() on a warm cache: first read (checksum + parse) and later reads
#include <oneapi/tbb/task_arena.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cache/cache.h"
#include "loader/cache_build/cache_builder.h"
#include "loader/pipeline/pipeline.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/spec_flags.h"

namespace textfeed::tools {
namespace {

struct BenchArgs {
  std::string dataset, profile = "upstage", codec = "raw", dir;
  int threads = 0;
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double cpu_s(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Rate {
  double per_s = 0;   // samples per wall second
  double cpu_ms = 0;  // CPU milliseconds per sample (thread or process clock)
};

struct WriteCost {
  double per_s = 0;       // samples per wall second, finish() included
  double add_ms = 0;      // wall ms per add()
  double add_cpu_ms = 0;  // CPU ms per add()
  double finish_ms = 0;   // wall ms of finish(): meta, index, footer, fsync, rename
};

// Decodes every file once, as the build does before resizing.
Rate decode_rate(const loader::Dataset& ds, const std::vector<std::vector<uint8_t>>& files,
                 int image_size) {
  loader::Decoder decoder;
  Image out;
  const double t0 = now_s(), c0 = cpu_s(CLOCK_THREAD_CPUTIME_ID);
  size_t done = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    auto info = decoder.read_info(files[i], ds.samples[i].image);
    if (!info.has_value()) continue;
    const loader::ResizePlan rp =
        image_size > 0 ? loader::reference_resize(info->width, info->height, image_size)
                       : loader::ResizePlan{info->width, info->height, 1.0f};
    const int eighths =
        loader::fast_dct_eighths(std::max(static_cast<double>(rp.width) / info->width,
                                          static_cast<double>(rp.height) / info->height));
    if (decoder.decode_eighths(files[i], ds.samples[i].image, eighths, out).ok()) ++done;
  }
  const double wall = now_s() - t0, cpu = cpu_s(CLOCK_THREAD_CPUTIME_ID) - c0;
  return {done / wall, cpu * 1e3 / std::max<size_t>(done, 1)};
}

// Rewrites the samples of `cache` through a fresh CacheWriter: the serial stage of a build.
WriteCost write_rate(const cache::CacheReader& cache, const std::string& path) {
  auto w = cache::CacheWriter::create(path, true);
  if (!w.has_value()) fail("cache bench", w.error().to_string());
  std::vector<std::string> texts;
  double busy = 0, cpu = 0;
  for (size_t i = 0; i < cache.size(); ++i) {
    auto v = cache.sample(i);
    if (!v.has_value()) fail("cache bench", v.error().to_string());
    const std::vector<std::string_view> views = v->texts();
    texts.assign(views.begin(), views.end());
    const cache::SampleData d{v->name,  v->orig_width, v->orig_height, v->width,  v->height,
                              v->codec, v->pixels,     v->quads,       v->labels, texts};
    const double t0 = now_s(), c0 = cpu_s(CLOCK_THREAD_CPUTIME_ID);
    if (Status s = (*w)->add(d); !s.ok()) fail("cache bench", s.to_string());
    busy += now_s() - t0;
    cpu += cpu_s(CLOCK_THREAD_CPUTIME_ID) - c0;
  }
  const double t0 = now_s();
  if (Status s = (*w)->finish({}); !s.ok()) fail("cache bench", s.to_string());
  const double finish = now_s() - t0;  // meta, index, footer, the rest of the fsync, rename
  std::filesystem::remove(path);
  const size_t n = std::max<size_t>(cache.size(), 1);
  return {n / (busy + finish), busy * 1e3 / n, cpu * 1e3 / n, finish * 1e3};
}

struct BuildCost {
  Rate rate;                    // per wall second; CPU ms of the whole process per sample
  double bytes_per_sample = 0;  // in the cache file
};

struct ReadCost {
  double first_us = 0;  // per sample, the first read of each (checksum + parse)
  double later_us = 0;  // per sample, the three reads after it
};

struct Figures {
  Rate decode;  // one thread
  BuildCost build;
  WriteCost write;
  ReadCost read;
};

// Every image of `ds` in memory, so that the decode rate counts no file reads.
std::vector<std::vector<uint8_t>> read_files(const loader::Dataset& ds) {
  std::vector<std::vector<uint8_t>> files(ds.samples.size());
  for (size_t i = 0; i < files.size(); ++i)
    if (Status s = loader::read_file(ds.image_path(i), files[i]); !s.ok())
      fail("cache bench", s.to_string());
  return files;
}

// What `cache build` would be given: the cache at `path`, replaced if there.
loader::CacheBuildOptions build_options(const BenchArgs& a, augment::Profile profile,
                                        int image_size, const std::string& path) {
  loader::CacheBuildOptions o;
  o.out = path;
  o.profile = profile;
  o.image_size = image_size;
  o.codec = a.codec == "jpeg" ? cache::PixelCodec::kJpeg : cache::PixelCodec::kRaw;
  o.force = true;
  return o;
}

// Builds the cache of `ds` as `o` says, on `pool`.
BuildCost build_rate(const loader::Dataset& ds, const loader::CacheBuildOptions& o,
                     loader::WorkerPool& pool) {
  const double c0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
  auto report = loader::build_cache(ds, o, pool, nullptr);
  if (!report.has_value()) fail("cache bench", report.error().to_string());
  const Rate build{report->samples / report->seconds, (cpu_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3 /
                                                          std::max<size_t>(report->samples, 1)};
  return {build, static_cast<double>(report->bytes) / std::max<size_t>(report->samples, 1)};
}

// Reads every sample of `r` four times: the first pass checks each record, the others do not.
ReadCost read_rate(const cache::CacheReader& r) {
  double first = 0, later = 0;
  for (int pass = 0; pass < 4; ++pass) {
    const double t0 = now_s();
    for (size_t i = 0; i < r.size(); ++i)
      if (!r.sample(i).has_value()) fail("cache bench", r.sample(i).error().to_string());
    (pass == 0 ? first : later) += now_s() - t0;
  }
  return {first * 1e6 / r.size(), later * 1e6 / (3.0 * r.size())};
}

// The figures as one JSON object on stdout.
void print_figures(const BenchArgs& a, const loader::Dataset& ds, int threads, const Figures& f) {
  const Rate& decode = f.decode;
  const Rate& build = f.build.rate;
  const WriteCost& write = f.write;
  const double ideal = decode.per_s * threads;
  nlohmann::ordered_json j;
  j["dataset"] = ds.root;
  j["samples"] = ds.samples.size();
  j["profile"] = a.profile;
  j["codec"] = a.codec;
  j["threads"] = threads;
  j["decode_1_thread"] = {{"samples_per_s", decode.per_s}, {"cpu_ms_per_sample", decode.cpu_ms}};
  j["build"] = {{"samples_per_s", build.per_s},
                {"cpu_ms_per_sample", build.cpu_ms},
                {"bytes_per_sample", f.build.bytes_per_sample}};
  j["build_vs_decode_x_threads"] = build.per_s / ideal;
  j["build_cpu_vs_decode_cpu"] = decode.cpu_ms / build.cpu_ms;
  j["serial_write"] = {{"samples_per_s", write.per_s},
                       {"add_ms", write.add_ms},
                       {"add_cpu_ms", write.add_cpu_ms},
                       {"finish_ms", write.finish_ms},
                       {"threads_it_can_feed", write.per_s / decode.per_s}};
  j["read_us_per_sample"] = {{"first_with_checksum", f.read.first_us}, {"later", f.read.later_us}};
  std::printf("%s\n", json_text(j).c_str());
}

void run(const BenchArgs& a) {
  auto profile = augment::parse_profile(a.profile);
  if (!profile.has_value()) fail("cache bench", profile.error().message(), 2);
  const int image_size = augment::profile_defaults(*profile).image_size;
  auto ds = loader::open_dataset(a.dataset, {});
  if (!ds.has_value()) fail("cache bench", ds.error().to_string(), 2);
  if (ds->samples.empty()) fail("cache bench", a.dataset + " has no samples", 2);
  const std::vector<std::vector<uint8_t>> files = read_files(*ds);

  const int threads = a.threads > 0 ? a.threads : tbb::this_task_arena::max_concurrency();
  Figures f;
  f.decode = decode_rate(*ds, files, image_size);

  // A private folder for the temporary caches: nothing planted in a shared /tmp stands in for them,
  // and they go with it on every exit.
  auto scratch =
      ScratchFolder::create(a.dir.empty() ? std::filesystem::temp_directory_path().string() : a.dir,
                            "textfeed-cache-bench-");
  if (!scratch.has_value()) fail("cache bench", scratch.error().to_string(), 2);
  const std::string path = scratch->path() + "/bench.tfc";
  loader::WorkerPool pool(threads);
  f.build = build_rate(*ds, build_options(a, *profile, image_size, path), pool);

  auto reader = cache::CacheReader::open(path);  // a fresh reader: no sample checked yet
  if (!reader.has_value()) fail("cache bench", reader.error().to_string());
  f.read = read_rate(**reader);
  f.write = write_rate(**reader, path + ".rewrite");
  std::filesystem::remove(path);
  print_figures(a, *ds, threads, f);
}

}  // namespace

void add_cache_bench_command(CLI::App& cache_cmd) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = cache_cmd.add_subcommand(
      "bench",
      "Measure pure decode rate, build rate (vs decode rate x threads), the serial write stage "
      "and warm reads, on one dataset; prints JSON.");
  cmd->add_option("--dataset", a->dataset, "dataset folder or UFO .json")->required();
  cmd->add_option("--profile", a->profile, profile_help())->check(CLI::IsMember(profile_names()));
  cmd->add_option("--codec", a->codec, "raw | jpeg")->check(CLI::IsMember({"raw", "jpeg"}));
  cmd->add_option("--threads", a->threads, "build threads (default: all cores)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--dir", a->dir,
                  "folder for the temporary cache (default: the system temp folder)");
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
