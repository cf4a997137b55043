// Scheduler: per-stream credits and fills in flight, a cursor for round-robin.
#include "transport/daemon/scheduler.h"

#include <algorithm>

#include "base/log.h"

namespace textfeed::transport {

Scheduler::Scheduler(size_t max_in_flight) : max_in_flight_(std::max<size_t>(1, max_in_flight)) {}

void Scheduler::add_stream(uint64_t id) { streams_.try_emplace(id); }

void Scheduler::remove_stream(uint64_t id) {
  auto it = streams_.find(id);
  if (it == streams_.end()) return;
  it->second.open = false;
  it->second.credits = 0;
  deferred_.erase(id);
  forget_if_done(it);
}

void Scheduler::credit(uint64_t id, uint32_t count) {
  auto it = streams_.find(id);
  if (it != streams_.end() && it->second.open) it->second.credits += count;
}

void Scheduler::fill_started(uint64_t id) {
  auto it = streams_.find(id);
  TF_CHECK(it != streams_.end() && it->second.open && it->second.credits > 0)
      << "a fill started for stream " << id << " without credit";
  --it->second.credits;
  ++it->second.in_flight;
  ++in_flight_;
  last_started_ = id;
}

void Scheduler::fill_finished(uint64_t id) {
  auto it = streams_.find(id);
  TF_CHECK(it != streams_.end() && it->second.in_flight > 0)
      << "stream " << id << " finished a fill it never started";
  --it->second.in_flight;
  --in_flight_;
  forget_if_done(it);
}

void Scheduler::defer(uint64_t id) { deferred_.insert(id); }

std::optional<uint64_t> Scheduler::next() const {
  if (in_flight_ >= max_in_flight_ || streams_.empty()) return std::nullopt;
  auto ready = [this](const auto& entry) {
    return entry.second.open && entry.second.credits > 0 && !deferred_.count(entry.first);
  };
  const auto after = streams_.upper_bound(last_started_);
  if (auto it = std::find_if(after, streams_.end(), ready); it != streams_.end()) return it->first;
  if (auto it = std::find_if(streams_.begin(), after, ready); it != after) return it->first;
  return std::nullopt;
}

uint32_t Scheduler::credits(uint64_t id) const {
  auto it = streams_.find(id);
  return it == streams_.end() ? 0 : it->second.credits;
}

size_t Scheduler::in_flight(uint64_t id) const {
  auto it = streams_.find(id);
  return it == streams_.end() ? 0 : it->second.in_flight;
}

void Scheduler::forget_if_done(std::map<uint64_t, StreamState>::iterator it) {
  if (!it->second.open && it->second.in_flight == 0) streams_.erase(it);
}

}  // namespace textfeed::transport
