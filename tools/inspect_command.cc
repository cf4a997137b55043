// textfeed inspect: not built yet in this revision.
#include "tools/commands.h"

namespace textfeed::tools {

void add_inspect_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("inspect", "(not available in this build)");
  cmd->callback([] { fail("inspect", "not available in this build"); });
}

}  // namespace textfeed::tools
