// textfeed cache build | inspect | verify: the memory-mapped sample cache (docs/cache_format.md).
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "base/printable.h"
#include "cache/cache.h"
#include "loader/worker_pool.h"
#include "loader/cache_builder.h"
#include "tools/commands.h"
#include "tools/spec_flags.h"
#include "tools/output.h"

namespace textfeed::tools {

// tools/cache_bench.cc: `textfeed cache bench`.
void add_cache_bench_command(CLI::App& cache_cmd);

namespace {

struct BuildArgs {
  std::string dataset, out, profile = "upstage", codec = "raw";
  int image_size = 0, quality = 95, threads = 0;
  bool image_size_given = false;  // else the profile's
  double max_bad = loader::CacheBuildOptions().max_bad_share;
  bool force = false, restart_rows = false;
  SpecFlags reader;
};

// SIGINT, SIGTERM and SIGHUP during a build. The handler only records the signal (a lock-free
// atomic store and a sig_atomic_t are all a handler may touch); the build polls the flag between
// samples, stops, and removes its temporary file, and the command exits with 128 + the signal.
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_stop_signal = 0;
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_stop_signal(int sig) {
  g_stop_signal = sig;
  g_stop.store(true);
}

// Installs on_stop_signal while it lives; the previous handlers come back after.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &sa, &previous_[i]);
  }
  ~StopSignals() {
    for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> previous_{};
};

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char s[32];
  std::snprintf(s, sizeof(s), "%.1f %s", b, units[u]);
  return s;
}

// A bar on a terminal, a plain line every 10% (or 10 s) otherwise.
class ProgressPrinter {
 public:
  ProgressPrinter() : tty_(::isatty(STDERR_FILENO)) {}
  void operator()(const loader::BuildProgress& p) {
    const double rate = p.seconds > 0 ? p.done / p.seconds : 0;
    const double eta = rate > 0 ? (p.total - p.done) / rate : 0;
    if (tty_) {
      const int width = 30, filled = p.total ? static_cast<int>(width * p.done / p.total) : width;
      std::fprintf(stderr, "\r[%s%s] %zu/%zu  %.1f img/s  ETA %.0fs  %s  quarantined %zu ",
                   std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), p.done,
                   p.total, rate, eta, human_bytes(static_cast<double>(p.bytes)).c_str(), p.quarantined);
      if (p.done == p.total) std::fprintf(stderr, "\n");
      return;
    }
    const size_t decile = p.total ? 10 * p.done / p.total : 10;
    if (decile != last_decile_ || p.seconds - last_print_ >= 10 || p.done == p.total) {
      std::fprintf(stderr, "cache build: %zu/%zu samples, %.1f img/s, ETA %.0f s, %s, %zu quarantined\n",
                   p.done, p.total, rate, eta, human_bytes(static_cast<double>(p.bytes)).c_str(),
                   p.quarantined);
      last_decile_ = decile;
      last_print_ = p.seconds;
    }
  }

 private:
  bool tty_;
  size_t last_decile_ = 0;
  double last_print_ = 0;
};

void run_build(const BuildArgs& a) {
  if (Status s = loader::check_worker_threads(a.threads); !s.ok()) fail("cache build", s.message(), 2);
  auto profile = augment::parse_profile(a.profile);
  if (!profile.has_value()) fail("cache build", profile.error().message(), 2);
  loader::CacheBuildOptions o;
  o.out = a.out;
  o.profile = *profile;
  o.image_size = a.image_size_given ? a.image_size : augment::profile_defaults(*profile).image_size;
  o.codec = a.codec == "jpeg" ? cache::PixelCodec::kJpeg : cache::PixelCodec::kRaw;
  o.jpeg_quality = a.quality;
  o.restart_rows = a.restart_rows;
  o.force = a.force;
  o.max_bad_share = a.max_bad;
  o.cancel = &g_stop;
  // Checked before the dataset is read (which may take minutes); build_cache checks them again.
  if (!(a.max_bad >= 0 && a.max_bad <= 1)) fail("cache build", "--max-bad must be in [0, 1]", 2);
  if (o.image_size != 0 && (o.image_size < 32 || o.image_size > 32768))
    fail("cache build", "--image-size must be 0 (keep the source size) or in [32, 32768], got " +
                            std::to_string(o.image_size), 2);
  auto ds = loader::open_dataset(a.dataset, reader_options("cache build", a.reader));
  if (!ds.has_value()) fail("cache build", ds.error().to_string(), 2);
  for (const loader::BadRecord& b : ds->bad)
    std::fprintf(stderr, "cache build: annotation problem: %s%s: %s\n", printable(b.file).c_str(),
                 b.line ? (":" + std::to_string(b.line)).c_str() : "", printable(b.reason).c_str());
  const int threads = loader::resolve_worker_threads(a.threads);
  loader::WorkerPool pool(threads);
  std::fprintf(stderr, "cache build: %zu images from %s, profile %s, image_size %d, codec %s, %d threads\n",
               ds->samples.size(), printable(ds->root).c_str(), a.profile.c_str(), o.image_size, a.codec.c_str(),
               threads);
  ProgressPrinter printer;
  auto report = [&] {
    StopSignals stop;
    return loader::build_cache(*ds, o, pool, [&](const loader::BuildProgress& p) { printer(p); });
  }();
  if (!report.has_value() && report.error().code() == Code::kCancelled && g_stop_signal != 0)
    fail("cache build", std::string(strsignal(g_stop_signal)) + ": " + report.error().message(),
         128 + g_stop_signal);
  if (!report.has_value()) fail("cache build", report.error().to_string());
  for (const cache::QuarantineEntry& q : report->quarantine)
    std::fprintf(stderr, "cache build: quarantined %s: %s\n", printable(q.file).c_str(), printable(q.reason).c_str());
  std::printf("wrote %s: %zu samples, %zu quarantined, %s in %.1f s (%.1f img/s)\n", printable(a.out).c_str(),
              report->samples, report->quarantined, human_bytes(static_cast<double>(report->bytes)).c_str(),
              report->seconds, report->seconds > 0 ? report->samples / report->seconds : 0.0);
}

std::shared_ptr<const cache::CacheReader> open_or_fail(const std::string& cmd, const std::string& path) {
  auto r = cache::CacheReader::open(path);
  if (!r.has_value()) fail(cmd, r.error().to_string(), 2);
  return *r;
}

void run_inspect(const std::string& path, bool json) {
  auto r = open_or_fail("cache inspect", path);
  const cache::CacheMeta& m = r->meta();
  if (json) {
    nlohmann::ordered_json j;
    j["path"] = path;
    j["samples"] = r->size();
    j["file_bytes"] = r->file_bytes();
    j["pixel_bytes"] = m.pixel_bytes;
    j["raw_pixel_bytes"] = m.raw_pixel_bytes;
    j["bytes_per_sample"] = r->size() ? r->file_bytes() / r->size() : 0;
    j["codec"] = cache::codec_name(m.codec);
    j["jpeg_quality"] = m.jpeg_quality;
    j["profile"] = m.profile;
    j["image_size"] = m.image_size;
    j["words"] = m.num_words;
    j["ignored_words"] = m.num_ignored;
    j["dataset_root"] = m.dataset_root;
    j["dataset_format"] = m.dataset_format;
    j["build_unix_seconds"] = m.build_unix_seconds;
    j["build_seconds"] = m.build_seconds;
    j["quarantine"] = nlohmann::json::array();
    for (const auto& q : m.quarantine) j["quarantine"].push_back({{"file", q.file}, {"reason", q.reason}});
    std::cout << json_text(j) << "\n";
    return;
  }
  char when[64] = "?";
  const time_t t = static_cast<time_t>(m.build_unix_seconds);
  std::strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  std::printf("cache         %s\nsamples       %zu\nfile size     %s (%s per sample)\npixels        %s, codec %s",
              printable(path).c_str(), r->size(), human_bytes(static_cast<double>(r->file_bytes())).c_str(),
              human_bytes(r->size() ? static_cast<double>(r->file_bytes()) / r->size() : 0).c_str(),
              human_bytes(static_cast<double>(m.pixel_bytes)).c_str(), std::string(cache::codec_name(m.codec)).c_str());
  if (m.codec == cache::PixelCodec::kJpeg) {
    std::printf(" (quality %d)", m.jpeg_quality);
    if (m.raw_pixel_bytes > 0 && m.pixel_bytes > 0)
      std::printf("; raw would be %s (%.1fx)", human_bytes(static_cast<double>(m.raw_pixel_bytes)).c_str(),
                  static_cast<double>(m.raw_pixel_bytes) / static_cast<double>(m.pixel_bytes));
  }
  std::printf("\nprofile       %s, image_size %d\nwords         %llu (%llu ignored)\ndataset       %s (%s)\n"
              "built         %s in %.1f s\nquarantined   %zu\n",
              printable(m.profile).c_str(), m.image_size, static_cast<unsigned long long>(m.num_words),
              static_cast<unsigned long long>(m.num_ignored), printable(m.dataset_root).c_str(),
              printable(m.dataset_format).c_str(), when, m.build_seconds, m.quarantine.size());
  for (const auto& q : m.quarantine)
    std::printf("  %s: %s\n", printable(q.file).c_str(), printable(q.reason).c_str());
}

void run_verify(const std::string& path) {
  auto r = open_or_fail("cache verify", path);
  size_t bad = 0;
  for (size_t i = 0; i < r->size(); ++i) {
    Status s = r->verify_sample(i);
    if (!s.ok()) {
      std::fprintf(stderr, "cache verify: %s\n", printable(s.message()).c_str());
      ++bad;
    }
  }
  if (bad) fail("cache verify", std::to_string(bad) + " of " + std::to_string(r->size()) + " samples are corrupt", 1);
  std::printf("%s: header, footer, index, meta and all %zu samples are intact\n", printable(path).c_str(), r->size());
}

}  // namespace

void add_cache_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "cache", "Build, inspect and verify memory-mapped sample caches (decoded, resized pixels + annotations).");
  cmd->require_subcommand(1);

  auto b = std::make_shared<BuildArgs>();
  CLI::App* build = cmd->add_subcommand(
      "build", "Decode and resize every image of a dataset once, into one cache file. Random augmentation "
               "stays online: every epoch still sees fresh crops. Unreadable images are quarantined (listed) up to "
               "--max-bad. Interrupted by SIGINT, SIGTERM or SIGHUP, the build stops, removes its temporary file "
               "and exits with 128 + the signal number.");
  build->add_option("--dataset", b->dataset, "ICDAR-2015 folder, folder with ufo/*.json, or a UFO .json")->required();
  build->add_option("--out", b->out, "cache file to write (appears only when complete)")->required();
  build->add_option("--profile", b->profile, "upstage or bc7 (resize longer side to 2048) | sakura (no resize)")
      ->check(CLI::IsMember({"upstage", "sakura", "bc7", "db"}));
  CLI::Option* image_size = build->add_option("--image-size", b->image_size,
                                              "longer side of the stored pixels, 32..32768; 0 = keep source size "
                                              "(default: the profile's)");
  build->add_option("--codec", b->codec, "raw (fastest to read) | jpeg (several times smaller)")
      ->check(CLI::IsMember({"raw", "jpeg"}));
  build->add_option("--quality", b->quality, "JPEG quality for --codec jpeg (default 95)")->check(CLI::Range(1, 100));
  build->add_flag("--restart-rows", b->restart_rows,
                  "--codec jpeg: a restart marker after every 16 pixel rows, so that decoding the window a crop "
                  "reads skips the rows above it instead of entropy-decoding them; the same pixels, a whole "
                  "decode ~25% slower");
  build->add_option("--threads", b->threads,
                    "worker threads, at most " + std::to_string(loader::kMaxWorkerThreads) + " (default 0: all cores)");
  build->add_option("--max-bad", b->max_bad,
                    "largest share of the dataset's images that may be unreadable (quarantined); past it the "
                    "build fails with exit status 1 and writes nothing (default 0.05; 1 = no limit)")
      ->check(finite_in(0.0, 1.0));
  build->add_flag("--force", b->force, "replace an existing cache (or empty file) at --out: never another "
                                       "file, a symlink, a device or a FIFO");
  add_spec_flags(build, b->reader, kReaderFlags);
  build->callback([b, image_size] {
    b->image_size_given = image_size->count() > 0;
    run_build(*b);
  });

  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* inspect = cmd->add_subcommand("inspect", "Show what a cache holds: counts, sizes, profile, build, quarantine.");
  inspect->add_option("file", *path, "cache file")->required();
  inspect->add_flag("--json", *json, "print one JSON object");
  inspect->callback([path, json] { run_inspect(*path, *json); });

  auto vpath = std::make_shared<std::string>();
  CLI::App* verify = cmd->add_subcommand("verify", "Check every checksum and record; exit 1 naming each corrupt sample.");
  verify->add_option("file", *vpath, "cache file")->required();
  verify->callback([vpath] { run_verify(*vpath); });

  add_cache_bench_command(*cmd);
}

}  // namespace textfeed::tools
