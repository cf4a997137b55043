// MultiFeed: one rank's batches from one or more producers at once: daemons (`textfeed serve`,
// each over its own connection and thread: client/detail/daemon_session.h) and, optionally, this
// process's own worker threads. A feed of one daemon is a MultiFeed with one producer. Every batch
// depends only on (spec, seed, epoch, batch), so any producer makes the same bytes: the feed hands
// out batch numbers to whichever producer has room (its own credits and a free slot of the one
// ring), takes them back in any order and delivers them in order.
//
// A daemon that dies or stalls past daemon_timeout is taken for lost: the batches it held are
// handed to the others (nothing lost, nothing repeated), and its session reconnects with a
// back-off until it comes back and rejoins, or gives up (ClientOptions has the rules and their
// timings). Slots a lost shared-memory daemon may still write into (a stopped process resumes) are
// kept out of use until its reconnect proves its old stream gone (the daemon answers a
// reconnect's Hello only once the old connection's fills have ended); a frames daemon's are free
// at once (nothing reaches them once its connection is closed). With several producers, a daemon
// that still answers but has held the batch next() waits for past stall_timeout is taken for lost
// the same way. When every producer is out, next() fails with the last one's error.
//
// Memory: the ring has prefetch x producers + held_slots slots, and with several producers
// prefetch more (one producer's worth to spare, for the slots of a lost one). When the batch
// next() waits for has no slot, the latest batch that is made but not yet due gives up its slot
// and is made again later.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "client/client_options.h"
#include "client/feed.h"
#include "loader/spec/spec.h"
#include "transport/curve.h"
#include "transport/wire.h"

namespace textfeed::loader {
class SampleSource;
}

namespace textfeed::client {

namespace internal {
class DaemonSession;
class Producer;
class ProducerHost;
struct Work;
struct LocalParts;
}  // namespace internal

// The most producers one feed takes (daemons and the local threads).
inline constexpr size_t kMaxProducers = 64;

struct DaemonProducer {
  std::string endpoint;  // ipc:///path or tcp://host:port
  transport::Transport transport = transport::Transport::kAuto;
  transport::CurveClientOptions curve;  // required by a tcp daemon with CURVE keys
  // Hello.session: the same for every connection to this daemon; 0: open() draws one.
  uint64_t session = 0;
};

struct MultiOptions {
  std::string client_name;    // shown in the daemons' logs
  loader::PipelineSpec spec;  // what the daemons make (sources name their datasets)
  std::vector<DaemonProducer> daemons;
  // > 0: this process's own worker threads are one more producer, making `local_spec` (the same
  // spec over this process's paths) from `local_source`; the feed refuses them unless their
  // batches have the daemons' layout and dataset fingerprint.
  int local_threads = 0;
  loader::PipelineSpec local_spec;
  std::shared_ptr<const loader::SampleSource> local_source;
  // kCompact: the daemons send each batch's warped crops, colour draws and words, and the
  // producers' threads finish them here (base/compact_row.h; frames; training, EAST profiles).
  transport::Payload payload = transport::Payload::kFull;
  uint32_t prefetch = 2;          // batches each producer may have in flight (1..kMaxPrefetch)
  uint32_t held_slots = 0;        // slots for batches the caller holds
  ClientOptions client;           // every timing: silence, back-off, give-up, stalls
  uint64_t epoch = 0, batch = 0;  // where to start
};

class MultiFeed final : public Feed {
 public:
  // Connects to every daemon, opens an assigned stream on each, checks that they (and the local
  // threads) make batches of one layout from one dataset, allocates the ring and starts. A daemon
  // that does not answer (kUnavailable) is left to its session's reconnects, with a warning, as
  // long as another producer is up. Errors: kInvalidArgument (options, producers that disagree, a
  // daemon that predates assigned streams), the daemons' errors, kUnavailable (no producer up; with
  // one daemon, its own error). In textfeed::client_embedded (the local threads and the compact
  // payload need the pipeline).
  static Result<std::unique_ptr<MultiFeed>> open(const MultiOptions& options);
  // As open(), for a feed of daemons only, in textfeed::client_remote (a program that links only
  // the remote client). Errors as open(), and kInvalidArgument for local_threads or payload
  // compact.
  static Result<std::unique_ptr<MultiFeed>> open_daemons(const MultiOptions& options);
  ~MultiFeed() override;

  Status seek(uint64_t epoch, uint64_t batch) override;
  FeedStats stats() const override;
  void cancel() override;
  // Takes daemon `i` for lost now, as a silence past daemon_timeout would (tests).
  void lose_for_testing(size_t i);
  const MultiOptions& options() const { return options_; }

 private:
  class Host;  // the producers' side (internal::ProducerHost), over this feed
  struct Assignment {
    size_t producer = 0;
    uint32_t slot = 0;
    Position position;
    bool stale = false;  // from before a seek: its slot is freed when it comes, the batch dropped
    Clock::TimePoint since{};  // when it was handed out
  };
  struct Done {
    FeedBatch batch;
    Status status;  // not OK: the batch failed (every producer would fail it the same way)
    size_t producer = 0;
  };
  struct Counters {
    uint64_t delivered = 0, reissued = 0, reconnects = 0;
    double wait_seconds = 0;
    ProducerState state = ProducerState::kUp;
    bool joined = true;                 // was up once (a daemon absent at open() has not)
    std::string why;                    // why it was last lost or put out
    std::vector<uint32_t> quarantined;  // its slots it may still write into
  };

  explicit MultiFeed(const MultiOptions& options);
  // open() and open_daemons(): `parts` holds what client_embedded adds (the local threads, the
  // compact finishers); multi_feed_open.cc has the steps.
  static Result<std::unique_ptr<MultiFeed>> open_with(const MultiOptions& options,
                                                      const internal::LocalParts& parts);
  Status join_daemons(const internal::LocalParts& parts);
  Status agree(const FeedLayout& layout, const std::string& name);
  Status make_ring();
  Status start_producers(const internal::LocalParts& parts);

  Result<std::optional<FeedBatch>> take_batch(std::chrono::milliseconds timeout) override;
  void release_slot(uint32_t slot) override;
  void wake_all();
  bool stopping() const;
  std::string differs(const FeedLayout& other) const;
  // The producers' side (Host forwards to these).
  std::vector<internal::Work> take_work(size_t producer, uint32_t limit);
  // A batch back from `producer` (finished, or failed with `status`): it waits for its turn, or,
  // stale, frees its slot.
  void land(size_t producer, uint64_t ticket, FeedBatch batch, const Status& status);
  void lost(size_t producer, const std::string& why, bool keep_slots);
  void rejoined(size_t producer);
  void gave_up(size_t producer, const Status& status, bool keep_slots);
  bool others_up(size_t producer) const;
  size_t usable_slots() const;  // not kept for good by an out producer (guarded by mu_)
  // While next() waits for `want`: drops the daemons that stall it (guarded by mu_).
  void drop_stalled(const Position& want, Clock::TimePoint now);
  void count_wait(const Position& want, double waited);  // guarded by mu_
  Result<std::optional<FeedBatch>> deliver(std::unique_lock<std::mutex>& lock,
                                           const Position& want);

  MultiOptions options_;
  std::shared_ptr<const Clock> clock_;
  std::unique_ptr<internal::ProducerHost> host_;                // a Host
  std::vector<std::unique_ptr<internal::Producer>> producers_;  // the daemons', then the local
  std::vector<internal::DaemonSession*> sessions_;  // the daemons' producers_, for opening
  std::string first_producer_;                      // whose layout the others agree with
  mutable std::mutex mu_;
  std::condition_variable cv_;
  Position next_new_;                       // the first batch never handed out
  std::set<Position> redo_;                 // handed out before, to hand out again
  std::vector<uint32_t> free_;              // slots nobody uses
  std::map<uint64_t, Assignment> tickets_;  // handed out, not back yet
  std::map<Position, uint64_t> ticket_of_;  // the live (not stale) ticket of a batch
  std::map<Position, Done> done_;           // back, not yet delivered
  uint64_t next_ticket_ = 1;
  std::vector<Counters> counters_;
  uint32_t held_ = 0;
  Status error_;
  bool stop_ = false;
  Position waiting_for_{~uint64_t{0}, 0};  // the batch next() last waited for, and since when
  Clock::TimePoint waiting_since_{};
  uint64_t batches_ = 0, samples_ = 0, skipped_ = 0, evicted_ = 0;
  double wait_seconds_ = 0;
  Clock::TimePoint started_{};
};

}  // namespace textfeed::client
