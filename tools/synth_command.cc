// textfeed synth: not built yet in this revision.
#include "tools/commands.h"

namespace textfeed::tools {

void add_synth_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("synth", "(not available in this build)");
  cmd->callback([] { fail("synth", "not available in this build"); });
}

}  // namespace textfeed::tools
