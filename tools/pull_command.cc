// textfeed pull: a client of `textfeed serve` that pulls batches and reports throughput.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/printable.h"
#include "client/multi_feed.h"
#include "tools/client_options.h"
#include "tools/commands.h"
#include "tools/spec_flags.h"

namespace textfeed::tools {
namespace {

struct PullArgs {
  std::vector<std::string> endpoints;  // none given: ipc:///tmp/textfeed.sock
  std::string dataset, transport = "auto", payload = "full";
  int batches = 8, prefetch = 4;
  uint64_t epoch = 0, start = 0;
  double timeout_s = 120;
  SpecFlags spec;
  CurveFlags curve;
};

// A MultiFeed of the daemons (one or several): each batch is made by whichever has room.
std::unique_ptr<client::Feed> open_feed(const PullArgs& a,
                                        const std::vector<std::string>& endpoints) {
  const transport::Transport how =
      *transport::parse_transport(a.transport);  // CLI has checked the name
  const transport::CurveClientOptions curve = curve_client_options("pull", a.curve);
  client::MultiOptions o;
  o.spec = build_spec("pull", a.spec, a.dataset);
  o.client_name = "textfeed pull (rank " + std::to_string(o.spec.sampler.rank) + ")";
  o.payload = *transport::parse_payload(a.payload);  // CLI has checked the name
  o.prefetch = static_cast<uint32_t>(a.prefetch);
  o.held_slots = 1;
  o.epoch = a.epoch;
  o.batch = a.start;
  for (const std::string& e : endpoints) {
    client::DaemonProducer d;
    d.endpoint = e;
    d.transport = how;
    // One key pair for the tcp daemons; a single daemon takes it whatever its endpoint.
    if (endpoints.size() == 1 || e.rfind("tcp://", 0) == 0) d.curve = curve;
    o.daemons.push_back(std::move(d));
  }
  auto feed = client::MultiFeed::open(o);
  if (!feed.has_value()) fail("pull", feed.error().to_string(), 2);
  return std::move(*feed);
}

void run(const PullArgs& a) {
  keep_large_allocations_in_heap();  // frames payloads: reused heap, not fresh pages per message
  using namespace std::chrono;
  const std::vector<std::string> endpoints =
      a.endpoints.empty() ? std::vector<std::string>{"ipc:///tmp/textfeed.sock"} : a.endpoints;
  std::unique_ptr<client::Feed> feed = open_feed(a, endpoints);
  client::Feed& f = *feed;
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
      std::fprintf(stderr, "pull: %s\n", printable(describe(e)).c_str());
    f.release(batch->slot);
  }
  const double secs = duration<double>(steady_clock::now() - t0).count();
  const client::FeedStats s = f.stats();
  std::string from = printable(endpoints[0]);
  for (size_t i = 1; i < endpoints.size(); ++i) from += ", " + printable(endpoints[i]);
  const std::string over = s.transport == client::FeedTransport::kSharedMemory ? "shared memory"
                           : s.transport == client::FeedTransport::kMulti
                               ? a.payload + " payloads"
                               : std::string(feed_transport_name(s.transport));
  std::printf(
      "pulled %d batches (%zu samples, %.1f MB) from '%s' at %s over %s: %.1f samples/s, %.1f "
      "MB/s\n",
      a.batches, samples, bytes / 1e6, printable(a.dataset).c_str(), from.c_str(), over.c_str(),
      samples / secs, bytes / 1e6 / secs);
  for (const client::ProducerStats& p : s.producers)
    std::printf("  %s (%s, %s): %llu batches delivered, %llu reissued, %llu reconnects%s%s\n",
                printable(p.name).c_str(), std::string(producer_state_name(p.state)).c_str(),
                std::string(feed_transport_name(p.transport)).c_str(),
                static_cast<unsigned long long>(p.delivered),
                static_cast<unsigned long long>(p.reissued),
                static_cast<unsigned long long>(p.reconnects),
                p.last_error.empty() ? "" : "; last error: ", printable(p.last_error).c_str());
}

}  // namespace

void add_pull_command(CLI::App& app) {
  auto a = std::make_shared<PullArgs>();
  CLI::App* cmd = app.add_subcommand(
      "pull", "Pull batches from a running `textfeed serve` and report throughput.");
  cmd->add_option("--endpoint", a->endpoints,
                  "daemon endpoint (default ipc:///tmp/textfeed.sock); repeat it to pull from "
                  "several daemons at "
                  "once, each batch made by whichever has room (a daemon lost meanwhile has its "
                  "batches made by "
                  "the others)");
  cmd->add_option("--dataset", a->dataset, "dataset NAME as given to serve --dataset NAME=PATH")
      ->required();
  cmd->add_option("--batches", a->batches, "batches to pull (default 8)")
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--prefetch", a->prefetch, "batches in flight (default 4)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--transport", a->transport, "auto (shared memory on this host) | shm | frames")
      ->check(CLI::IsMember({"auto", "shm", "frames"}));
  cmd->add_option("--payload", a->payload,
                  "full | compact: the daemons send the warped crops, colour draws and words, and "
                  "this process "
                  "finishes the batches (EAST profiles, training; frames)")
      ->check(CLI::IsMember({"full", "compact"}));
  cmd->add_option("--epoch", a->epoch, "epoch to start in (default 0)")->check(unsigned_64());
  cmd->add_option("--start-batch", a->start, "batch to start at (default 0)")->check(unsigned_64());
  add_spec_flags(cmd, a->spec, kReaderFlags | kRecipeFlags | kSamplerFlags);
  cmd->add_option("--timeout", a->timeout_s, "seconds to wait for one batch (default 120)")
      ->check(finite_in(0.1, 86400.0));
  add_curve_flags(cmd, a->curve);
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
