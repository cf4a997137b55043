// textfeed bench: decode + augment + targets throughput of the batch pipeline, with a per-stage
// breakdown, measured side by side over several repeats (min and median).
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/printable.h"
#include "client/embedded_feed.h"
#include "client/remote_feed.h"
#include "loader/cache_build/cache_builder.h"
#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/sources/dataset_source.h"
#include "tools/client_options.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/spec_flags.h"

namespace textfeed::tools {
namespace {

struct BenchArgs {
  std::string dataset, from = "auto", cache_path, endpoint, transport = "auto";
  int threads = 1, samples = 64, repeat = 3, prefetch = 0;
  bool json = false;
  SpecFlags spec;
  CurveFlags curve;
};

double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Minor page faults of the whole process so far: a first touch of a fresh page (about 10 us per
// 4 KiB page on these machines, 100x a reused buffer) counts one.
long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Pulls batches from a feed (releasing each at once) and reports samples/s and payload GB/s,
// min / median / max over the repeats, after one warm-up batch.
void bench_feed(client::Feed& f, const BenchArgs& a, const std::string& what) {
  auto pull = [&]() -> size_t {
    auto b = f.next(std::chrono::minutes(10));
    if (!b.has_value()) fail("bench", b.error().to_string());
    if (!*b) fail("bench", "no batch within 10 minutes");
    for (const auto& e : (*b)->errors)
      TF_LOG(Warning) << "bench: " << describe(e);  // the command's --log-level governs it
    const size_t rows = (*b)->indices.size();
    f.release((*b)->slot);
    return rows;
  };
  size_t row_bytes = 0;
  for (const TensorDesc& t : f.layout().tensors) row_bytes += t.sample_bytes;
  pull();
  std::vector<double> rates, gbps, cpu_ms;
  for (int r = 0; r < a.repeat; ++r) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    size_t done = 0;
    while (done < static_cast<size_t>(a.samples)) done += pull();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rates.push_back(done / wall);
    gbps.push_back(done * row_bytes / wall / 1e9);
    cpu_ms.push_back((cpu_seconds() - c0) * 1e3 / done);
  }
  const client::FeedStats st = f.stats();
  auto mn = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  auto mx = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  if (a.json) {
    nlohmann::ordered_json j;
    j["source"] = what;
    j["transport"] = std::string(client::feed_transport_name(st.transport));
    j["profile"] = a.spec.profile;
    j["batch_size"] = f.layout().batch_size;
    j["samples_per_repeat"] = a.samples;
    j["repeats"] = a.repeat;
    j["samples_per_s"] = {{"min", mn(rates)}, {"median", median(rates)}, {"max", mx(rates)}};
    j["payload_gb_per_s"] = {{"min", mn(gbps)}, {"median", median(gbps)}, {"max", mx(gbps)}};
    j["client_cpu_ms_per_sample"] = {{"min", mn(cpu_ms)}, {"median", median(cpu_ms)}};
    std::cout << json_text(j) << "\n";
    return;
  }
  std::printf("source        %s via %s\nprofile       %s, batch %d, %d repeats of >= %d samples\n",
              printable(what).c_str(),
              std::string(client::feed_transport_name(st.transport)).c_str(),
              a.spec.profile.c_str(), f.layout().batch_size, a.repeat, a.samples);
  std::printf("samples/s     min %.1f  median %.1f  max %.1f\n", mn(rates), median(rates),
              mx(rates));
  std::printf("payload GB/s  min %.2f  median %.2f  max %.2f  (%.1f MB per sample)\n", mn(gbps),
              median(gbps), mx(gbps), row_bytes / 1e6);
  std::printf("this process: CPU ms/sample min %.2f  median %.2f\n", mn(cpu_ms), median(cpu_ms));
}

void run_remote(const BenchArgs& a) {
  keep_large_allocations_in_heap();  // frames payloads: reused heap, not fresh pages per message
  client::RemoteOptions o;
  o.endpoint = a.endpoint;
  o.client_name = "textfeed bench";
  o.spec = build_spec("bench", a.spec, a.dataset);
  o.transport = *transport::parse_transport(a.transport);  // CLI has checked the name
  o.prefetch = static_cast<uint32_t>(a.prefetch > 0 ? a.prefetch : 4);
  o.curve = curve_client_options("bench", a.curve);
  auto feed = client::open_remote_feed(o);
  if (!feed.has_value()) fail("bench", feed.error().to_string(), 2);
  bench_feed(**feed, a, "'" + a.dataset + "' at " + a.endpoint);
}

// The source --from asks for: --dataset as it is, or a cache built from it first (not timed) in
// --cache or in `temp`, a private scratch folder removed on every exit.
std::shared_ptr<const loader::SampleSource> bench_source(const BenchArgs& a,
                                                         const loader::PipelineSpec& spec,
                                                         loader::WorkerPool& pool,
                                                         std::optional<ScratchFolder>& temp) {
  const loader::ReaderOptions& reader = spec.sources[0].reader;
  auto probe = loader::SampleSource::open(a.dataset, reader);
  if (!probe.has_value()) fail("bench", probe.error().to_string(), 2);
  // Only a dataset folder is built into a cache; any other source (a cache) is benched as it is.
  const auto* dataset = dynamic_cast<const loader::DatasetSource*>(probe->get());
  if (a.from == "dataset" && dataset == nullptr)
    fail("bench", a.dataset + " is a cache; --from dataset needs a dataset folder", 2);
  if (a.from != "cache" || dataset == nullptr) return *probe;
  if (a.cache_path.empty()) {
    auto folder =
        ScratchFolder::create(std::filesystem::temp_directory_path().string(), "textfeed-bench-");
    if (!folder.has_value()) fail("bench", folder.error().to_string());
    temp.emplace(std::move(*folder));
  }
  const std::string path = temp ? temp->path() + "/bench.tfc" : a.cache_path;
  // A file the user named is never replaced (bench has no --force): an existing cache is
  // benched by naming it as --dataset, anything else is not bench's to overwrite.
  std::error_code ec;
  if (!temp &&
      std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found)
    fail("bench",
         "--cache " + path +
             " exists; bench builds a new cache there and replaces nothing "
             "(remove it, or bench that cache with --dataset " +
             path + ")",
         2);
  loader::CacheBuildOptions co;
  co.out = path;
  co.profile = spec.augment.profile;
  co.image_size = spec.augment.image_size;
  co.force = temp.has_value();  // only the private scratch folder's own file
  co.reader = reader;
  std::fprintf(stderr, "bench: building cache %s ...\n", printable(path).c_str());
  auto rep = loader::build_cache(dataset->dataset(), co, pool, nullptr);
  if (!rep.has_value()) fail("bench", rep.error().to_string());
  auto built = loader::SampleSource::open(path, reader);
  if (!built.has_value()) fail("bench", built.error().to_string());
  return *built;
}

// What the timed repeats of one-fill-at-a-time measured.
struct FillMeasurements {
  std::vector<double> rates, cpu_ms;         // per repeat
  std::vector<double> faults;                // minor page faults per sample, per repeat
  double stage_ms[loader::kNumStages] = {};  // per sample, over every repeat
};

FillMeasurements measure_fills(loader::BatchPipeline& p, loader::WorkerPool& pool,
                               const BenchArgs& a) {
  std::vector<uint8_t> slot(p.layout().slot_bytes);
  BatchInfo info;
  const size_t per_epoch = p.sampler().batches_per_epoch();
  uint64_t epoch = 0;
  size_t batch = 0;
  auto next_batch = [&]() -> size_t {
    if (Status s = p.fill(epoch, batch, slot.data(), info, pool); !s.ok())
      fail("bench", s.to_string());
    for (const auto& e : info.errors)
      TF_LOG(Warning) << "bench: " << describe(e);  // the command's --log-level governs it
    if (++batch == per_epoch) batch = 0, ++epoch;
    return info.indices.size();
  };
  next_batch();  // warm-up: allocations, page faults, cache mapping

  FillMeasurements m;
  const loader::StageTimes before = p.stage_times();
  uint64_t timed_samples = 0;
  for (int r = 0; r < a.repeat; ++r) {
    const double c0 = cpu_seconds();
    const long f0 = minor_faults();
    const auto t0 = std::chrono::steady_clock::now();
    size_t done = 0;
    while (done < static_cast<size_t>(a.samples)) done += next_batch();
    m.faults.push_back(static_cast<double>(minor_faults() - f0) / static_cast<double>(done));
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.rates.push_back(done / wall);
    m.cpu_ms.push_back((cpu_seconds() - c0) * 1e3 / done);
    timed_samples += done;
  }
  const loader::StageTimes after = p.stage_times();
  const double after_s[] = {after.read, after.decode,      after.plan,
                            after.warp, after.photometric, after.targets};
  const double before_s[] = {before.read, before.decode,      before.plan,
                             before.warp, before.photometric, before.targets};
  for (int i = 0; i < loader::kNumStages; ++i)
    m.stage_ms[i] = (after_s[i] - before_s[i]) * 1e3 / timed_samples;
  return m;
}

void print_fills(const BenchArgs& a, const loader::SampleSource& source, int batch_size,
                 const FillMeasurements& m) {
  const auto mn = [](const std::vector<double>& v) {
    return *std::min_element(v.begin(), v.end());
  };
  const auto mx = [](const std::vector<double>& v) {
    return *std::max_element(v.begin(), v.end());
  };
  if (a.json) {
    nlohmann::ordered_json j;
    j["source"] = source.describe();
    j["profile"] = a.spec.profile;
    j["threads"] = a.threads;
    j["batch_size"] = batch_size;
    j["samples_per_repeat"] = a.samples;
    j["repeats"] = a.repeat;
    j["samples_per_s"] = {{"min", mn(m.rates)}, {"median", median(m.rates)}, {"max", mx(m.rates)}};
    j["cpu_ms_per_sample"] = {{"min", mn(m.cpu_ms)}, {"median", median(m.cpu_ms)}};
    j["minor_faults_per_sample"] = {{"first_repeat", m.faults.front()},
                                    {"last_repeat", m.faults.back()}};
    nlohmann::ordered_json s;
    for (int i = 0; i < loader::kNumStages; ++i)
      s[std::string(loader::kStageNames[i])] = m.stage_ms[i];
    j["stage_ms_per_sample"] = s;
    std::cout << json_text(j) << "\n";
    return;
  }
  std::printf(
      "source        %s\nprofile       %s, batch %d, %d thread(s), %d repeats of >= %d samples\n",
      printable(source.describe()).c_str(), a.spec.profile.c_str(), batch_size, a.threads, a.repeat,
      a.samples);
  std::printf("samples/s     min %.1f  median %.1f  max %.1f\n", mn(m.rates), median(m.rates),
              mx(m.rates));
  std::printf("CPU ms/sample min %.2f  median %.2f\n", mn(m.cpu_ms), median(m.cpu_ms));
  // Buffers grow to the largest sample seen, and code runs for the first time, early on: the last
  // repeat is the steady state.
  std::printf(
      "minor faults  per sample (fresh pages touched): first repeat %.1f, last repeat %.1f\n",
      m.faults.front(), m.faults.back());
  std::printf("stage ms/sample (wall, summed over threads):");
  for (int i = 0; i < loader::kNumStages; ++i)
    std::printf("  %s %.2f", std::string(loader::kStageNames[i]).c_str(), m.stage_ms[i]);
  std::printf("\n");
}

void run(const BenchArgs& a) {
  if (Status s = loader::check_worker_threads(a.threads); !s.ok()) fail("bench", s.message(), 2);
  if (!a.endpoint.empty()) return run_remote(a);
  const loader::PipelineSpec spec = build_spec("bench", a.spec, a.dataset);
  auto pool = loader::WorkerPool::create(a.threads);
  if (!pool.has_value()) fail("bench", pool.error().to_string());
  std::optional<ScratchFolder> temp;
  const std::shared_ptr<const loader::SampleSource> source = bench_source(a, spec, **pool, temp);
  if (a.prefetch > 0) {
    // The embedded feed: the pipeline as a training process gets it, `prefetch` batches ahead.
    client::EmbeddedOptions eo;
    eo.pipeline = spec;
    eo.threads = a.threads;
    eo.prefetch = static_cast<uint32_t>(a.prefetch);
    auto feed = client::EmbeddedFeed::open(source, eo);
    if (!feed.has_value()) fail("bench", feed.error().to_string(), 2);
    bench_feed(**feed, a,
               source->describe() + ", " + std::to_string(a.threads) + " thread(s) in process");
    return;
  }
  auto pipeline = loader::BatchPipeline::create(source, spec);
  if (!pipeline.has_value()) fail("bench", pipeline.error().to_string(), 2);
  print_fills(a, *source, spec.sampler.batch_size, measure_fills(**pipeline, **pool, a));
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench",
                                     "Measure the batch pipeline (decode + augment + the profile's "
                                     "targets: EAST or DB): samples/s, CPU-ms per sample and "
                                     "a per-stage breakdown, min/median over repeats.");
  cmd->add_option(
         "--dataset", a->dataset,
         "dataset folder, UFO .json, a cache file (.tfc) or a cache manifest (.tfmanifest); with "
         "--endpoint, the daemon's dataset NAME")
      ->required();
  cmd->add_option(
      "--endpoint", a->endpoint,
      "measure batches delivered by a running `textfeed serve` to this process instead");
  cmd->add_option("--prefetch", a->prefetch,
                  "in process: measure the embedded feed with this many batches in flight (as a "
                  "training loop "
                  "gets them) instead of one fill at a time; with --endpoint: credits (default 4)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--transport", a->transport, "with --endpoint: auto | shm | frames")
      ->check(CLI::IsMember({"auto", "shm", "frames"}));
  add_curve_flags(cmd, a->curve);
  add_spec_flags(cmd, a->spec, kReaderFlags | kRecipeFlags | kSamplerFlags);
  cmd->add_option("--from", a->from,
                  "auto (whatever --dataset is) | dataset | cache (builds a temporary cache "
                  "first unless --cache names one)")
      ->check(CLI::IsMember({"auto", "dataset", "cache"}));
  cmd->add_option("--cache", a->cache_path,
                  "with --from cache: where to build (and keep) the cache; must not exist (an "
                  "existing cache is "
                  "benched with --dataset)");
  cmd->add_option("--threads", a->threads,
                  "worker threads, at most " + std::to_string(loader::kMaxWorkerThreads) +
                      " (default 1; 0: one per core)");
  cmd->add_option("--samples", a->samples, "samples per repeat (default 64)")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--repeat", a->repeat, "timed repeats (default 3)")->check(CLI::Range(1, 1000));
  cmd->add_flag("--json", a->json, "print one JSON object");
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
