// The `textfeed` subcommands. Each registers itself (options, --help text, callback) on the app;
// a callback that fails prints its error and throws CLI::RuntimeError with the exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace textfeed::tools {

void add_synth_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_cache_command(CLI::App& app);

// Prints "textfeed <command>: <message>" to stderr and throws CLI::RuntimeError(exit_code).
[[noreturn]] void fail(const std::string& command, const std::string& message, int exit_code = 1);

}  // namespace textfeed::tools
