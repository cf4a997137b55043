// Fence and FencedSlots: a slot given back while something may still read it (a CUDA copy queued
// from its tensors) returns to its ring only once that is done. A Fence says whether it is; the
// Feed keeps the slots given back with one (Feed::release_after) in a FencedSlots until it is.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace textfeed::client {

// Whether the readers of a slot are done with it. Its methods are called from any thread, one
// at a time, and never with a FencedSlots lock held (an implementation may take its own locks,
// e.g. Python's GIL). The Python binding's fence is a CUDA event recorded on the stream that
// copies from the slot.
class Fence {
 public:
  virtual ~Fence() = default;
  // True once the readers are done (and from then on); does not block.
  virtual bool done() = 0;
  // Blocks until done() would be true.
  virtual void wait() = 0;
  // A fence whose done() or wait() throws counts as done (FencedSlots logs it and gives the slot
  // back): the ring never loses a slot to a failing fence.
};

// Slots waiting for their fences, oldest first. Thread-safe: add() from any thread; the other
// methods ask the fences outside the lock that add() takes, one caller at a time.
class FencedSlots {
 public:
  void add(uint32_t slot, std::unique_ptr<Fence> fence);
  // Removes and returns the slots whose fence is done, oldest first. With `if_free`, returns
  // nothing at once when another call is asking the fences (a release() from a thread that may
  // hold what a fence needs must not wait for that call).
  std::vector<uint32_t> take_done(bool if_free = false);
  // Waits for the oldest fence and returns its slot (removed); nullopt when there is none.
  std::optional<uint32_t> wait_oldest();
  size_t size() const;

 private:
  mutable std::mutex mu_;  // guards fences_ only: held for no call of a fence
  std::mutex asking_;      // held while fences are asked: one asker at a time
  std::deque<std::pair<uint32_t, std::unique_ptr<Fence>>> fences_;
};

}  // namespace textfeed::client
