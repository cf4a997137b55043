// Shared daemon-client flags.
#include "tools/client_options.h"

#include "tools/commands.h"

namespace textfeed::tools {

void add_curve_flags(CLI::App* cmd, CurveFlags& flags) {
  cmd->add_option("--server-key", flags.server_key,
                  "the daemon's public key file (NAME.pub from `textfeed keygen`); tcp daemons "
                  "with CURVE need it");
  cmd->add_option(
      "--client-key", flags.client_key,
      "this client's key file (NAME.key from `textfeed keygen`), whose .pub the daemon allows");
}

transport::CurveClientOptions curve_client_options(const std::string& command,
                                                   const CurveFlags& flags) {
  auto keys = transport::load_curve_client_keys(flags.server_key, flags.client_key, "--server-key",
                                                "--client-key");
  if (!keys.has_value()) fail(command, keys.error().to_string(), 2);
  return *keys;
}

}  // namespace textfeed::tools
