// A feed of one daemon (`textfeed serve`): a MultiFeed whose one producer is that daemon, what a
// program that links only textfeed::client_remote opens. The session's rules (silence, back-off,
// give-up) are client/detail/daemon_session.h's, its timings RemoteOptions::client.
#pragma once

#include <memory>
#include <string>

#include "client/client_options.h"
#include "client/multi_feed.h"
#include "loader/spec/spec.h"
#include "transport/curve.h"
#include "transport/wire.h"

namespace textfeed::client {

struct RemoteOptions {
  std::string endpoint;           // ipc:///path or tcp://host:port
  std::string client_name;        // shown in the daemon's logs and stats
  loader::PipelineSpec spec;      // spec.sources[0].path: the daemon's dataset name
  uint64_t epoch = 0, batch = 0;  // where to start
  transport::Transport transport = transport::Transport::kAuto;
  uint32_t prefetch = 4;    // batches the daemon may have in flight for this feed, at most
  uint32_t held_slots = 0;  // slots beyond `prefetch` in the ring (for batches the caller holds)
  transport::CurveClientOptions curve;  // required by a tcp daemon with CURVE keys
  ClientOptions client;                 // every timing: Hello, silence, back-off, give-up
};

// The MultiFeed options of that feed.
MultiOptions multi_options(const RemoteOptions& options);

// Connects, opens the stream and allocates the ring. Errors: MultiFeed::open_daemons's (the
// daemon's: kNotFound for an unknown dataset, kInvalidArgument; kUnavailable when it does not
// answer).
Result<std::unique_ptr<MultiFeed>> open_remote_feed(const RemoteOptions& options);

}  // namespace textfeed::client
