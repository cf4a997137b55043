// textfeed pull: a client of `textfeed serve` that pulls batches and reports throughput.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/printable.h"
#include "client/remote_feed.h"
#include "tools/client_options.h"
#include "tools/commands.h"
#include "tools/spec_flags.h"

namespace textfeed::tools {
namespace {

struct PullArgs {
  std::string endpoint = "ipc:///tmp/textfeed.sock", dataset, transport = "auto";
  int batches = 8, prefetch = 4;
  uint64_t epoch = 0, start = 0;
  double timeout_s = 120;
  SpecFlags spec;
  CurveFlags curve;
};

void run(const PullArgs& a) {
  keep_large_allocations_in_heap();  // frames payloads: reused heap, not fresh pages per message
  using namespace std::chrono;
  client::RemoteOptions o;
  o.endpoint = a.endpoint;
  o.client_name = "textfeed pull (rank " + std::to_string(a.spec.rank) + ")";
  o.request.spec = build_spec("pull", a.spec, a.dataset);
  o.request.start = {a.epoch, a.start};
  o.transport = *transport::parse_transport(a.transport);  // CLI has checked the name
  o.prefetch = static_cast<uint32_t>(a.prefetch);
  o.connect.curve = curve_client_options("pull", a.curve);
  auto feed = client::RemoteFeed::open(o);
  if (!feed.has_value()) fail("pull", feed.error().to_string(), 2);
  client::RemoteFeed& f = **feed;
  const auto timeout = milliseconds(static_cast<int64_t>(a.timeout_s * 1000));
  const auto t0 = steady_clock::now();
  size_t samples = 0, bytes = 0;
  for (int b = 0; b < a.batches; ++b) {
    auto next = f.next(timeout);
    if (!next.has_value()) fail("pull", next.error().to_string());
    if (!*next) fail("pull", "no batch within " + std::to_string(a.timeout_s) + " s");
    const client::FeedBatch* batch = &**next;
    samples += batch->indices.size();
    for (const TensorDesc& t : f.layout().tensors) bytes += t.sample_bytes * batch->indices.size();
    for (const SampleError& e : batch->errors)
      std::fprintf(stderr, "pull: sample %u replaced by %u: %s\n", e.index, e.replaced_by,
                   printable(e.message).c_str());
    f.release(batch->slot);
  }
  const double secs = duration<double>(steady_clock::now() - t0).count();
  std::printf("pulled %d batches (%zu samples, %.1f MB) from '%s' at %s over %s: %.1f samples/s, %.1f MB/s\n",
              a.batches, samples, bytes / 1e6, printable(a.dataset).c_str(), printable(a.endpoint).c_str(),
              f.shared_memory() ? "shared memory" : "frames", samples / secs, bytes / 1e6 / secs);
}

}  // namespace

void add_pull_command(CLI::App& app) {
  auto a = std::make_shared<PullArgs>();
  CLI::App* cmd = app.add_subcommand("pull", "Pull batches from a running `textfeed serve` and report throughput.");
  cmd->add_option("--endpoint", a->endpoint, "daemon endpoint (default ipc:///tmp/textfeed.sock)");
  cmd->add_option("--dataset", a->dataset, "dataset NAME as given to serve --dataset NAME=PATH")->required();
  cmd->add_option("--batches", a->batches, "batches to pull (default 8)")->check(CLI::Range(1, 100000000));
  cmd->add_option("--prefetch", a->prefetch, "batches in flight (default 4)")->check(CLI::Range(1, 64));
  cmd->add_option("--transport", a->transport, "auto (shared memory on this host) | shm | frames")
      ->check(CLI::IsMember({"auto", "shm", "frames"}));
  cmd->add_option("--epoch", a->epoch, "epoch to start in (default 0)")->check(unsigned_64());
  cmd->add_option("--start-batch", a->start, "batch to start at (default 0)")->check(unsigned_64());
  add_spec_flags(cmd, a->spec, kReaderFlags | kRecipeFlags | kSamplerFlags);
  cmd->add_option("--timeout", a->timeout_s, "seconds to wait for one batch (default 120)")->check(finite_in(0.1, 86400.0));
  add_curve_flags(cmd, a->curve);
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
