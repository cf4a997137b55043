// Command-line options shared by the commands that talk to a daemon (pull, stats, bench
// --endpoint): CURVE keys. (The spec's flags, --set among them, are tools/spec_flags.h.)
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "transport/curve.h"
#include "transport/wire.h"

namespace textfeed::tools {

struct CurveFlags {
  std::string server_key;  // the daemon's .pub
  std::string client_key;  // this client's .key
};

// Adds --server-key and --client-key to `cmd`.
void add_curve_flags(CLI::App* cmd, CurveFlags& flags);
// The CURVE options the flags name (disabled when neither is given). Fails the command on bad keys.
transport::CurveClientOptions curve_client_options(const std::string& command,
                                                   const CurveFlags& flags);

}  // namespace textfeed::tools
