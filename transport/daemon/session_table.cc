// SessionTable: peers, open and ended streams, held Hellos.
#include "transport/daemon/session_table.h"

#include <algorithm>

#include "transport/daemon/detail/server_stream.h"

namespace textfeed::transport {

SessionTable::SessionTable() = default;

SessionTable::~SessionTable() { clear(); }

void SessionTable::clear() {
  streams_.clear();
  graveyard_.clear();
}

Peer* SessionTable::find_peer(const std::string& peer) {
  auto it = peers_.find(peer);
  return it == peers_.end() ? nullptr : &it->second;
}

const Peer* SessionTable::find_peer(const std::string& peer) const {
  auto it = peers_.find(peer);
  return it == peers_.end() ? nullptr : &it->second;
}

Peer& SessionTable::touch(const std::string& peer, Clock::TimePoint now) {
  Peer& p = peers_[peer];
  p.last_seen = now;
  return p;
}

void SessionTable::sent_to(const std::string& peer, Clock::TimePoint now) {
  if (Peer* p = find_peer(peer)) p->last_sent = now;
}

std::string SessionTable::describe(const std::string& peer) const {
  const Peer* p = find_peer(peer);
  return p && !p->name.empty() ? "'" + p->name + "'" : "a client";
}

std::vector<std::string> SessionTable::silent_peers(Clock::TimePoint now,
                                                    std::chrono::milliseconds timeout) const {
  std::vector<std::string> out;
  for (const auto& [peer, p] : peers_)
    if (now - p.last_seen > timeout) out.push_back(peer);
  return out;
}

std::vector<std::string> SessionTable::heartbeats_due(Clock::TimePoint now,
                                                      std::chrono::milliseconds interval) const {
  std::vector<std::string> out;
  for (const auto& [peer, p] : peers_)
    if (now - p.last_sent >= interval) out.push_back(peer);
  return out;
}

std::vector<std::string> SessionTable::other_connections(const std::string& peer,
                                                         uint64_t session) const {
  std::vector<std::string> out;
  for (const auto& [other, p] : peers_)
    if (other != peer && p.session == session) out.push_back(other);
  return out;
}

std::vector<uint64_t> SessionTable::forget_peer(const std::string& peer, Clock::TimePoint now) {
  std::vector<uint64_t> ids = streams_of(peer);
  for (uint64_t id : ids) end_stream(id, false, now);
  peers_.erase(peer);
  return ids;
}

void SessionTable::add_stream(std::unique_ptr<internal::ServerStream> stream) {
  const uint64_t id = stream->id();
  streams_.emplace(id, std::move(stream));
}

internal::ServerStream* SessionTable::find_stream(const std::string& peer, uint64_t id) {
  auto it = streams_.find(id);
  return it != streams_.end() && it->second->peer() == peer ? it->second.get() : nullptr;
}

std::vector<uint64_t> SessionTable::streams_of(const std::string& peer) const {
  std::vector<uint64_t> ids;
  for (const auto& [id, s] : streams_)
    if (s->peer() == peer) ids.push_back(id);
  return ids;
}

bool SessionTable::end_stream(uint64_t id, bool send_closed, Clock::TimePoint now) {
  auto it = streams_.find(id);
  if (it == streams_.end()) return false;
  std::unique_ptr<internal::ServerStream> s = std::move(it->second);
  streams_.erase(it);
  const Peer* peer = find_peer(s->peer());
  const uint64_t session = peer ? peer->session : 0;
  ended_stages_.add(s->counters().stages);
  const StreamStats st = s->stats(now);
  ended_samples_ += st.samples;
  ended_skipped_ += st.skipped_samples;
  graveyard_.push_back({std::move(s), send_closed, session});
  return true;
}

Grave* SessionTable::find_grave(const std::string& peer, uint64_t id) {
  for (Grave& g : graveyard_)
    if (g.stream->id() == id && g.stream->peer() == peer) return &g;
  return nullptr;
}

namespace {

void drop_finished(const Grave& g, const std::function<void(uint64_t)>& finished) {
  for (size_t n = g.stream->discard_finished(); n > 0; --n) finished(g.stream->id());
}

}  // namespace

void SessionTable::reap(const std::function<void(uint64_t)>& finished) {
  for (const Grave& g : graveyard_) drop_finished(g, finished);
}

std::vector<Buried> SessionTable::bury(const std::function<void(uint64_t)>& finished) {
  std::vector<Buried> out;
  for (size_t i = 0; i < graveyard_.size();) {
    Grave& g = graveyard_[i];
    drop_finished(g, finished);
    if (g.stream->running() > 0) {
      ++i;
      continue;
    }
    drop_finished(g, finished);  // a fill that finished since the first look
    out.push_back({g.stream->peer(), g.stream->id(), g.stream->batches_sent(), g.send_closed});
    graveyard_.erase(graveyard_.begin() + static_cast<ptrdiff_t>(i));
  }
  return out;
}

bool SessionTable::session_has_running_fills(uint64_t session) const {
  return std::any_of(graveyard_.begin(), graveyard_.end(), [&](const Grave& g) {
    return g.session == session && g.stream->running() > 0;
  });
}

std::vector<std::string> SessionTable::release_hellos() {
  std::vector<std::string> out;
  for (size_t i = 0; i < pending_hellos_.size();) {
    const uint64_t session = pending_hellos_[i].session;
    if (std::any_of(graveyard_.begin(), graveyard_.end(),
                    [&](const Grave& g) { return g.session == session; })) {
      ++i;
      continue;
    }
    out.push_back(std::move(pending_hellos_[i].peer));
    pending_hellos_.erase(pending_hellos_.begin() + static_cast<ptrdiff_t>(i));
  }
  return out;
}

size_t SessionTable::running() const {
  size_t n = 0;
  for (const auto& [id, s] : streams_) n += s->running();
  for (const Grave& g : graveyard_) n += g.stream->running();
  return n;
}

size_t SessionTable::memory_in_use() const {
  size_t bytes = 0;
  for (const auto& [id, s] : streams_) bytes += s->memory_bytes();
  for (const Grave& g : graveyard_) bytes += g.stream->memory_bytes();
  return bytes;
}

}  // namespace textfeed::transport
