// textfeed: the command-line entry point. Subcommands live one per file (tools/*_command.cc).
#include <malloc.h>

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "base/printable.h"
#include "tools/commands.h"

namespace textfeed::tools {

void keep_large_allocations_in_heap() {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

void fail(const std::string& command, const std::string& message, int exit_code) {
  // Messages carry paths, gt text and names from files: escaped, they cannot drive the terminal.
  std::fprintf(stderr, "textfeed %s: %s\n", command.c_str(), printable(message).c_str());
  throw CLI::RuntimeError(exit_code);
}

}  // namespace textfeed::tools

int main(int argc, char** argv) {
  CLI::App app{
      "textfeed: decode, augment and build EAST training targets in C++, and feed them to "
      "PyTorch training processes.\n"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "textfeed 0.1.0");
  textfeed::tools::add_synth_command(app);
  textfeed::tools::add_inspect_command(app);
  textfeed::tools::add_bench_command(app);
  textfeed::tools::add_show_command(app);
  textfeed::tools::add_cache_command(app);
  textfeed::tools::add_serve_command(app);
  textfeed::tools::add_pull_command(app);
  textfeed::tools::add_stats_command(app);
  textfeed::tools::add_keygen_command(app);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
