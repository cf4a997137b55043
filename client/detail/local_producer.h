// LocalProducer: this process's worker threads as one producer of a MultiFeed: a BatchStream
// filling the batches the feed hands it, straight into their slots of the feed's ring.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "client/detail/producer.h"
#include "loader/pipeline/batch_stream.h"
#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"

namespace textfeed::client::internal {

// A resource type; its Producer methods may be called from any thread.
class LocalProducer final : public Producer {
 public:
  // `host` must outlive the producer. `prefetch`: batches in flight at most; `wait_slice`: how
  // long its thread sleeps at most between looks at the host.
  LocalProducer(ProducerHost& host, size_t id, std::unique_ptr<loader::WorkerPool> pool,
                std::shared_ptr<loader::BatchPipeline> pipeline, uint32_t prefetch,
                std::chrono::milliseconds wait_slice);
  ~LocalProducer() override;
  void start() override;
  void wake() override;
  void stop() override;
  std::string name() const override { return "this process's threads"; }
  FeedTransport transport() const override { return FeedTransport::kEmbedded; }
  void cancel() override;

 private:
  // The fills' completions signal it from worker threads, maybe after the producer is gone: it is
  // shared with them.
  struct Signal {
    std::mutex mu;
    std::condition_variable cv;
    bool raised = false;
    void raise();
  };
  void run();

  ProducerHost& host_;
  const size_t id_;
  const uint32_t prefetch_;
  const std::chrono::milliseconds wait_slice_;
  std::unique_ptr<loader::WorkerPool> pool_;
  std::shared_ptr<loader::BatchPipeline> pipeline_;
  std::shared_ptr<Signal> signal_ = std::make_shared<Signal>();
  std::unique_ptr<loader::BatchStream> stream_;  // after pool_: destroyed first
  std::deque<Work> outstanding_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace textfeed::client::internal
