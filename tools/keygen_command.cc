// textfeed keygen: a CurveZMQ key pair for the daemon or a client (tcp with encryption and an
// allow list of client keys).
#include <cstdio>
#include <memory>
#include <string>

#include "tools/commands.h"
#include "transport/curve.h"

namespace textfeed::tools {
namespace {

struct KeygenArgs {
  std::string out;
  bool force = false;
};

void run(const KeygenArgs& a) {
  auto keys = transport::generate_curve_keypair();
  if (!keys.has_value()) fail("keygen", keys.error().to_string());
  if (Status s = transport::write_curve_key_files(a.out, *keys, a.force); !s.ok()) fail("keygen", s.to_string(), 2);
  std::printf("wrote %s.key (secret, mode 0600) and %s.pub\npublic key: %s\n", a.out.c_str(), a.out.c_str(),
              keys->public_key.c_str());
}

}  // namespace

void add_keygen_command(CLI::App& app) {
  auto a = std::make_shared<KeygenArgs>();
  CLI::App* cmd = app.add_subcommand(
      "keygen",
      "Make a CurveZMQ key pair: NAME.key (secret; give it to the process it belongs to) and NAME.pub.\n"
      "The daemon: textfeed serve --bind tcp://0.0.0.0:5555 --curve-key daemon.key --allow rank0.pub ...\n"
      "A client: --server-key daemon.pub --client-key rank0.key (Python: curve_server_key=, curve_client_key=).");
  cmd->add_option("--out", a->out, "path and base name of the two files, e.g. keys/daemon")->required();
  cmd->add_flag("--force", a->force, "replace existing files");
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
