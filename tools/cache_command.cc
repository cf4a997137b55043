// textfeed cache: not built yet in this revision.
#include "tools/commands.h"

namespace textfeed::tools {

void add_cache_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("cache", "(not available in this build)");
  cmd->callback([] { fail("cache", "not available in this build"); });
}

}  // namespace textfeed::tools
