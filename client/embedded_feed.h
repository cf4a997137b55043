// EmbeddedFeed: the pipeline inside the training process (no daemon). Worker threads of its own
// pool fill up to `prefetch` batches ahead, each straight into a slot of its ring. Opening a feed
// changes no process-wide setting: the process's composition root (the Python module's first feed,
// a command's main) makes its loader::ProcessThreadSettings.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "base/clock.h"
#include "client/feed.h"
#include "loader/pipeline/batch_stream.h"
#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/sources/source.h"

namespace textfeed::client {

struct EmbeddedOptions {
  loader::PipelineSpec pipeline;  // augmentation, sampler (seed, batch size, ranks), bad samples
  int threads = 0;          // worker threads: 0 = one per core, else 1..loader::kMaxWorkerThreads
  uint32_t prefetch = 4;    // batches filled ahead, at most
  uint32_t held_slots = 0;  // slots beyond `prefetch` in the ring (for batches the caller
                            // holds); with 0, a held batch takes one of the prefetch slots
  uint64_t epoch = 0, batch = 0;  // where to start
};

class EmbeddedFeed final : public Feed {
 public:
  // Allocates the ring and starts filling. Errors: the pipeline's (kInvalidArgument),
  // kInvalidArgument (prefetch, threads), kUnavailable (the worker threads cannot be started), kIo.
  static Result<std::unique_ptr<EmbeddedFeed>> open(
      std::shared_ptr<const loader::SampleSource> source, const EmbeddedOptions& options);
  ~EmbeddedFeed() override;

  Status seek(uint64_t epoch, uint64_t batch) override;
  FeedStats stats() const override;
  void cancel() override;

 private:
  Result<std::optional<FeedBatch>> take_batch(std::chrono::milliseconds timeout) override;
  void release_slot(uint32_t slot) override;
  EmbeddedFeed() = default;
  void top_up();

  EmbeddedOptions options_;
  std::unique_ptr<loader::WorkerPool> pool_;
  std::shared_ptr<loader::BatchPipeline> pipeline_;
  std::unique_ptr<loader::BatchStream> stream_;  // after ring_ and pool_: destroyed first
  std::atomic<bool> cancelled_{false};           // set once by cancel(), from any thread
  mutable std::mutex mu_;
  std::vector<uint32_t> free_;  // guarded by mu_: slots nobody uses
  uint32_t held_ = 0;           // guarded by mu_: slots the caller holds
  uint64_t batches_ = 0, samples_ = 0, skipped_ = 0;
  double wait_seconds_ = 0;
  const SteadyClock clock_{};  // for the stats' seconds
  Clock::TimePoint started_ = clock_.now();
};

// The layout of a pipeline's batches, as a Feed describes it.
FeedLayout feed_layout(const loader::BatchPipeline& pipeline);

}  // namespace textfeed::client
