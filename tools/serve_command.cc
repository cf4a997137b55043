// textfeed serve: the daemon. Serves datasets (folders or cache files) to training processes over
// ZeroMQ (docs/protocol.md); SIGTERM or SIGINT stops it cleanly.
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "base/log.h"
#include "loader/pipeline.h"
#include "tools/commands.h"
#include "transport/server.h"

namespace textfeed::tools {
namespace {

std::atomic<bool> g_stop{false};  // set from the signal handler: the one place a global is right
extern "C" void on_signal(int) { g_stop.store(true); }

struct ServeArgs {
  std::vector<std::string> datasets;
  std::string bind = "ipc:///tmp/textfeed.sock";
  int threads = 0, max_credits = 16;
};

void run(const ServeArgs& a) {
  keep_large_allocations_in_heap();
  loader::disable_library_threads();
  transport::ServerOptions o;
  o.endpoint = a.bind;
  o.max_credits = a.max_credits;
  for (const std::string& spec : a.datasets) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) fail("serve", "--dataset takes NAME=PATH, got '" + spec + "'", 2);
    auto src = loader::SampleSource::open(spec.substr(eq + 1), {});
    if (!src.has_value()) fail("serve", src.error().to_string(), 2);
    std::fprintf(stderr, "serve: dataset '%s' = %s\n", spec.substr(0, eq).c_str(), (*src)->describe().c_str());
    o.datasets[spec.substr(0, eq)] = *src;
  }
  tbb::task_arena arena(a.threads > 0 ? a.threads : tbb::this_task_arena::max_concurrency());
  auto server = transport::Server::create(o, arena);
  if (!server.has_value()) fail("serve", server.error().to_string(), 2);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  std::fprintf(stderr, "serve: listening on %s with %d threads\n", (*server)->endpoint().c_str(),
               arena.max_concurrency());
  Status s = (*server)->run(g_stop);
  if (!s.ok()) fail("serve", s.to_string());
  std::fprintf(stderr, "serve: stopped\n");
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Serve augmented EAST batches to training processes (one stream per DDP rank) over ZeroMQ.");
  cmd->add_option("--dataset", a->datasets, "NAME=PATH, repeatable; PATH is a dataset folder, UFO json or cache")
      ->required();
  cmd->add_option("--bind", a->bind, "ZeroMQ endpoint (default ipc:///tmp/textfeed.sock, made mode 0600)");
  cmd->add_option("--threads", a->threads, "worker threads (default: all cores)")->check(CLI::Range(0, 1024));
  cmd->add_option("--max-credits", a->max_credits, "batches in flight per stream at most (default 16)")
      ->check(CLI::Range(1, 1024));
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
