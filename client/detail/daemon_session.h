// DaemonSession: the one daemon client. It connects to a daemon, opens an assigned stream, lends
// it the feed's ring (shared memory), grants credits naming the batches the feed hands it, checks
// each batch against what it was given, takes the daemon for lost on silence, an error reply or a
// failed send, and reconnects until the daemon is back or it gives up. Every feed of daemons (one
// endpoint or several) runs one session per daemon, each on a thread of its own (MultiFeed).
//
// The rules, each timing a ClientOptions field, time read on its clock:
// - Silence: nothing heard (heartbeats included) for silence_limit() = max(daemon_timeout, three
//   of the daemon's heartbeat intervals) is a loss.
// - Back-off: a lost session tries at once, then after backoff_first, doubling up to backoff_max,
//   each wait jittered by +-backoff_jitter (Backoff). Each attempt waits for Hello at most
//   min(connect_timeout, reconnect_connect_timeout). Wake-ups (a slot freed) do not shorten a wait.
// - Give-up: a session lost for reconnect_timeout, while no other producer of its feed is up, is
//   out for good with kUnavailable ("<name> did not come back within ..."); with every producer
//   out, the feed's next() fails with it.
// - What a reconnect's errors mean: a daemon that disagrees (kInvalidArgument, kUnimplemented,
//   kNotFound: another protocol, no such dataset, a spec it refuses, another layout or dataset) is
//   out for good. Anything else is tried again after the back-off, kOverloaded included: a daemon
//   at one of its limits (streams, clients, memory) when the stream is reopened still counts the
//   streams of the connection it lost until their fills end, so the refusal passes; the give-up
//   bounds the retries.
// - On the stream: an Error reply kUnavailable (going away) or kOverloaded, or one about no
//   stream, is a loss; a fill's own failure (on_bad_sample=fail) fails that batch (the feed's
//   next() returns it and makes the batch again on the next call) and the daemon's ended stream
//   is reopened; a batch that is not the one credited, not where it was credited, without its
//   payload or metadata, or unlike the stream's tensors puts the daemon out for good (kCorrupt).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/compact_row.h"
#include "base/status.h"
#include "base/wakeup.h"
#include "client/client_options.h"
#include "client/detail/backoff.h"
#include "client/detail/daemon_link.h"
#include "client/detail/producer.h"
#include "client/multi_feed.h"
#include "transport/wire.h"

namespace textfeed::client::internal {

// Finishes compact batches into full ones (client_embedded: over loader::CompactExpander). Used
// by one session's thread.
class CompactFinisher {
 public:
  virtual ~CompactFinisher() = default;
  // The feed's crop side and batch size: a full batch's crops take
  // compact_row_bytes(crop_size()) x batch_size() bytes.
  virtual int crop_size() const = 0;
  virtual int batch_size() const = 0;
  // Writes rows.size() full rows into `slot` from `crops` and `rows`. Errors: kCorrupt naming the
  // row (CompactExpander::expand's).
  virtual Status expand(const uint8_t* crops, std::span<const CompactRow> rows, uint8_t* slot) = 0;
};

// The layout of a daemon's stream as a Feed describes it (`resume`: the spec's elastic resume).
FeedLayout stream_layout(const transport::StreamOpened& opened, const loader::ResumePoint& resume);

// A resource type. Its thread is the only one to touch the connection; the Producer methods and
// up() may be called from any thread. join() and attach() come before start(), on the feed's.
class DaemonSession final : public Producer {
 public:
  struct Config {
    size_t id = 0;  // the producer's index in the feed
    DaemonProducer daemon;
    std::string client_name;
    loader::PipelineSpec spec;  // what the daemon makes (sources name its datasets)
    transport::Payload payload = transport::Payload::kFull;
    Position start;  // where the feed starts (every open names it; credits name the batches)
    uint32_t prefetch = 2;
    ClientOptions options;  // validated
  };
  // `host` must outlive the session; `finisher` is set exactly when config.payload is kCompact.
  // Errors: kIo (no eventfd for the wake-up).
  static Result<std::unique_ptr<DaemonSession>> create(ProducerHost& host, Config config,
                                                       std::shared_ptr<DaemonConnector> connector,
                                                       std::unique_ptr<CompactFinisher> finisher);
  ~DaemonSession() override;

  // The feed's first contact: connects (Hello within connect_timeout) and opens the stream.
  // Errors: the connection's and the daemon's, kInvalidArgument (a daemon that predates assigned
  // streams or the compact payload, or sends compact batches of another size; transport "shm" from
  // a daemon that offers none). After an error the session is lost, and its thread keeps trying.
  Status join();
  // The joined stream's layout (after join() succeeded).
  const FeedLayout& layout() const { return layout_; }
  // Lends the joined stream the feed's ring (shared memory; nothing for frames). Errors: the
  // daemon's, kUnavailable.
  Status attach();
  // Whether the session has a stream (joined, or back after a loss), as of its thread's last turn.
  bool up() const { return up_.load(); }

  void start() override;
  void wake() override { wake_.signal(); }
  void stop() override;
  std::string name() const override { return "the daemon at " + config_.daemon.endpoint; }
  FeedTransport transport() const override { return transport_.load(); }
  void drop() override;
  bool droppable() const override { return true; }
  std::chrono::milliseconds silence_limit() const override {
    return std::chrono::milliseconds(silence_ms_.load());
  }

  // One turn of the thread's loop; tests call it directly, on a FakeClock, without the thread.
  // kGoOn: call again; kWait: lost, call again once the clock reaches next_try(); kStop: done (the
  // feed stops, or the session is out).
  enum class Turn : unsigned char { kGoOn, kWait, kStop };
  Turn step();
  // When a lost session tries next.
  Clock::TimePoint next_try() const { return next_try_; }

 private:
  // A connection with the stream opened on it, not yet the session's.
  struct Stream {
    std::unique_ptr<DaemonLink> link;
    transport::StreamOpened opened;
    FeedLayout layout;
    bool shm = false;
    std::chrono::milliseconds answer{0};  // how long its requests wait for their replies
  };

  DaemonSession(ProducerHost& host, Config config, std::shared_ptr<DaemonConnector> connector,
                std::unique_ptr<CompactFinisher> finisher, Wakeup wake);
  void run();
  void wait_until(Clock::TimePoint t);
  Result<Stream> open_stream(std::chrono::milliseconds hello_timeout);
  Status check_opened(const Stream& s) const;
  void adopt(Stream s);
  Turn rejoin_turn();
  bool reconnect();
  void lose(const std::string& why);
  void out(const Status& status, bool keep_slots);
  Status credit();
  Turn receive();
  Turn check_silence();
  Turn on_error(const transport::ErrorReply& e);
  Turn on_batch(transport::BatchHeader& h);
  std::string batch_differs(const transport::BatchHeader& h, const Work& w) const;
  std::string tensors_differ(const transport::BatchHeader& h) const;
  std::span<uint8_t> payload_for(const transport::BatchHeader& h);

  ProducerHost& host_;
  const Config config_;
  const std::shared_ptr<const Clock> clock_;
  const std::shared_ptr<DaemonConnector> connector_;
  std::unique_ptr<CompactFinisher> finisher_;
  std::vector<uint8_t> crops_;  // compact: where a batch's crops arrive
  Wakeup wake_;
  Backoff backoff_;

  // The stream (link_ null while lost), the thread's.
  std::unique_ptr<DaemonLink> link_;
  transport::StreamOpened opened_;
  FeedLayout layout_;
  bool shm_ = false;
  std::chrono::milliseconds answer_{0};
  uint32_t limit_ = 0;                      // batches in flight at most
  std::deque<Work> outstanding_;            // credited, in the order the daemon fills them
  std::optional<uint64_t> payload_ticket_;  // frames: the ticket the last payload was copied for
  Clock::TimePoint lost_since_{}, next_try_{};
  Status last_error_;  // of the last failed reconnect

  std::atomic<bool> up_{false}, drop_asked_{false}, stop_{false};
  std::atomic<FeedTransport> transport_;
  std::atomic<int64_t> silence_ms_{0};
  std::thread thread_;
};

}  // namespace textfeed::client::internal
