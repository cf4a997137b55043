// The endpoints textfeed speaks on: ipc://PATH (this host) and tcp://HOST:PORT. Every other
// ZeroMQ transport is refused by name before a socket sees it: ws:// and the rest would listen on
// the network outside the rule that tcp needs CURVE keys, and inproc:// is reachable by nobody
// outside the daemon's own process.
#pragma once

#include <string_view>

#include "base/status.h"

namespace textfeed::transport {

enum class EndpointUse { kBind, kConnect };

// Checks `endpoint` for `use`. ipc: a non-empty path that fits a Unix socket address (at most
// 107 bytes), no NUL. tcp: a non-empty host and a port of decimal digits, 1..65535 (0 or `*`,
// any free port, for kBind), with nothing after it. Errors: kInvalidArgument naming the
// endpoint and what is wrong with it.
Status check_endpoint(std::string_view endpoint, EndpointUse use);

}  // namespace textfeed::transport
