// MultiFeed: one rank's batches from several producers at once: daemons (`textfeed serve`, each
// over its own connection and I/O thread) and, optionally, this process's own worker threads.
// Every batch depends only on (spec, seed, epoch, batch), so any producer makes the same bytes:
// the feed hands out batch numbers to whichever producer has room (its own credits and a free
// slot of the one ring), takes them back in any order and delivers them in order.
//
// A daemon that dies or stalls past daemon_timeout is taken for lost: the batches it held are
// handed to the others (nothing lost, nothing repeated), and its thread reconnects with a backoff
// (200 ms doubling to 5 s, jittered: no storm) until it comes back and rejoins. Slots a lost
// shared-memory daemon may still write into (a stopped process resumes) are kept out of use until
// its reconnect proves its old stream gone (the daemon answers a reconnect's Hello only once the
// old connection's fills have ended); a frames daemon's are free at once (nothing reaches them
// once its connection is closed). A daemon that still answers but has held the batch next()
// waits for past stall_timeout is taken for lost the same way. When every producer has been lost
// for reconnect_timeout, next() fails.
//
// Memory: the ring has prefetch x producers + held_slots + prefetch slots (one producer's worth
// to spare, for the slots of a lost one). When the batch next() waits for has no slot, the
// latest batch that is made but not yet due gives up its slot and is made again later.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "client/feed.h"
#include "loader/pipeline.h"
#include "loader/source.h"
#include "transport/connection.h"
#include "transport/wire.h"

namespace textfeed::client {

// The most producers one feed takes (daemons and the local threads).
inline constexpr size_t kMaxProducers = 64;

struct DaemonProducer {
  std::string endpoint;  // ipc:///path or tcp://host:port
  transport::Transport transport = transport::Transport::kAuto;
  transport::ConnectOptions connect;  // the Hello timeout and this daemon's CURVE keys
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
  // producers' threads finish them here (loader/compact.h; frames; training, EAST profiles).
  transport::Payload payload = transport::Payload::kFull;
  uint32_t prefetch = 2;    // batches each producer may have in flight (1..kMaxPrefetch)
  uint32_t held_slots = 0;  // slots for batches the caller holds
  std::chrono::milliseconds daemon_timeout{10000};  // silence after which a daemon is lost
  std::chrono::milliseconds reconnect_timeout{
      60000};  // every producer lost this long: next() fails
  // A daemon that still answers but has held the batch next() waits for this long (a hung read, a
  // stopped worker) is taken for lost too, and that batch is made elsewhere.
  std::chrono::milliseconds stall_timeout{30000};
  uint64_t epoch = 0, batch = 0;  // where to start
};

class MultiFeed final : public Feed {
 public:
  // Connects to every daemon, opens an assigned stream on each, checks that they (and the local
  // threads) make batches of one layout from one dataset, allocates the ring and starts. A daemon
  // that does not answer (kUnavailable) is left to its thread's reconnects, with a warning, as
  // long as another producer is up. Errors: kInvalidArgument (options, producers that disagree, a
  // daemon that predates assigned streams), the daemons' errors, kUnavailable (no producer up).
  static Result<std::unique_ptr<MultiFeed>> open(const MultiOptions& options);
  ~MultiFeed() override;

  Status seek(uint64_t epoch, uint64_t batch) override;
  FeedStats stats() const override;
  void cancel() override;
  // Takes daemon `i` for lost now, as a silence past daemon_timeout would (tests).
  void lose_for_testing(size_t i);

  // The producers' side (client/multi_producers.cc): what the feed hands a producer and takes
  // back from it. Public for those classes; not for callers.
  struct Work {
    uint64_t ticket = 0;
    uint32_t slot = 0;
    Position position;
  };
  class Producer;
  // Batches to make for `producer`, up to `limit` in flight with it.
  std::vector<Work> take_work(size_t producer, uint32_t limit);
  void finished(size_t producer, uint64_t ticket, FeedBatch batch);
  void failed(size_t producer, uint64_t ticket, const Status& status);
  void lost(size_t producer, const std::string& why, bool keep_slots);
  void rejoined(size_t producer);
  // Out for good (it disagrees with the rest, or sent what no daemon sends); `keep_slots` as
  // lost().
  void gave_up(size_t producer, const Status& status, bool keep_slots);
  bool stopping() const;
  const MultiOptions& options() const { return options_; }
  // Whether an opened stream makes what this feed delivers ("" when it does, else why not).
  std::string differs(const FeedLayout& other) const;

 private:
  MultiFeed() = default;
  Result<std::optional<FeedBatch>> take_batch(std::chrono::milliseconds timeout) override;
  void release_slot(uint32_t slot) override;
  void wake_all();
  // A batch back from `producer` (finished, or failed with `status`): it waits for its turn, or,
  // stale, frees its slot.
  void land(size_t producer, uint64_t ticket, FeedBatch batch, const Status& status);
  size_t usable_slots() const;  // not quarantined (guarded by mu_)
  // While next() waits for `want`: drops the daemons that stall it (guarded by mu_).
  void drop_stalled(const Position& want, std::chrono::steady_clock::time_point now);

  struct Assignment {
    size_t producer = 0;
    uint32_t slot = 0;
    Position position;
    bool stale = false;  // from before a seek: its slot is freed when it comes, the batch dropped
    std::chrono::steady_clock::time_point since{};  // when it was handed out
  };
  struct Done {
    FeedBatch batch;
    Status status;  // not OK: the batch failed (every producer would fail it the same way)
    size_t producer = 0;
  };
  struct Counters {
    uint64_t delivered = 0, reissued = 0, reconnects = 0;
    double wait_seconds = 0;
    std::string state = "up";           // "up", "lost", "out"
    bool joined = true;                 // was up once (a daemon absent at open() has not)
    std::string why;                    // why it was last lost or put out
    std::vector<uint32_t> quarantined;  // its slots it may still write into
  };

  MultiOptions options_;
  std::vector<std::unique_ptr<Producer>> producers_;
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
  size_t up_ = 0;  // producers up
  std::chrono::steady_clock::time_point all_lost_since_{};
  Status error_;
  bool stop_ = false;
  Position waiting_for_{~uint64_t{0}, 0};  // the batch next() last waited for, and since when
  std::chrono::steady_clock::time_point waiting_since_{};
  uint64_t batches_ = 0, samples_ = 0, skipped_ = 0, evicted_ = 0;
  double wait_seconds_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace textfeed::client
