// textfeed cache build | merge | inspect | verify: the memory-mapped sample cache and its sharded
// form, shard files and a manifest (docs/cache_format.md).
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/printable.h"
#include "cache/cache.h"
#include "cache/manifest.h"
#include "loader/cache_build/cache_builder.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/spec/spec_fields.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/spec_flags.h"

namespace textfeed::tools {

// tools/cache_bench.cc: `textfeed cache bench`.
void add_cache_bench_command(CLI::App& cache_cmd);

namespace {

struct BuildArgs {
  std::string dataset, out, profile = "upstage", codec = "raw", shard = "0/1";
  int image_size = 0, quality = 90, threads = 0;
  bool image_size_given = false;  // else the profile's
  double max_bad = loader::CacheBuildOptions().max_bad_share;
  bool force = false, restart_rows = false;
  SpecFlags reader;
  std::string dask;  // a Dask scheduler: the textfeed.dask command to run is printed
  int shards = 0;
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
                   std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                   p.done, p.total, rate, eta, human_bytes(static_cast<double>(p.bytes)).c_str(),
                   p.quarantined);
      if (p.done == p.total) std::fprintf(stderr, "\n");
      return;
    }
    const size_t decile = p.total ? 10 * p.done / p.total : 10;
    if (decile != last_decile_ || p.seconds - last_print_ >= 10 || p.done == p.total) {
      std::fprintf(stderr,
                   "cache build: %zu/%zu samples, %.1f img/s, ETA %.0f s, %s, %zu quarantined\n",
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

// A double as text that reads back as the same double.
std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The arguments of `python3 -m textfeed.dask build` that make the build of `a`: each flag and its
// value as one word "--flag=value", so that a value starting with '-' stays a value.
std::vector<std::string> dask_module_args(const BuildArgs& a) {
  std::vector<std::string> args = {"-m", "textfeed.dask", "build"};
  const std::pair<const char*, std::string> always[] = {
      {"--scheduler", a.dask},        {"--shards", std::to_string(a.shards)},
      {"--dataset", a.dataset},       {"--out", a.out},
      {"--profile", a.profile},       {"--codec", a.codec},
      {"--max-bad", exact(a.max_bad)}};
  for (const auto& [flag, value] : always) args.push_back(std::string(flag) + "=" + value);
  if (a.codec == "jpeg") args.push_back("--quality=" + std::to_string(a.quality));
  if (a.image_size_given) args.push_back("--image-size=" + std::to_string(a.image_size));
  if (a.threads != 0) args.push_back("--threads=" + std::to_string(a.threads));
  // The reader's flags as given (the rows of loader::reader_fields(), which textfeed.dask takes
  // too): a row not given keeps the profile's default on the workers.
  const augment::Profile profile = *augment::parse_profile(a.profile);  // CLI has checked it
  for (std::string& arg : field_flag_args(loader::reader_fields(), loader::reader_defaults(profile),
                                          a.reader.reader_text))
    args.push_back(std::move(arg));
  if (a.restart_rows) args.push_back("--restart-rows");
  if (a.force) args.push_back("--force");
  return args;
}

// `word` as a POSIX shell (bash, dash's newer releases, zsh) reads it back: as it is when it holds
// only characters no shell treats specially; in single quotes when printable() leaves it as it is
// (a quote inside as '"'"'); else (a control byte, a backslash, invalid UTF-8) as $'...' with every
// byte outside printable ASCII as \xHH.
std::string shell_word(const std::string& word) {
  constexpr std::string_view kPlain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/@%";
  if (!word.empty() && word.find_first_not_of(kPlain) == std::string::npos) return word;
  if (printable(word) == word) {  // printable UTF-8 without a backslash
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    return quoted + "'";
  }
  std::string quoted = "$'";
  for (unsigned char c : word) {
    if (c == '\\' || c == '\'') {
      quoted += '\\';
      quoted += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      quoted += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      quoted += hex;
    }
  }
  return quoted + "'";
}

// The interpreter the command names: Debian's, which sees python3-distributed.
constexpr const char* kDaskPython = "/usr/bin/python3";

// --dask: the command runs no Python (textfeed.dask drives this command on the workers, so the
// command handing the build to it would make a cycle). It checks --shards, then exits with status
// 2 and the `python3 -m textfeed.dask build` command line that makes the same build.
[[noreturn]] void refuse_dask_build(const BuildArgs& a, bool shard_given) {
  if (shard_given)
    fail("cache build", "--dask builds every shard: give --shards N, not --shard", 2);
  if (a.shards < 1 || static_cast<uint32_t>(a.shards) > loader::kMaxShardCount)
    fail("cache build", "--dask needs --shards N, 1.." + std::to_string(loader::kMaxShardCount), 2);
  std::string command = kDaskPython;
  for (const std::string& arg : dask_module_args(a)) command += " " + shell_word(arg);
  // The command goes out as it is, on a line of its own: every word is quoted for the shell (no
  // byte of it can drive a terminal), and printable()'s escapes would change what it reads back.
  std::fprintf(stderr,
               "textfeed cache build: --dask: this command does not run Python; the Dask build is "
               "textfeed.dask's. Run instead (textfeed on PYTHONPATH, python3-distributed "
               "installed):\n%s\n",
               command.c_str());
  throw CLI::RuntimeError(2);
}

// The longer side of stored pixels that --image-size allows besides 0 (augment::validate's bounds
// of image_size).
constexpr int kMinStoredSide = 32;
constexpr int kMaxStoredSide = 32768;

// The build's options from the command line, checked before the dataset is read (which may take
// minutes; build_cache checks them again). Exits with status 2 naming a bad one.
loader::CacheBuildOptions build_options(const BuildArgs& a) {
  if (Status s = loader::check_worker_threads(a.threads); !s.ok())
    fail("cache build", s.message(), 2);
  auto profile = augment::parse_profile(a.profile);
  if (!profile.has_value()) fail("cache build", profile.error().message(), 2);
  loader::CacheBuildOptions o;
  o.out = a.out;
  o.profile = *profile;
  // A profile whose chain starts from the original pixels gets them stored (image_size 0).
  const augment::ProfileEntry* entry = augment::find_profile(*profile);
  o.image_size = a.image_size_given ? a.image_size
                 : entry && !entry->trains_at_image_size
                     ? 0
                     : augment::profile_defaults(*profile).image_size;
  o.codec = a.codec == "jpeg" ? cache::PixelCodec::kJpeg : cache::PixelCodec::kRaw;
  o.jpeg_quality = a.quality;
  o.restart_rows = a.restart_rows;
  o.force = a.force;
  o.max_bad_share = a.max_bad;
  o.cancel = &g_stop;
  auto shard = loader::parse_shard(a.shard);
  if (!shard.has_value()) fail("cache build", shard.error().message(), 2);
  o.shard = *shard;
  if (!(a.max_bad >= 0 && a.max_bad <= 1)) fail("cache build", "--max-bad must be in [0, 1]", 2);
  if (o.image_size != 0 && (o.image_size < kMinStoredSide || o.image_size > kMaxStoredSide))
    fail("cache build",
         "--image-size must be 0 (keep the source size) or in [" + std::to_string(kMinStoredSide) +
             ", " + std::to_string(kMaxStoredSide) + "], got " + std::to_string(o.image_size),
         2);
  o.reader = reader_options("cache build", a.reader);
  return o;
}

// What the build is about to do: the annotation problems the reader found, the images, and the
// shard's part of them.
void print_build_plan(const loader::Dataset& ds, const loader::CacheBuildOptions& o,
                      const BuildArgs& a, int threads) {
  for (const loader::BadRecord& b : ds.bad)
    std::fprintf(stderr, "cache build: annotation problem: %s%s: %s\n", printable(b.file).c_str(),
                 b.line ? (":" + std::to_string(b.line)).c_str() : "", printable(b.reason).c_str());
  std::fprintf(stderr,
               "cache build: %zu images from %s, profile %s, image_size %d, codec %s, %d threads\n",
               ds.samples.size(), printable(ds.root).c_str(), a.profile.c_str(), o.image_size,
               a.codec.c_str(), threads);
  if (o.shard.count > 1) {
    const auto [first, count] = loader::shard_inputs(ds.samples.size(), o.shard);
    std::fprintf(stderr, "cache build: shard %u/%u: images %zu up to %zu of %zu\n", o.shard.index,
                 o.shard.count, first, first + count, ds.samples.size());
  }
}

void run_build(const BuildArgs& a) {
  const loader::CacheBuildOptions o = build_options(a);
  auto ds = loader::open_dataset(a.dataset, o.reader);
  if (!ds.has_value()) fail("cache build", ds.error().to_string(), 2);
  const int threads = loader::resolve_worker_threads(a.threads);
  print_build_plan(*ds, o, a, threads);
  loader::WorkerPool pool(threads);
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
    std::fprintf(stderr, "cache build: quarantined %s: %s\n", printable(q.file).c_str(),
                 printable(q.reason).c_str());
  std::printf("wrote %s: %zu samples, %zu quarantined, %s in %.1f s (%.1f img/s)\n",
              printable(a.out).c_str(), report->samples, report->quarantined,
              human_bytes(static_cast<double>(report->bytes)).c_str(), report->seconds,
              report->seconds > 0 ? report->samples / report->seconds : 0.0);
}

// What inspect shows: one cache file, or the shards of a manifest merged.
struct Inspected {
  size_t samples = 0;
  uint64_t file_bytes = 0;
  cache::CacheMeta meta;
  std::shared_ptr<const cache::ShardSet> set;  // null for one file
};

Inspected open_for_inspect(const std::string& path) {
  Inspected in;
  if (cache::is_manifest_path(path)) {
    auto set = cache::open_manifest(path);
    if (!set.has_value()) fail("cache inspect", set.error().to_string(), 2);
    in.set = *set;
    in.samples = in.set->manifest.samples;
    in.file_bytes = in.set->file_bytes;
    in.meta = in.set->meta;
    return in;
  }
  auto r = cache::CacheReader::open(path);
  if (!r.has_value()) fail("cache inspect", r.error().to_string(), 2);
  in.samples = (*r)->size();
  in.file_bytes = (*r)->file_bytes();
  in.meta = (*r)->meta();
  return in;
}

void print_inspect_json(const std::string& path, const Inspected& in) {
  const cache::CacheMeta& m = in.meta;
  nlohmann::ordered_json j;
  j["path"] = path;
  j["samples"] = in.samples;
  j["file_bytes"] = in.file_bytes;
  j["pixel_bytes"] = m.pixel_bytes;
  j["raw_pixel_bytes"] = m.raw_pixel_bytes;
  j["bytes_per_sample"] = in.samples ? in.file_bytes / in.samples : 0;
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
  for (const auto& q : m.quarantine)
    j["quarantine"].push_back({{"file", q.file}, {"reason", q.reason}});
  // A shard file says which part it is; a manifest is every part (shard_count of them, below).
  if (in.set) {
    j["shards"] = nlohmann::json::array();
    for (const cache::ManifestShard& s : in.set->manifest.shards)
      j["shards"].push_back(
          {{"path", s.path}, {"first", s.first}, {"samples", s.samples}, {"bytes", s.file_bytes}});
  } else {
    j["shard"] = std::to_string(m.shard_index) + "/" + std::to_string(m.shard_count);
  }
  std::cout << json_text(j) << "\n";
}

void run_inspect(const std::string& path, bool json) {
  const Inspected in = open_for_inspect(path);
  if (json) return print_inspect_json(path, in);
  const cache::CacheMeta& m = in.meta;
  char when[64] = "?";
  const time_t t = static_cast<time_t>(m.build_unix_seconds);
  std::strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  std::printf(
      "%s %s\nsamples       %zu\nfile size     %s (%s per sample)\npixels        %s, codec %s",
      in.set ? "manifest     " : "cache        ", printable(path).c_str(), in.samples,
      human_bytes(static_cast<double>(in.file_bytes)).c_str(),
      human_bytes(in.samples ? static_cast<double>(in.file_bytes) / in.samples : 0).c_str(),
      human_bytes(static_cast<double>(m.pixel_bytes)).c_str(),
      std::string(cache::codec_name(m.codec)).c_str());
  if (m.codec == cache::PixelCodec::kJpeg) {
    std::printf(" (quality %d)", m.jpeg_quality);
    if (m.raw_pixel_bytes > 0 && m.pixel_bytes > 0)
      std::printf("; raw would be %s (%.1fx)",
                  human_bytes(static_cast<double>(m.raw_pixel_bytes)).c_str(),
                  static_cast<double>(m.raw_pixel_bytes) / static_cast<double>(m.pixel_bytes));
  }
  std::printf(
      "\nprofile       %s, image_size %d\nwords         %llu (%llu ignored)\ndataset       %s "
      "(%s)\n"
      "built         %s in %.1f s\n",
      printable(m.profile).c_str(), m.image_size, static_cast<unsigned long long>(m.num_words),
      static_cast<unsigned long long>(m.num_ignored), printable(m.dataset_root).c_str(),
      printable(m.dataset_format).c_str(), when, m.build_seconds);
  if (in.set) {
    std::printf("shards        %zu\n", in.set->manifest.shards.size());
    for (const cache::ManifestShard& s : in.set->manifest.shards)
      std::printf("  %u: %s, samples %llu from %llu, %s\n", s.index, printable(s.path).c_str(),
                  static_cast<unsigned long long>(s.samples),
                  static_cast<unsigned long long>(s.first),
                  human_bytes(static_cast<double>(s.file_bytes)).c_str());
  } else if (m.shard_count > 1) {
    std::printf("shard         %u/%u: dataset images %llu up to %llu of %llu\n", m.shard_index,
                m.shard_count, static_cast<unsigned long long>(m.first_input),
                static_cast<unsigned long long>(m.first_input + m.num_inputs),
                static_cast<unsigned long long>(m.dataset_samples));
  }
  std::printf("quarantined   %zu\n", m.quarantine.size());
  for (const auto& q : m.quarantine)
    std::printf("  %s: %s\n", printable(q.file).c_str(), printable(q.reason).c_str());
}

// Every sample of `r`; returns the number of corrupt ones, each reported on stderr.
size_t verify_samples(const cache::CacheReader& r) {
  size_t bad = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    Status s = r.verify_sample(i);
    if (!s.ok()) {
      std::fprintf(stderr, "cache verify: %s\n", printable(s.message()).c_str());
      ++bad;
    }
  }
  return bad;
}

// Each shard the manifest lists, reported one by one: a shard that does not open or differs from
// the manifest does not stop the others from being checked.
void run_verify_manifest(const std::string& path) {
  auto m = cache::read_manifest(path);
  if (!m.has_value()) fail("cache verify", m.error().to_string(), 2);
  size_t bad_shards = 0;
  for (size_t k = 0; k < m->shards.size(); ++k) {
    const std::string file = cache::shard_file_path(path, m->shards[k]);
    const std::string name =
        "shard " + std::to_string(k) + "/" + std::to_string(m->shards.size()) + " " + file;
    auto r = cache::CacheReader::open(file);
    Status s = r.has_value() ? cache::check_shard(*m, path, k, **r) : r.error();
    if (!s.ok()) {
      std::fprintf(stderr, "cache verify: %s: %s\n", printable(name).c_str(),
                   printable(s.message()).c_str());
      ++bad_shards;
      continue;
    }
    if (const size_t bad = verify_samples(**r); bad > 0) {
      std::fprintf(stderr, "cache verify: %s: %zu of %zu samples are corrupt\n",
                   printable(name).c_str(), bad, (*r)->size());
      ++bad_shards;
      continue;
    }
    std::printf("%s: intact (%zu samples)\n", printable(name).c_str(), (*r)->size());
  }
  if (bad_shards)
    fail("cache verify",
         std::to_string(bad_shards) + " of " + std::to_string(m->shards.size()) + " shards of " +
             path + " are missing, differ from the manifest or are corrupt",
         1);
  std::printf("%s: all %zu shards and %llu samples are intact\n", printable(path).c_str(),
              m->shards.size(), static_cast<unsigned long long>(m->samples));
}

void run_verify(const std::string& path) {
  if (cache::is_manifest_path(path)) return run_verify_manifest(path);
  auto opened = cache::CacheReader::open(path);
  if (!opened.has_value()) fail("cache verify", opened.error().to_string(), 2);
  const cache::CacheReader& r = **opened;
  if (size_t bad = verify_samples(r); bad)
    fail("cache verify",
         std::to_string(bad) + " of " + std::to_string(r.size()) + " samples are corrupt", 1);
  std::printf("%s: header, footer, index, meta and all %zu samples are intact\n",
              printable(path).c_str(), r.size());
}

struct MergeArgs {
  std::string out;
  std::vector<std::string> inputs;
  bool force = false;
};

// The shard files `inputs` name: each a file, or a folder whose *.tfc files (not below) are taken.
std::vector<std::string> shard_files(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (fs::directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".tfc" && it->is_regular_file(ec))
        found.push_back(it->path().string());
    if (ec) fail("cache merge", in + ": " + ec.message(), 2);
    if (found.empty()) fail("cache merge", in + " is a folder without .tfc files", 2);
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

void run_merge(const MergeArgs& a) {
  const std::vector<std::string> files = shard_files(a.inputs);
  std::vector<std::shared_ptr<const cache::CacheReader>> shards;
  for (const std::string& f : files) {
    auto r = cache::CacheReader::open(f);
    if (!r.has_value()) fail("cache merge", r.error().to_string(), 2);
    shards.push_back(*r);
  }
  auto m = cache::merge_shards(shards, files, a.out);
  if (!m.has_value()) fail("cache merge", m.error().message(), 2);
  if (Status s = cache::write_manifest(*m, a.out, a.force); !s.ok())
    fail("cache merge", s.to_string(), 2);
  std::printf("wrote %s: %zu shards, %llu samples of %llu images\n", printable(a.out).c_str(),
              m->shards.size(), static_cast<unsigned long long>(m->samples),
              static_cast<unsigned long long>(m->build.dataset_samples));
}

// `cache build --help`'s description.
constexpr const char* kBuildHelp =
    "Decode and resize every image of a dataset (or, with --shard K/N, of its K-th part) "
    "once, into one cache file. Random augmentation stays online: every epoch still sees "
    "fresh crops. Unreadable images are quarantined (listed) up to --max-bad. Interrupted by "
    "SIGINT, SIGTERM or SIGHUP, the build stops, removes its temporary file and exits with "
    "128 + the signal number.";

// --dataset, --out, --profile and --image-size; returns --image-size (given or the profile's).
CLI::Option* add_build_input_options(CLI::App* build, BuildArgs* b) {
  build
      ->add_option("--dataset", b->dataset,
                   "ICDAR-2015 folder, folder with ufo/*.json, or a UFO .json")
      ->required();
  build->add_option("--out", b->out, "cache file to write (appears only when complete)")
      ->required();
  build
      ->add_option("--profile", b->profile,
                   "whose image_size the stored pixels are resized to (--image-size overrides): " +
                       profile_help())
      ->check(CLI::IsMember(profile_names()));
  return build->add_option("--image-size", b->image_size,
                           "longer side of the stored pixels, 32..32768; 0 = keep source size "
                           "(default: the profile's)");
}

// --codec, --quality and --restart-rows: how the pixels are stored.
void add_build_codec_options(CLI::App* build, BuildArgs* b) {
  build->add_option("--codec", b->codec, "raw (fastest to read) | jpeg (several times smaller)")
      ->check(CLI::IsMember({"raw", "jpeg"}));
  build
      ->add_option("--quality", b->quality,
                   "JPEG quality for --codec jpeg (default 90: against 95 a third faster to decode "
                   "and 40% smaller, ~1 dB lower PSNR)")
      ->check(CLI::Range(1, 100));
  build->add_flag(
      "--restart-rows", b->restart_rows,
      "--codec jpeg: restart markers inside every 16-pixel row (every 2-16 MCUs, 32-256 pixels, as "
      "the width allows; a whole row where it does not), so that decoding the window a crop reads "
      "entropy-decodes only the part of the JPEG under that window; the same pixels, 2-5% larger, "
      "and a whole-image decode ~25% slower (libjpeg-turbo's fast Huffman path is off with "
      "markers)");
}

// --threads, --max-bad and --force.
void add_build_run_options(CLI::App* build, BuildArgs* b) {
  build->add_option("--threads", b->threads,
                    "worker threads, at most " + std::to_string(loader::kMaxWorkerThreads) +
                        " (default 0: all cores)");
  build
      ->add_option(
          "--max-bad", b->max_bad,
          "largest share of the dataset's images that may be unreadable (quarantined); past it the "
          "build fails with exit status 1 and writes nothing (default 0.05; 1 = no limit)")
      ->check(finite_in(0.0, 1.0));
  build->add_flag("--force", b->force,
                  "replace an existing cache (or empty file) at --out: never another "
                  "file, a symlink, a device or a FIFO");
}

// --shard, --dask and --shards: one part here, or every part on a Dask cluster. Returns --shard.
CLI::Option* add_build_shard_options(CLI::App* build, BuildArgs* b) {
  CLI::Option* shard = build->add_option(
      "--shard", b->shard,
      "K/N: build only the K-th of N parts of the dataset (K = 0..N-1), the images "
      "floor(K*n/N) up to floor((K+1)*n/N) of the reader's order, into --out; the same parts on "
      "every run. Build every K (on as many machines as you like), then `textfeed cache merge` the "
      "files into a manifest that opens as one cache, sample for sample the whole build's. "
      "--max-bad "
      "stays a share of the whole dataset (default 0/1: everything)");
  build->add_option(
      "--dask", b->dask,
      "ADDRESS of a Dask scheduler (tcp://host:8786): prints the `python3 -m textfeed.dask "
      "build` command that builds every shard there, one task each, then the manifest --out "
      "(NAME.tfmanifest, shards beside it), and exits with status 2: this command runs no "
      "Python");
  build->add_option("--shards", b->shards,
                    "with --dask: how many shards, 1.." + std::to_string(loader::kMaxShardCount));
  return shard;
}

void add_build_command(CLI::App& cmd) {
  auto b = std::make_shared<BuildArgs>();
  CLI::App* build = cmd.add_subcommand("build", kBuildHelp);
  CLI::Option* image_size = add_build_input_options(build, b.get());
  add_build_codec_options(build, b.get());
  add_build_run_options(build, b.get());
  CLI::Option* shard = add_build_shard_options(build, b.get());
  add_spec_flags(build, b->reader, kReaderFlags);
  build->callback([b, image_size, shard] {
    b->image_size_given = image_size->count() > 0;
    if (!b->dask.empty()) refuse_dask_build(*b, shard->count() > 0);
    if (b->shards != 0)
      fail("cache build", "--shards N goes with --dask (for one part here: --shard K/N)", 2);
    run_build(*b);
  });
}

void add_inspect_and_verify_commands(CLI::App& cmd) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* inspect = cmd.add_subcommand(
      "inspect",
      "Show what a cache or a manifest's shards hold: counts, sizes, profile, build, quarantine.");
  inspect->add_option("file", *path, "cache file or manifest")->required();
  inspect->add_flag("--json", *json, "print one JSON object");
  inspect->callback([path, json] { run_inspect(*path, *json); });

  auto vpath = std::make_shared<std::string>();
  CLI::App* verify = cmd.add_subcommand(
      "verify",
      "Check every checksum and record; exit 1 naming each corrupt sample. Of a manifest: every "
      "shard, "
      "reported one by one, each also checked against what the manifest recorded of it.");
  verify->add_option("file", *vpath, "cache file or manifest")->required();
  verify->callback([vpath] { run_verify(*vpath); });
}

void add_merge_command(CLI::App& cmd) {
  auto ma = std::make_shared<MergeArgs>();
  CLI::App* merge = cmd.add_subcommand(
      "merge",
      "Write a manifest of the shard files of one `cache build --shard K/N` set: a small JSON file "
      "(docs/cache_format.md) naming every shard by its path relative to the manifest's folder, "
      "with its "
      "sample count and checksums, and the build's and reader's options. It opens as one cache "
      "wherever "
      "a cache does (Loader, serve, bench, show, cache inspect and verify), with the samples, "
      "order and "
      "batches of a whole build of the dataset. Refused unless the files are every K of 0..N-1 "
      "once, "
      "of one dataset read and built the same way, in or below the manifest's folder.");
  merge
      ->add_option("--out", ma->out,
                   "manifest to write, e.g. train.tfmanifest (appears only when complete)")
      ->required();
  merge
      ->add_option("shards", ma->inputs,
                   "the shard files (any order; a shell glob such as shards/*.tfc does), or "
                   "folders whose .tfc "
                   "files are all shards")
      ->required();
  merge->add_flag("--force", ma->force,
                  "replace an existing manifest at --out (never any other file)");
  merge->callback([ma] { run_merge(*ma); });
}

}  // namespace

void add_cache_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "cache",
      "Build, merge, inspect and verify memory-mapped sample caches (decoded, resized pixels + "
      "annotations), whole or in shards.");
  cmd->require_subcommand(1);
  add_build_command(*cmd);
  add_inspect_and_verify_commands(*cmd);
  add_merge_command(*cmd);
  add_cache_bench_command(*cmd);
}

}  // namespace textfeed::tools
