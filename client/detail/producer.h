// The two sides of a MultiFeed's producers: Producer (what the feed asks of each: a daemon's
// session, this process's threads) and ProducerHost (what each asks of the feed: batches to make,
// handed out as Work, and taken back finished, failed or lost).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "client/feed.h"
#include "client/slot_ring.h"

namespace textfeed::client::internal {

// One batch handed to a producer: make batch `position` into slot `slot`; `ticket` names the
// hand-out when the producer gives it back.
struct Work {
  uint64_t ticket = 0;
  uint32_t slot = 0;
  Position position;
};

// The feed's side, as its producers see it. Thread-safe: each producer calls it from its own
// thread, with its own index.
class ProducerHost {
 public:
  virtual ~ProducerHost() = default;
  // Batches for `producer` to make, up to `limit` in flight with it; none while it is not up, the
  // feed stops, or the rank has no batch.
  virtual std::vector<Work> take_work(size_t producer, uint32_t limit) = 0;
  // A batch made (its metadata; the pixels are in its slot), or failed with `status`.
  virtual void finished(size_t producer, uint64_t ticket, FeedBatch batch) = 0;
  virtual void failed(size_t producer, uint64_t ticket, const Status& status) = 0;
  // The producer lost its daemon: its batches in flight go to the others. `keep_slots`: their
  // slots stay out of use until rejoined() (a shared-memory daemon may still write into them).
  virtual void lost(size_t producer, const std::string& why, bool keep_slots) = 0;
  // A lost producer is back (or an absent one joined): its kept slots are free again.
  virtual void rejoined(size_t producer) = 0;
  // Out for good (it disagrees with the rest, sent what no daemon sends, or gave up); `keep_slots`
  // as lost(). With every producer out, next() fails with the last one's `status`.
  virtual void gave_up(size_t producer, const Status& status, bool keep_slots) = 0;
  // Whether a producer other than `producer` is up: one that can make the batches.
  virtual bool others_up(size_t producer) const = 0;
  // Whether a stream of `layout` makes what the feed delivers ("" when it does, else why not).
  virtual std::string differs(const FeedLayout& layout) const = 0;
  virtual bool stopping() const = 0;
  // The feed's layout and ring: set before any producer starts, constant after.
  virtual const FeedLayout& layout() const = 0;
  virtual const SlotRing& ring() const = 0;
};

// One producer, each on a thread of its own. Its methods are called by the feed (any thread).
class Producer {
 public:
  virtual ~Producer() = default;
  virtual void start() = 0;
  // New work may be there (a slot came free, a batch to make again), or the feed stops.
  virtual void wake() = 0;
  // Ends the thread (the feed has set its stop flag) and waits for it.
  virtual void stop() = 0;
  // "the daemon at <endpoint>", "this process's threads": for stats and messages.
  virtual std::string name() const = 0;
  virtual FeedTransport transport() const = 0;
  // Takes the producer for lost (a daemon that stalls; tests): its thread drops the connection
  // and reconnects. Only where droppable().
  virtual void drop() {}
  virtual bool droppable() const { return false; }
  // Stops making batches for good (the feed was cancelled): fills end after their current sample.
  virtual void cancel() { wake(); }
  // The silence after which its daemon is taken for gone; zero for the local threads and for a
  // daemon that never answered.
  virtual std::chrono::milliseconds silence_limit() const { return {}; }
};

}  // namespace textfeed::client::internal
