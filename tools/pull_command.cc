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

namespace textfeed::tools {
namespace {

struct PullArgs {
  std::string endpoint = "ipc:///tmp/textfeed.sock", dataset, profile = "upstage", transport = "auto";
  std::string dtype = "float32", on_bad_sample = "skip";
  int batches = 8, batch_size = 8, rank = 0, world_size = 1, prefetch = 4;
  uint64_t seed = 0, epoch = 0, start = 0;
  bool no_shuffle = false, drop_last = false;
  double timeout_s = 120;
  std::vector<std::string> sets;
  CurveFlags curve;
};

void run(const PullArgs& a) {
  keep_large_allocations_in_heap();  // frames payloads: reused heap, not fresh pages per message
  using namespace std::chrono;
  client::RemoteOptions o;
  o.endpoint = a.endpoint;
  o.client_name = "textfeed pull (rank " + std::to_string(a.rank) + ")";
  o.request.dataset = a.dataset;
  o.request.profile = a.profile;
  o.request.overrides = parse_overrides("pull", a.sets);
  o.request.seed = a.seed;
  o.request.epoch = a.epoch;
  o.request.start_batch = a.start;
  o.request.batch_size = static_cast<uint32_t>(a.batch_size);
  o.request.rank = static_cast<uint32_t>(a.rank);
  o.request.world_size = static_cast<uint32_t>(a.world_size);
  o.request.shuffle = !a.no_shuffle;
  o.request.drop_last = a.drop_last;
  o.request.dtype = a.dtype == "uint8" ? DType::kU8 : DType::kF32;
  o.request.on_bad_sample = a.on_bad_sample == "fail" ? transport::WireOnBadSample::kFail
                                                      : transport::WireOnBadSample::kSkip;
  o.transport = *client::parse_remote_transport(a.transport);  // CLI has checked the name
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
    for (const client::TensorInfo& t : f.layout().tensors) bytes += t.sample_bytes * batch->indices.size();
    for (const client::FeedSampleError& e : batch->errors)
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
  cmd->add_option("--profile", a->profile, "upstage | sakura")->check(CLI::IsMember({"upstage", "sakura"}));
  cmd->add_option("--set", a->sets, "augmentation override NAME=VALUE (e.g. crop_size=768), repeatable");
  cmd->add_option("--batches", a->batches, "batches to pull (default 8)")->check(CLI::Range(1, 100000000));
  cmd->add_option("--batch-size", a->batch_size, "samples per batch (default 8)")->check(CLI::Range(1, 4096));
  cmd->add_option("--rank", a->rank, "this client's rank (default 0)");
  cmd->add_option("--world-size", a->world_size, "number of ranks (default 1)");
  cmd->add_option("--prefetch", a->prefetch, "batches in flight (default 4)")->check(CLI::Range(1, 64));
  cmd->add_option("--transport", a->transport, "auto (shared memory on this host) | shm | frames")
      ->check(CLI::IsMember({"auto", "shm", "frames"}));
  cmd->add_option("--dtype", a->dtype, "image dtype: float32 | uint8")->check(CLI::IsMember({"float32", "uint8"}));
  cmd->add_option("--on-bad-sample", a->on_bad_sample, "skip (replace and report) | fail")
      ->check(CLI::IsMember({"skip", "fail"}));
  cmd->add_option("--seed", a->seed, "augmentation seed (default 0)")->check(unsigned_64());
  cmd->add_option("--epoch", a->epoch, "epoch to start in (default 0)")->check(unsigned_64());
  cmd->add_option("--start-batch", a->start, "batch to start at (default 0)")->check(unsigned_64());
  cmd->add_flag("--no-shuffle", a->no_shuffle, "dataset order instead of a per-epoch permutation");
  cmd->add_flag("--drop-last", a->drop_last, "drop the last, short batch and the uneven tail");
  cmd->add_option("--timeout", a->timeout_s, "seconds to wait for one batch (default 120)")->check(finite_in(0.1, 86400.0));
  add_curve_flags(cmd, a->curve);
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
