// FencedSlots: the fences are taken out of the queue to be asked, so that add() never waits for a
// fence (a CUDA event's query may need the GIL that the thread calling add() holds).
#include "client/fence.h"

#include <exception>

#include "base/log.h"

namespace textfeed::client {
namespace {

// A fence that fails to answer counts as done: its slot goes back to the ring (a slot kept for
// ever would leave the ring one short, and a full ring waiting on it would wait for ever).
bool done_or_failed(Fence& fence) {
  try {
    return fence.done();
  } catch (const std::exception& e) {
    TF_LOG(Warning) << "a slot's fence failed (" << e.what() << "); the slot is given back";
  } catch (...) {
    TF_LOG(Warning) << "a slot's fence failed; the slot is given back";
  }
  return true;
}

void wait_or_fail(Fence& fence) {
  try {
    fence.wait();
  } catch (const std::exception& e) {
    TF_LOG(Warning) << "waiting on a slot's fence failed (" << e.what()
                    << "); the slot is given back";
  } catch (...) {
    TF_LOG(Warning) << "waiting on a slot's fence failed; the slot is given back";
  }
}

}  // namespace

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
    if (done_or_failed(*entry.second))
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
  wait_or_fail(*oldest.second);
  return oldest.first;
}

size_t FencedSlots::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fences_.size();
}

}  // namespace textfeed::client
