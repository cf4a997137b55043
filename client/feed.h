// Feed: where a training process gets its batches, whatever makes them: an EmbeddedFeed runs the
// pipeline in this process, a MultiFeed pulls from one or more `textfeed serve` daemons. Either
// hands out batches in order, each in one slot of a ring allocated once (SlotRing); a slot is the
// caller's until it calls release(), so the tensors built over it stay valid until then. A slot
// something may still read (a CUDA copy from it) is given back with release_after(slot, fence): the
// feed keeps it until the fence is done, and returns it to the ring then, in next() or release().
//
// Every path of a slot back to the ring goes through this class: next() and release() here, and
// the subclasses' take_batch() and release_slot().
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/batch_info.h"
#include "base/epochs.h"
#include "base/status.h"
#include "base/tensor.h"
#include "client/fence.h"
#include "client/slot_ring.h"

namespace textfeed::client {

// The most batches a feed fills ahead (EmbeddedOptions/MultiOptions::prefetch, 1..this): the
// ring holds them, and more only adds memory and latency.
inline constexpr uint32_t kMaxPrefetch = 64;

struct FeedLayout {
  std::vector<TensorDesc> tensors;  // of a full batch
  size_t slot_bytes = 0;
  EpochLengths epochs;  // batches per epoch (equal for every rank); an elastic resume's epoch
  uint64_t dataset_size = 0;
  std::vector<uint64_t> source_sizes;  // samples per source, in index order (sum: dataset_size)
  int batch_size = 0;
  // loader::SampleSource::fingerprint() of the dataset, when the feed knows it (an EmbeddedFeed
  // does; a MultiFeed does once the daemon sends it): a checkpoint names its dataset with it.
  std::optional<uint64_t> dataset_fingerprint;
};

// What next() says on a rank with no sample (eval mode with more ranks than images): its epochs
// have 0 batches, and a feed of it asks for none.
inline Status empty_rank_error() {
  return Status::invalid_argument(
      "this rank has no sample: an epoch of 0 batches (eval mode with more ranks than "
      "images)");
}

// One delivered batch: its metadata (base/batch_info.h; a feed's compact rows are expanded into
// the slot, so `compact` is empty) and the slot its rows live in, ring().slot(slot), until
// release(slot). Made as FeedBatch{std::move(info), slot} from a fill's or a daemon's metadata.
struct FeedBatch : BatchInfo {
  uint32_t slot = 0;
};

// Where a producer of a MultiFeed stands.
enum class ProducerState : unsigned char {
  kUp = 0,    // making batches
  kLost = 1,  // gone or stalled (or absent at open): reconnecting
  kOut = 2,   // refused for good (another dataset, a batch no daemon sends) or gave up
};
// "up", "lost", "out": the text of stats and messages.
std::string_view producer_state_name(ProducerState state);

// How a feed's, or one producer's, batches reach this process.
enum class FeedTransport : unsigned char {
  kEmbedded = 0,       // made by this process's threads
  kSharedMemory = 1,   // written by a daemon into this process's ring
  kFrames = 2,         // copied from a daemon's payload frames
  kCompactFrames = 3,  // a daemon's compact rows, finished by this process
  kMulti = 4,          // a feed's, made by several producers (each says its own)
};
// "embedded", "shm", "frames", "frames, compact", "multi": the text of stats and messages.
std::string_view feed_transport_name(FeedTransport transport);

// One producer of a MultiFeed: a daemon, or this process's own threads.
struct ProducerStats {
  std::string name;  // "the daemon at <endpoint>", or "this process's threads"
  ProducerState state = ProducerState::kUp;
  FeedTransport transport = FeedTransport::kFrames;  // never kMulti
  uint64_t delivered = 0;                            // its batches next() returned
  uint64_t reissued = 0;    // batches it held when it was lost, handed to the others
  uint32_t in_flight = 0;   // handed to it and not back yet
  double wait_seconds = 0;  // next() waiting for a batch it held
  uint64_t reconnects = 0;  // times it came back after being lost
  std::string last_error;   // why it was last lost or put out ("" if never)
};

struct FeedStats {
  uint64_t batches = 0, samples = 0, skipped_samples = 0;
  double wait_seconds = 0;            // time next() spent waiting for a batch
  double elapsed_seconds = 0;         // since the feed started
  uint32_t in_flight = 0;             // batches being produced or on their way
  uint32_t held_slots = 0;            // slots the caller holds
  uint64_t reconnects = 0;            // MultiFeed: daemon connections re-established
  double daemon_timeout_seconds = 0;  // MultiFeed: silence after which a daemon is taken for
                                      // gone (daemon_timeout, at least 3 of its heartbeats; the
                                      // longest over the daemons that answered)
  std::vector<std::string>
      stage_names;  // EmbeddedFeed: per-sample ms by stage, summed over threads
  std::vector<double> stage_ms;
  // kEmbedded; a MultiFeed's one producer's own, or kMulti when it has several.
  FeedTransport transport = FeedTransport::kEmbedded;
  std::vector<ProducerStats> producers;  // MultiFeed: one per producer, in the order given
  uint64_t remade = 0;  // MultiFeed: made batches that gave up their slot to an earlier one
};

// Thread-safety: next(), seek(), stats() from one consumer thread; release(), release_after() and
// cancel() from any thread.
class Feed {
 public:
  virtual ~Feed() = default;
  const FeedLayout& layout() const { return layout_; }
  const SlotRing& ring() const { return *ring_; }
  // The ring, shared: it may outlive the feed (tensors over its slots keep it).
  std::shared_ptr<const SlotRing> shared_ring() const { return ring_; }
  // The next batch in order, or nullopt when none came within `timeout` (call again). First gives
  // back the fenced slots whose fence is done; when every slot is held, waits for the oldest
  // fence (the fence's own wait, not bounded by `timeout`) rather than failing. Errors:
  // kOverloaded (every slot is held by the caller without a fence, so nothing can be produced),
  // a failed batch's error, the daemon's error, kUnavailable (the daemon is gone and did not come
  // back).
  Result<std::optional<FeedBatch>> next(std::chrono::milliseconds timeout);
  // Gives `slot` back; the feed may write into it from now on. Also gives back the fenced slots
  // whose fence is done (unless another thread is asking the fences right now).
  void release(uint32_t slot);
  // Gives `slot` back once `fence` is done (asked in next() and release(); waited for when the
  // ring is full). Until then the slot counts as held.
  void release_after(uint32_t slot, std::unique_ptr<Fence> fence);
  // Slots given back with a fence that is not done yet (as of the last look).
  size_t fenced_slots() const { return fenced_.size(); }
  // Drops what was produced ahead and continues at batch `batch` of `epoch`. Errors:
  // kInvalidArgument (batch out of range), kUnavailable.
  virtual Status seek(uint64_t epoch, uint64_t batch) = 0;
  // As seek(), for a caller that must stay responsive (Ctrl-C in Python): a feed whose seek can
  // wait long asks `interrupted` at least every 100 ms, on the
  // calling thread, and gives up waiting once it says true: kCancelled. The seek then still
  // happens in the background; the next seek() moves the feed wherever it is asked to.
  virtual Status seek(uint64_t epoch, uint64_t batch, const std::function<bool()>& interrupted) {
    (void)interrupted;
    return seek(epoch, batch);
  }
  // Position of the batch next() returns next.
  uint64_t next_epoch() const { return epoch_; }
  uint64_t next_batch() const { return batch_; }
  virtual FeedStats stats() const = 0;
  // Stops producing for good: fills in flight end after the sample each worker is on, and next()
  // returns kCancelled from then on (a waiting next() returns soon). Any thread may call it, also
  // while another waits in next(); the destructor of an EmbeddedFeed does it before it waits.
  // The default does nothing (a feed whose destructor is prompt anyway).
  virtual void cancel() {}

 protected:
  // Moves the position past batch `batch` of `epoch` (the one next() is returning).
  void advance_past(uint64_t epoch, uint64_t batch) {
    std::tie(epoch_, batch_) = layout_.epochs.after(epoch, batch);
  }

  // next() and release() of the subclass: they see only slots whose readers are done.
  virtual Result<std::optional<FeedBatch>> take_batch(std::chrono::milliseconds timeout) = 0;
  virtual void release_slot(uint32_t slot) = 0;

  FeedLayout layout_;
  std::shared_ptr<SlotRing> ring_;
  uint64_t epoch_ = 0, batch_ = 0;  // the caller's position (the consumer thread's)

 private:
  void release_done(bool if_free);

  FencedSlots fenced_;
};

}  // namespace textfeed::client
