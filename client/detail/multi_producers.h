// The producers of a MultiFeed, each on a thread of its own: a daemon (DaemonLink: one
// connection and its assigned stream; RemoteProducer: credits, batches, heartbeats, the loss and
// the reconnects) and this process's worker threads (LocalProducer: a BatchStream over the ring).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "client/multi_feed.h"
#include "loader/batch_stream.h"
#include "loader/compact_expander.h"
#include "loader/worker_pool.h"
#include "transport/connection.h"

namespace textfeed::client {

// What the feed asks of each producer.
class MultiFeed::Producer {
 public:
  virtual ~Producer() = default;
  virtual void start() = 0;
  // New work may be there (a slot came free, a batch to make again), or the feed stops.
  virtual void wake() = 0;
  // Ends the thread (the feed has set its stop flag) and waits for it.
  virtual void stop() = 0;
  virtual std::string name() const = 0;
  virtual std::string transport() const = 0;
  // Takes the producer for lost (a daemon that stalls; tests): its thread drops the connection and
  // reconnects. The local threads are never lost.
  virtual void drop() {}
  // Whether drop() does anything (a daemon's does; the local threads are never lost).
  virtual bool droppable() const { return false; }
  // Stops making batches for good (the feed was cancelled): fills end after their current sample.
  virtual void cancel() { wake(); }
};

namespace internal {

// A connection to one daemon with an assigned stream open on it.
class DaemonLink {
 public:
  // Connects (Hello within `timeout`), opens the stream and checks that the daemon honours
  // assigned batches. Errors: the connection's and the daemon's, kInvalidArgument (a daemon that
  // predates assigned streams; transport "shm" from a daemon that offers none).
  static Result<std::unique_ptr<DaemonLink>> connect(const MultiFeed& feed,
                                                     const DaemonProducer& daemon,
                                                     std::chrono::milliseconds timeout);
  // Lends a shared-memory stream the ring (nothing for frames).
  Status attach(const SlotRing& ring);
  const FeedLayout& layout() const { return layout_; }
  transport::Connection& connection() { return *conn_; }
  uint64_t stream_id() const { return opened_.stream_id; }
  uint64_t compact_bytes() const { return opened_.compact_bytes; }
  // Batches this daemon takes in flight: `prefetch`, and over frames at most its maxCredits.
  uint32_t credit_limit(uint32_t prefetch) const {
    return shm_ || opened_.max_credits == 0 ? prefetch : std::min(prefetch, opened_.max_credits);
  }
  bool shared_memory() const { return shm_; }

 private:
  std::unique_ptr<transport::Connection> conn_;
  transport::StreamOpened opened_;
  FeedLayout layout_;
  bool shm_ = false;
  std::chrono::milliseconds answer_{0};
};

class RemoteProducer final : public MultiFeed::Producer {
 public:
  RemoteProducer(MultiFeed& feed, size_t id, DaemonProducer daemon,
                 std::unique_ptr<DaemonLink> link);
  ~RemoteProducer() override;
  void start() override;
  void wake() override;
  void stop() override;
  std::string name() const override { return "the daemon at " + daemon_.endpoint; }
  std::string transport() const override {
    return shm_.load() ? "shm" : expander_ ? "frames, compact" : "frames";
  }
  void drop() override;
  bool droppable() const override { return true; }

 private:
  void run();
  bool reconnect();  // false: out for good (gave_up said why)
  bool compact_fits(const DaemonLink& link) const;
  std::string tensors_differ(const transport::BatchHeader& h) const;
  void lose(const std::string& why);
  Status credit();
  bool receive();  // false: stop
  bool on_batch(transport::BatchHeader& h);
  std::span<uint8_t> payload_for(const transport::BatchHeader& h);
  void sleep_or_wake(std::chrono::milliseconds d);

  MultiFeed& feed_;
  const size_t id_;
  const DaemonProducer daemon_;
  std::unique_ptr<DaemonLink> link_;  // null while lost
  std::atomic<bool> shm_{false};
  std::deque<MultiFeed::Work> outstanding_;  // credited, in the order the daemon fills them
  std::optional<uint64_t> payload_ticket_;   // frames: the ticket the last payload was copied for
  // payload compact: where a batch's crops arrive, and what finishes them into its slot.
  std::unique_ptr<loader::CompactExpander> expander_;
  std::vector<uint8_t> crops_;
  std::atomic<bool> drop_asked_{false}, stop_{false};
  uint32_t limit_ = 0;  // batches in flight at most (DaemonLink::credit_limit)
  int wake_fd_ = -1;
  std::thread thread_;
};

class LocalProducer final : public MultiFeed::Producer {
 public:
  LocalProducer(MultiFeed& feed, size_t id, std::unique_ptr<loader::WorkerPool> pool,
                std::shared_ptr<loader::BatchPipeline> pipeline);
  ~LocalProducer() override;
  void start() override;
  void wake() override;
  void stop() override;
  std::string name() const override { return "this process's threads"; }
  std::string transport() const override { return "embedded"; }
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

  MultiFeed& feed_;
  const size_t id_;
  std::unique_ptr<loader::WorkerPool> pool_;
  std::shared_ptr<loader::BatchPipeline> pipeline_;
  std::shared_ptr<Signal> signal_ = std::make_shared<Signal>();
  std::unique_ptr<loader::BatchStream> stream_;  // after pool_: destroyed first
  std::deque<MultiFeed::Work> outstanding_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace internal
}  // namespace textfeed::client
