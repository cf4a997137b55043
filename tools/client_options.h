// Command-line options shared by the commands that talk to a daemon (pull, stats, bench
// --endpoint): CURVE keys and augmentation overrides.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

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
transport::CurveClientOptions curve_client_options(const std::string& command, const CurveFlags& flags);
// Parses repeated "--set NAME=VALUE" augmentation overrides. Fails the command on a bad one.
std::vector<std::pair<std::string, std::string>> parse_overrides(const std::string& command,
                                                                 const std::vector<std::string>& sets);

}  // namespace textfeed::tools
