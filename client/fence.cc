// FencedSlots: the fences are taken out of the queue to be asked, so that add() never waits for a
// fence (a CUDA event's query may need the GIL that the thread calling add() holds).
#include "client/fence.h"

namespace textfeed::client {

void FencedSlots::add(uint32_t slot, std::unique_ptr<Fence> fence) {
  std::lock_guard<std::mutex> lock(mu_);
  fences_.emplace_back(slot, std::move(fence));
}

std::vector<uint32_t> FencedSlots::take_done(bool if_free) {
  std::unique_lock<std::mutex> asking(asking_, std::defer_lock);
  if (if_free) {
    if (!asking.try_lock()) return {};
  } else {
    asking.lock();
  }
  std::deque<std::pair<uint32_t, std::unique_ptr<Fence>>> mine;
  {
    std::lock_guard<std::mutex> lock(mu_);
    mine.swap(fences_);
  }
  std::vector<uint32_t> done;
  std::deque<std::pair<uint32_t, std::unique_ptr<Fence>>> waiting;
  for (auto& entry : mine) {
    if (entry.second->done())
      done.push_back(entry.first);
    else
      waiting.push_back(std::move(entry));
  }
  std::lock_guard<std::mutex> lock(mu_);
  // What add() queued meanwhile is younger than what was taken out.
  for (auto& entry : fences_) waiting.push_back(std::move(entry));
  fences_.swap(waiting);
  return done;
}

std::optional<uint32_t> FencedSlots::wait_oldest() {
  std::lock_guard<std::mutex> asking(asking_);
  std::pair<uint32_t, std::unique_ptr<Fence>> oldest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (fences_.empty()) return std::nullopt;
    oldest = std::move(fences_.front());
    fences_.pop_front();
  }
  oldest.second->wait();
  return oldest.first;
}

size_t FencedSlots::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fences_.size();
}

}  // namespace textfeed::client
