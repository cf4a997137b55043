// SessionTable: what the daemon knows about its clients. Peers by ZeroMQ routing id (a name, a
// session, when each was last heard from and last sent to), the open streams, the graveyard of
// ended streams whose fills have not stopped yet, and the Hellos that wait for such fills. No
// sockets: the Server translates messages into calls on it, and sends what they return.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "loader/pipeline/pipeline.h"

namespace textfeed::transport {

namespace internal {
class ServerStream;
}  // namespace internal

// One client connection.
struct Peer {
  Clock::TimePoint last_seen{}, last_sent{};
  std::string name;  // Hello.clientName
  uint64_t session = 0;
  bool hello = false;  // said Hello to this daemon (a client of a daemon that restarted has not)
};

// A stream that ended: no more fills start for it; it is destroyed (the client's memory unmapped,
// its frame buffers freed) once the running ones end.
struct Grave {
  std::unique_ptr<internal::ServerStream> stream;
  bool send_closed = false;  // the client asked (Close): answer Closed once its fills end
  uint64_t session = 0;      // of the peer whose stream it was
};

// A stream destroyed by bury(): whether and what to answer its client.
struct Buried {
  std::string peer;
  uint64_t stream_id = 0, batches_delivered = 0;
  bool send_closed = false;
};

// Not thread-safe: the Server's socket thread calls everything. Streams are owned here; pointers
// returned stay valid until the stream ends (end_stream, forget_peer) or is buried.
class SessionTable {
 public:
  using StreamMap = std::map<uint64_t, std::unique_ptr<internal::ServerStream>>;

  SessionTable();
  ~SessionTable();  // destroys the streams first: each waits for its fills
  SessionTable(const SessionTable&) = delete;
  SessionTable& operator=(const SessionTable&) = delete;
  // Destroys every stream, open or ended, waiting for their fills.
  void clear();

  // Peers.
  Peer* find_peer(const std::string& peer);
  const Peer* find_peer(const std::string& peer) const;
  // The peer, known from now on, heard from at `now`.
  Peer& touch(const std::string& peer, Clock::TimePoint now);
  void sent_to(const std::string& peer, Clock::TimePoint now);
  size_t clients() const { return peers_.size(); }
  // "'name'" for log lines and errors, or "a client" before it said its name.
  std::string describe(const std::string& peer) const;
  // Peers heard from longer than `timeout` before `now`.
  std::vector<std::string> silent_peers(Clock::TimePoint now,
                                        std::chrono::milliseconds timeout) const;
  // Peers sent nothing for `interval` (or longer) before `now`: a heartbeat is due.
  std::vector<std::string> heartbeats_due(Clock::TimePoint now,
                                          std::chrono::milliseconds interval) const;
  // Other connections of `session` (a client that reconnected): not `peer` itself.
  std::vector<std::string> other_connections(const std::string& peer, uint64_t session) const;
  // Ends the peer's open streams and forgets it; returns the ids of the streams it ended.
  std::vector<uint64_t> forget_peer(const std::string& peer, Clock::TimePoint now);

  // Streams.
  void add_stream(std::unique_ptr<internal::ServerStream> stream);
  // The open stream `id` if it belongs to `peer`, else nullptr.
  internal::ServerStream* find_stream(const std::string& peer, uint64_t id);
  const StreamMap& streams() const { return streams_; }
  std::vector<uint64_t> streams_of(const std::string& peer) const;
  // Moves open stream `id` to the graveyard; false if there is no such open stream.
  bool end_stream(uint64_t id, bool send_closed, Clock::TimePoint now);
  // The ended stream `id` of `peer`, while its fills run.
  Grave* find_grave(const std::string& peer, uint64_t id);
  const std::vector<Grave>& graves() const { return graveyard_; }
  // Drops the finished, unsent batches of ended streams, calling `finished(id)` for each.
  void reap(const std::function<void(uint64_t)>& finished);
  // Drops finished batches as reap() does, and destroys the ended streams with no fill running;
  // returns them.
  std::vector<Buried> bury(const std::function<void(uint64_t)>& finished);

  // Sessions: a Hello answered only once the fills of the session's earlier streams have stopped.
  // Whether an ended stream of `session` still has fills running.
  bool session_has_running_fills(uint64_t session) const;
  void hold_hello(const std::string& peer, uint64_t session) {
    pending_hellos_.push_back({peer, session});
  }
  // The held Hellos that may be answered now (no ended stream of their session is left); they are
  // no longer held.
  std::vector<std::string> release_hellos();

  // Totals.
  size_t running() const;        // fills running, ended streams' included
  size_t memory_in_use() const;  // daemon-side bytes of every stream, ended ones' included
  // What ended streams delivered, for Stats.
  const loader::StageTimes& ended_stages() const { return ended_stages_; }
  uint64_t ended_samples() const { return ended_samples_; }
  uint64_t ended_skipped() const { return ended_skipped_; }

 private:
  struct PendingHello {
    std::string peer;
    uint64_t session = 0;
  };

  std::map<std::string, Peer> peers_;
  StreamMap streams_;
  std::vector<Grave> graveyard_;
  std::vector<PendingHello> pending_hellos_;
  loader::StageTimes ended_stages_;
  uint64_t ended_samples_ = 0, ended_skipped_ = 0;
};

}  // namespace textfeed::transport
