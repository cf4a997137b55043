// Shared daemon-client flags.
#include "tools/client_options.h"

#include "tools/commands.h"

namespace textfeed::tools {

void add_curve_flags(CLI::App* cmd, CurveFlags& flags) {
  cmd->add_option("--server-key", flags.server_key,
                  "the daemon's public key file (NAME.pub from `textfeed keygen`); tcp daemons with CURVE need it");
  cmd->add_option("--client-key", flags.client_key,
                  "this client's key file (NAME.key from `textfeed keygen`), whose .pub the daemon allows");
}

transport::CurveClientOptions curve_client_options(const std::string& command, const CurveFlags& flags) {
  transport::CurveClientOptions o;
  if (flags.server_key.empty() && flags.client_key.empty()) return o;
  if (flags.server_key.empty() || flags.client_key.empty())
    fail(command, "CURVE needs both --server-key and --client-key", 2);
  auto server = transport::read_curve_public_file(flags.server_key);
  if (!server.has_value()) fail(command, server.error().to_string(), 2);
  auto client = transport::read_curve_secret_file(flags.client_key);
  if (!client.has_value()) fail(command, client.error().to_string(), 2);
  o.server_public_key = *server;
  o.client = *client;
  return o;
}

}  // namespace textfeed::tools
