// textfeed serve: the daemon. Serves datasets (folders or cache files) to training processes over
// ZeroMQ (docs/protocol.md); SIGTERM, SIGINT or SIGHUP drains it and stops it cleanly.
#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/printable.h"
#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/sources/mixture_source.h"
#include "tools/commands.h"
#include "tools/spec_flags.h"
#include "transport/curve.h"
#include "transport/daemon/options.h"
#include "transport/daemon/server.h"

namespace textfeed::tools {
namespace {

std::atomic<bool> g_stop{false};  // set from the signal handler: the one place a global is right
extern "C" void on_signal(int) { g_stop.store(true); }

const transport::ServerOptions kDefaults;  // the defaults of every option below

double seconds(std::chrono::milliseconds ms) { return std::chrono::duration<double>(ms).count(); }

struct ServeArgs {
  std::vector<std::string> datasets, allow;
  std::string bind = kDefaults.endpoint, curve_key, allow_dir;
  int threads = 0, max_credits = kDefaults.max_credits, frame_buffers = kDefaults.frame_buffers;
  int max_batch_mib = static_cast<int>(kDefaults.max_batch_bytes >> 20);
  int max_streams_per_client = kDefaults.max_streams_per_client,
      max_streams = kDefaults.max_streams;
  int max_clients = kDefaults.max_clients;
  int64_t max_memory_mib = static_cast<int64_t>(kDefaults.max_memory_bytes >> 20);
  double client_timeout_s = seconds(kDefaults.client_timeout),
         drain_timeout_s = seconds(kDefaults.drain_timeout);
  bool insecure_tcp = false;
  SpecFlags reader;  // the reader options every dataset is read with
};

transport::CurveServerOptions curve_options(const ServeArgs& a) {
  transport::CurveServerOptions c;
  if (a.curve_key.empty()) {
    if (!a.allow.empty() || !a.allow_dir.empty())
      fail("serve", "--allow and --allow-dir need --curve-key", 2);
    return c;
  }
  auto keys = transport::read_curve_secret_file(a.curve_key);
  if (!keys.has_value()) fail("serve", keys.error().to_string(), 2);
  c.server = *keys;
  std::vector<std::string> files = a.allow;
  if (!a.allow_dir.empty()) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(a.allow_dir, ec))
      if (e.path().extension() == ".pub") files.push_back(e.path().string());
    if (ec) fail("serve", "cannot list --allow-dir " + a.allow_dir + ": " + ec.message(), 2);
  }
  for (const std::string& f : files) {
    auto key = transport::read_curve_public_file(f);
    if (!key.has_value()) fail("serve", key.error().to_string(), 2);
    c.allowed_clients.push_back(*key);
  }
  if (c.allowed_clients.empty())
    TF_LOG(Warning) << "serve: CURVE is on but no client key is allowed (--allow / --allow-dir): "
                       "every client will be "
                       "refused";
  return c;
}

void run(const ServeArgs& a) {
  if (Status s = loader::check_worker_threads(a.threads); !s.ok()) fail("serve", s.message(), 2);
  keep_large_allocations_in_heap();
  transport::ServerOptions o;
  o.endpoint = a.bind;
  o.max_credits = a.max_credits;
  o.frame_buffers = a.frame_buffers;
  o.max_batch_bytes = static_cast<size_t>(a.max_batch_mib) << 20;
  o.max_streams_per_client = a.max_streams_per_client;
  o.max_streams = a.max_streams;
  o.max_clients = a.max_clients;
  o.max_memory_bytes = static_cast<size_t>(a.max_memory_mib) << 20;
  o.client_timeout = std::chrono::milliseconds(static_cast<int64_t>(a.client_timeout_s * 1000));
  o.heartbeat_interval = o.client_heartbeat_interval();
  o.drain_timeout = std::chrono::milliseconds(static_cast<int64_t>(a.drain_timeout_s * 1000));
  o.curve = curve_options(a);
  o.allow_plain_tcp = a.insecure_tcp;
  o.reader = reader_options("serve", a.reader);
  for (const std::string& spec : a.datasets) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      fail("serve", "--dataset takes NAME=PATH[@WEIGHT][,PATH[@WEIGHT]...], got '" + spec + "'", 2);
    const std::string name = spec.substr(0, eq);
    // Clients name it, and logs, stats and errors repeat it: letters, digits and . _ - only.
    if (name.size() > 128 || !std::all_of(name.begin(), name.end(), [](unsigned char c) {
          return std::isalnum(c) || c == '.' || c == '_' || c == '-';
        }))
      fail("serve",
           "--dataset: the name '" + name + "' must be 1..128 letters, digits, '.', '_' or '-'", 2);
    if (o.datasets.count(name)) fail("serve", "dataset name '" + name + "' given twice", 2);
    auto list = parse_source_list(spec.substr(eq + 1), o.reader);
    if (!list.has_value()) fail("serve", "--dataset " + name + ": " + list.error().message(), 2);
    auto src = loader::open_sources(*list);
    if (!src.has_value()) fail("serve", src.error().to_string(), 2);
    std::fprintf(stderr, "serve: dataset '%s' = %s\n", name.c_str(),
                 printable((*src)->describe()).c_str());
    o.datasets[name] = *src;
  }
  auto arena = loader::WorkerPool::create(a.threads);
  if (!arena.has_value()) fail("serve", arena.error().message(), 2);
  auto server = transport::Server::create(o, **arena);
  if (!server.has_value()) fail("serve", server.error().to_string(), 2);
  // SIGHUP (its terminal closed) drains and stops it like SIGTERM, rather than killing it with
  // its socket files left behind. SIGPIPE is ignored: a log reader that went away (`serve 2>&1 |
  // head`) costs log lines, never the daemon and every client's stream.
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  std::signal(SIGHUP, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  std::fprintf(stderr, "serve: listening on %s with %d worker threads%s\n",
               (*server)->endpoint().c_str(), (*arena)->threads(),
               o.curve.enabled() ? ", CURVE on" : "");
  Status s = (*server)->run(g_stop);
  server->reset();
  if (!s.ok()) fail("serve", s.to_string());
  std::fprintf(stderr, "serve: stopped\n");
}

// `serve --help`'s description.
constexpr const char* kServeHelp =
    "Serve augmented EAST batches to training processes (one stream per DDP rank) over ZeroMQ.\n"
    "Clients of an ipc:// endpoint (this host) get batches written straight into their shared "
    "memory; tcp clients\n"
    "get payload frames. One daemon per ipc path (PATH.lock); PATH.mem takes the clients' "
    "memory descriptors.\n"
    "Default endpoint: an ipc socket of mode 0600. tcp needs CURVE keys (textfeed keygen) or "
    "--insecure-tcp.\n"
    "SIGTERM/SIGINT/SIGHUP: finish the batches in flight, tell the clients, exit 0.";

// --dataset, --bind and --threads: what is served, where, with how many workers.
void add_serve_input_options(CLI::App* cmd, ServeArgs* a) {
  cmd->add_option("--dataset", a->datasets,
                  "NAME=PATH[@WEIGHT][,PATH[@WEIGHT]...], repeatable. PATH: a dataset folder, UFO "
                  "json, cache or cache manifest. "
                  "Several PATHs make one dataset: concatenated, or with a weight on each, drawn "
                  "from in proportion "
                  "every epoch (e.g. train=a/ufo/train.json@1,b.tfc@3)")
      ->required();
  cmd->add_option(
      "--bind", a->bind,
      "ZeroMQ endpoint: ipc:///path (default ipc:///tmp/textfeed.sock) or tcp://host:port");
  cmd->add_option("--threads", a->threads,
                  "worker threads, at most " + std::to_string(loader::kMaxWorkerThreads) +
                      " (default 0: one per core)");
}

// The daemon's limits: credits, buffers, batch and memory sizes, streams, clients, timeouts.
void add_serve_limit_options(CLI::App* cmd, ServeArgs* a) {
  cmd->add_option("--max-credits", a->max_credits,
                  "batches in flight per stream at most (default 16)")
      ->check(CLI::Range(1, transport::kMaxCreditsLimit));
  cmd->add_option("--frame-buffers", a->frame_buffers,
                  "daemon-side batch buffers per frames (remote) stream (default 3)")
      ->check(CLI::Range(1, transport::kMaxFrameBuffersLimit));
  cmd->add_option("--max-batch-mib", a->max_batch_mib,
                  "refuse streams whose batch is larger (default 4096 MiB)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-streams-per-client", a->max_streams_per_client,
                  "open streams one client connection may hold (default 64)")
      ->check(CLI::Range(1, transport::kMaxStreamOrClientLimit));
  cmd->add_option("--max-streams", a->max_streams,
                  "open streams of all clients together (default 1024)")
      ->check(CLI::Range(1, transport::kMaxStreamOrClientLimit));
  cmd->add_option("--max-clients", a->max_clients,
                  "client connections known at once (default 4096)")
      ->check(CLI::Range(1, transport::kMaxStreamOrClientLimit));
  cmd->add_option("--max-memory-mib", a->max_memory_mib,
                  "daemon-side batch memory (frame buffers of remote streams) of all streams; a "
                  "stream that would "
                  "go past it is refused (default 0 = half the physical memory)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 30));
  cmd->add_option(
         "--client-timeout", a->client_timeout_s,
         "seconds of silence after which a client is gone and its memory reclaimed (default 10)")
      ->check(finite_in(0.2, 3600.0));
  cmd->add_option("--drain-timeout", a->drain_timeout_s,
                  "on SIGTERM, seconds to wait for batches in flight (default 30)")
      ->check(finite_in(0.0, 3600.0));
}

// CURVE: the daemon's key and the clients allowed; or plain tcp on trusted networks.
void add_serve_security_options(CLI::App* cmd, ServeArgs* a) {
  cmd->add_option("--curve-key", a->curve_key,
                  "the daemon's key file (NAME.key from textfeed keygen): CURVE on");
  cmd->add_option("--allow", a->allow,
                  "a client's public key file (NAME.pub) that may connect; repeatable");
  cmd->add_option("--allow-dir", a->allow_dir,
                  "a folder whose *.pub files are allowed client keys");
  cmd->add_flag("--insecure-tcp", a->insecure_tcp,
                "allow tcp without CURVE (trusted networks only)");
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve", kServeHelp);
  add_serve_input_options(cmd, a.get());
  add_serve_limit_options(cmd, a.get());
  add_serve_security_options(cmd, a.get());
  add_spec_flags(cmd, a->reader, kReaderFlags);
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
