// textfeed pull: a client of `textfeed serve` that pulls batches and reports throughput.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "transport/connection.h"

namespace textfeed::tools {
namespace {

struct PullArgs {
  std::string endpoint = "ipc:///tmp/textfeed.sock", dataset, profile = "upstage";
  int batches = 8, batch_size = 8, rank = 0, world_size = 1, credits = 4;
  uint64_t seed = 0, epoch = 0, start = 0;
};

void run(const PullArgs& a) {
  keep_large_allocations_in_heap();
  using namespace std::chrono;
  auto c = transport::Connection::connect(a.endpoint, "textfeed pull");
  if (!c.has_value()) fail("pull", c.error().to_string(), 2);
  transport::OpenStream o;
  o.dataset = a.dataset;
  o.profile = a.profile;
  o.seed = a.seed;
  o.epoch = a.epoch;
  o.start_batch = static_cast<uint64_t>(a.start);
  o.batch_size = static_cast<uint32_t>(a.batch_size);
  o.rank = static_cast<uint32_t>(a.rank);
  o.world_size = static_cast<uint32_t>(a.world_size);
  auto s = (*c)->open(o);
  if (!s.has_value()) fail("pull", s.error().to_string(), 2);
  std::vector<uint8_t> slot(s->slot_bytes);
  if (Status st = (*c)->credit(s->stream_id, static_cast<uint32_t>(a.credits)); !st.ok()) fail("pull", st.to_string());
  const auto t0 = steady_clock::now();
  size_t samples = 0, bytes = 0;
  for (int b = 0; b < a.batches; ++b) {
    auto h = (*c)->receive(slot, seconds(120));
    if (!h.has_value()) fail("pull", h.error().to_string());
    samples += h->indices.size();
    for (const auto& t : h->tensors) bytes += t.size;
    for (const auto& e : h->errors)
      std::fprintf(stderr, "pull: sample %u replaced by %u: %s\n", e.index, e.replaced_by, e.message.c_str());
    if (Status st = (*c)->credit(s->stream_id, 1); !st.ok()) fail("pull", st.to_string());
  }
  const double secs = duration<double>(steady_clock::now() - t0).count();
  (void)(*c)->close(s->stream_id);
  std::printf("pulled %d batches (%zu samples, %.1f MB) from '%s' at %s: %.1f samples/s, %.1f MB/s\n", a.batches,
              samples, bytes / 1e6, a.dataset.c_str(), a.endpoint.c_str(), samples / secs, bytes / 1e6 / secs);
}

}  // namespace

void add_pull_command(CLI::App& app) {
  auto a = std::make_shared<PullArgs>();
  CLI::App* cmd = app.add_subcommand("pull", "Pull batches from a running `textfeed serve` and report throughput.");
  cmd->add_option("--endpoint", a->endpoint, "daemon endpoint (default ipc:///tmp/textfeed.sock)");
  cmd->add_option("--dataset", a->dataset, "dataset NAME as given to serve --dataset NAME=PATH")->required();
  cmd->add_option("--profile", a->profile, "upstage | sakura")->check(CLI::IsMember({"upstage", "sakura"}));
  cmd->add_option("--batches", a->batches, "batches to pull (default 8)")->check(CLI::Range(1, 100000000));
  cmd->add_option("--batch-size", a->batch_size, "samples per batch (default 8)")->check(CLI::Range(1, 4096));
  cmd->add_option("--rank", a->rank, "this client's rank (default 0)");
  cmd->add_option("--world-size", a->world_size, "number of ranks (default 1)");
  cmd->add_option("--credits", a->credits, "batches in flight (default 4)")->check(CLI::Range(1, 1024));
  cmd->add_option("--seed", a->seed, "augmentation seed (default 0)");
  cmd->add_option("--epoch", a->epoch, "epoch to start in (default 0)");
  cmd->add_option("--start-batch", a->start, "batch to start at (default 0)");
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
