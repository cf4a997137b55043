// RemoteFeed: batches from `textfeed serve`. An I/O thread of its own owns the connection: it
// grants credits as slots come free, receives batches (on the same host the daemon writes them
// straight into the ring's shared memory; otherwise their payload frames are copied in once),
// keeps the connection alive with heartbeats while the training loop is busy, and, when the
// daemon goes away, reconnects and reopens the stream at the first batch it has not delivered,
// so that no sample is lost or repeated.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "client/feed.h"
#include "transport/connection.h"
#include "transport/wire.h"

namespace textfeed::client {

struct RemoteOptions {
  std::string endpoint;                 // ipc:///path or tcp://host:port
  std::string client_name;              // shown in the daemon's logs and stats
  transport::OpenStream request;        // the spec (spec.sources[0].path: the daemon's dataset name)
                                        // and the first batch; its transport is set from `transport`
  transport::Transport transport = transport::Transport::kAuto;
  uint32_t prefetch = 4;                // batches the daemon may have in flight for this feed, at most
  uint32_t held_slots = 0;              // slots beyond `prefetch` in the ring (for batches the
                                        // caller holds); with 0, a held batch takes a prefetch slot
  transport::ConnectOptions connect;    // Hello timeout, heartbeat interval, CURVE keys
  std::chrono::milliseconds daemon_timeout{10000};     // silence after which the daemon is gone
                                                       // (at least 3 of the daemon's heartbeats)
  std::chrono::milliseconds reconnect_timeout{60000};  // how long to retry before giving up
};

// The layout of a daemon's stream as a Feed describes it (`resume`: the spec's elastic resume).
FeedLayout feed_layout(const transport::StreamOpened& opened, const loader::ResumePoint& resume);
// Whether a batch of a stream of `spec` lacks the per-sample metadata that eval and
// return_polygons streams carry (a daemon that predates them sends plain batches).
bool lacks_sample_meta(const loader::PipelineSpec& spec, const transport::BatchHeader& header);
// How long a daemon may be silent before it is taken for gone: `daemon_timeout`, but at least
// three of the daemon's heartbeat intervals.
std::chrono::milliseconds silence_limit(std::chrono::milliseconds daemon_timeout,
                                        const transport::Connection& conn);

class RemoteFeed final : public Feed {
 public:
  // Connects, opens the stream and allocates the ring (returns once the first credits are out).
  // Errors: the daemon's (kNotFound for an unknown dataset, kInvalidArgument, ...), kUnavailable.
  static Result<std::unique_ptr<RemoteFeed>> open(const RemoteOptions& options);
  // Closes the stream and stops the I/O thread.
  ~RemoteFeed() override;

  Status seek(uint64_t epoch, uint64_t batch) override;
  Status seek(uint64_t epoch, uint64_t batch, const std::function<bool()>& interrupted) override;
  FeedStats stats() const override;
  // Makes the I/O thread act as if the daemon had gone silent (it reconnects and resumes), to test
  // what a reconnect to a live daemon does.
  void reconnect_for_testing();
  // Stops the I/O thread's work for good (it closes the stream and ends); next() and seek() return
  // kCancelled from then on, a waiting one at once.
  void cancel() override;
  // The transport in use.
  bool shared_memory() const { return shm_; }

 private:
  Result<std::optional<FeedBatch>> take_batch(std::chrono::milliseconds timeout) override;
  void release_slot(uint32_t slot) override;
  RemoteFeed() = default;
  // The I/O thread's state and steps (connect/reopen, credits, receive, heartbeat, reconnect,
  // seek); it owns the connection. remote_feed.cc.
  class Io;
  void run(std::unique_ptr<Io> io);
  // How long the daemon may be silent before it is taken for gone: daemon_timeout, but at least
  // three of the daemon's heartbeat intervals.
  // Also what stats() reports.
  std::chrono::milliseconds silence_limit(const transport::Connection& conn);

  RemoteOptions options_;
  bool shm_ = false;
  uint32_t max_in_flight_ = 0;  // frames: the daemon's limit (StreamOpened.maxCredits) and prefetch
  std::thread thread_;
  int wake_fd_ = -1;  // eventfd the I/O thread polls with its socket

  // Shared between the caller and the I/O thread.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<FeedBatch> ready_;          // delivered, not yet returned by next()
  std::vector<uint32_t> released_;       // slots the caller gave back, to credit again
  Status error_;                         // fatal: every next() returns it
  bool stop_ = false;
  std::optional<std::pair<uint64_t, uint64_t>> seek_to_;
  bool reconnect_asked_ = false;
  uint64_t seek_requested_ = 0, seek_done_ = 0;
  Status seek_status_;
  bool seek_abandoned_ = false;  // the caller stopped waiting for a seek: its position is unknown
  uint32_t held_ = 0, in_flight_ = 0;
  std::chrono::milliseconds silence_ms_{0};  // silence_limit() of the connection in use
  uint64_t reconnects_ = 0, batches_ = 0, samples_ = 0, skipped_ = 0;
  double wait_seconds_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

};

}  // namespace textfeed::client
