// textfeed show: not built yet in this revision.
#include "tools/commands.h"

namespace textfeed::tools {

void add_show_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("show", "(not available in this build)");
  cmd->callback([] { fail("show", "not available in this build"); });
}

}  // namespace textfeed::tools
