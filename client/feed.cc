// Feed: the slots' way back to the ring, fenced or not; the names of the stats' enums.
#include "client/feed.h"

namespace textfeed::client {

Result<std::optional<FeedBatch>> Feed::next(std::chrono::milliseconds timeout) {
  release_done(/*if_free=*/false);
  Result<std::optional<FeedBatch>> r = take_batch(timeout);
  // A full ring whose held slots wait for fences: the oldest fence is the soonest done.
  while (!r.has_value() && r.error().code() == Code::kOverloaded) {
    const std::optional<uint32_t> slot = fenced_.wait_oldest();
    if (!slot) break;  // the caller holds every slot itself: kOverloaded is the answer
    release_slot(*slot);
    release_done(/*if_free=*/false);
    r = take_batch(timeout);
  }
  return r;
}

void Feed::release(uint32_t slot) {
  release_slot(slot);
  release_done(/*if_free=*/true);
}

void Feed::release_after(uint32_t slot, std::unique_ptr<Fence> fence) {
  fenced_.add(slot, std::move(fence));
  release_done(/*if_free=*/true);
}

void Feed::release_done(bool if_free) {
  for (uint32_t slot : fenced_.take_done(if_free)) release_slot(slot);
}

std::string_view producer_state_name(ProducerState state) {
  switch (state) {
    case ProducerState::kUp:
      return "up";
    case ProducerState::kLost:
      return "lost";
    case ProducerState::kOut:
      return "out";
  }
  return "?";
}

std::string_view feed_transport_name(FeedTransport transport) {
  switch (transport) {
    case FeedTransport::kEmbedded:
      return "embedded";
    case FeedTransport::kSharedMemory:
      return "shm";
    case FeedTransport::kFrames:
      return "frames";
    case FeedTransport::kCompactFrames:
      return "frames, compact";
    case FeedTransport::kMulti:
      return "multi";
  }
  return "?";
}

}  // namespace textfeed::client
