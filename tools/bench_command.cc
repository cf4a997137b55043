// textfeed bench: not built yet in this revision.
#include "tools/commands.h"

namespace textfeed::tools {

void add_bench_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("bench", "(not available in this build)");
  cmd->callback([] { fail("bench", "not available in this build"); });
}

}  // namespace textfeed::tools
