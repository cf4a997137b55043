// textfeed keygen: a CurveZMQ key pair for the daemon or a client (tcp with encryption and an
// allow list of client keys).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "base/file.h"
#include "base/printable.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "transport/curve.h"

namespace textfeed::tools {
namespace {

struct KeygenArgs {
  std::string out;
  bool force = false;
};

void run(const KeygenArgs& a) {
  // A base name to add .key and .pub to: not empty, not a folder (which would give hidden files)
  // nor a device or other file that is not a regular one (/dev/null would give /dev/null.key).
  const std::filesystem::path base(a.out);
  std::error_code ec;
  const auto type = std::filesystem::symlink_status(base, ec).type();
  if (a.out.empty() || !base.has_filename() ||
      (type != std::filesystem::file_type::not_found &&
       type != std::filesystem::file_type::regular))
    fail("keygen",
         "--out '" + a.out +
             "' must be a path and a base name, e.g. keys/daemon (giving keys/daemon.key "
             "and keys/daemon.pub)",
         2);
  const std::string key = a.out + ".key", pub = a.out + ".pub";
  // Both names are checked before anything is written: only a regular file is ever replaced
  // (with --force), never a symlink's target or a device.
  for (const std::string& name : {key, pub})
    if (Status s = check_replaceable(name, a.force); !s.ok()) fail("keygen", s.to_string(), 2);
  auto keys = transport::generate_curve_keypair();
  if (!keys.has_value()) fail("keygen", keys.error().to_string());
  // The pair is written into a fresh private folder beside the output (mode 0700: nothing can be
  // planted in it; the secret is 0600 from its creation), then each file is renamed into place.
  const std::string parent = std::filesystem::path(a.out).parent_path().string();
  auto staging = ScratchFolder::create(parent.empty() ? "." : parent, ".textfeed-keygen-");
  if (!staging.has_value()) fail("keygen", staging.error().to_string(), 2);
  const std::string staged = staging->path() + "/key";
  if (Status s = transport::write_curve_key_files(staged, *keys, false); !s.ok())
    fail("keygen", s.to_string());
  for (const auto& [from, to] : {std::pair{staged + ".key", key}, std::pair{staged + ".pub", pub}})
    if (Status s = rename_into_place(from, to, a.force); !s.ok()) fail("keygen", s.to_string(), 2);
  std::printf("wrote %s (secret, mode 0600) and %s\npublic key: %s\n", printable(key).c_str(),
              printable(pub).c_str(), keys->public_key.c_str());
}

}  // namespace

void add_keygen_command(CLI::App& app) {
  auto a = std::make_shared<KeygenArgs>();
  CLI::App* cmd = app.add_subcommand("keygen",
                                     "Make a CurveZMQ key pair: NAME.key (secret; give it to the "
                                     "process it belongs to) and NAME.pub.\n"
                                     "The daemon: textfeed serve --bind tcp://0.0.0.0:5555 "
                                     "--curve-key daemon.key --allow rank0.pub ...\n"
                                     "A client: --server-key daemon.pub --client-key rank0.key "
                                     "(Python: curve_server_key=, curve_client_key=).");
  cmd->add_option("--out", a->out, "path and base name of the two files, e.g. keys/daemon")
      ->required();
  cmd->add_flag("--force", a->force,
                "replace existing files (regular files only: never a symlink or device)");
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
