// Scheduler: which stream's batch the daemon fills next. Pure bookkeeping, no sockets, threads or
// oneTBB: the Server tells it what happened (a stream opened or ended, a client granted credit, a
// fill started or its batch came out) and asks it for the next stream to fill.
//
// The policy: round-robin over the streams that hold credit, starting after the stream that
// started a fill last, within a budget of fills in flight over all streams (started and not yet
// sent; the fills of ended streams count until they stop), so that one stream with many credits
// cannot starve the others and the arena's queue stays bounded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace textfeed::transport {

// A value type. Not thread-safe: the Server's socket thread calls everything.
class Scheduler {
 public:
  // At most `max_in_flight` fills at once (at least 1).
  explicit Scheduler(size_t max_in_flight);

  // A new stream, with no credit yet. Adding a stream that exists changes nothing.
  void add_stream(uint64_t id);
  // The stream gets no more fills; those it has in flight keep their share of the budget until
  // fill_finished() says each is over.
  void remove_stream(uint64_t id);
  // The client allowed `count` more fills of stream `id` (shared memory: slots; frames: a count).
  void credit(uint64_t id, uint32_t count);
  // A fill of stream `id` started: takes one of its credits and one unit of the budget.
  void fill_started(uint64_t id);
  // A fill of stream `id` (removed or not) is over (its batch was sent or dropped): its unit of
  // the budget is free again.
  void fill_finished(uint64_t id);
  // Stream `id` holds credit but cannot start a fill now (its frame buffers are all in use): it
  // is passed over until the next begin_round().
  void defer(uint64_t id);
  // Starts a round of next() calls: deferred streams may be picked again.
  void begin_round() { deferred_.clear(); }

  // The stream to fill next: the first after the last one started, in id order and wrapping
  // around, that holds credit and is not deferred; nullopt when none does or the budget is spent.
  std::optional<uint64_t> next() const;

  size_t in_flight() const { return in_flight_; }
  size_t max_in_flight() const { return max_in_flight_; }
  // Credits of stream `id` not yet used by a fill (0 for an unknown stream).
  uint32_t credits(uint64_t id) const;
  // Fills of stream `id` in flight (removed streams included until their fills finish).
  size_t in_flight(uint64_t id) const;

 private:
  struct StreamState {
    uint32_t credits = 0;
    size_t in_flight = 0;
    bool open = true;  // false: removed, kept only while fills are in flight
  };
  void forget_if_done(std::map<uint64_t, StreamState>::iterator it);

  size_t max_in_flight_;
  size_t in_flight_ = 0;
  uint64_t last_started_ = 0;
  std::map<uint64_t, StreamState> streams_;
  std::set<uint64_t> deferred_;
};

}  // namespace textfeed::transport
