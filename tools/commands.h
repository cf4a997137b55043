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
void add_serve_command(CLI::App& app);
void add_pull_command(CLI::App& app);
void add_stats_command(CLI::App& app);
void add_keygen_command(CLI::App& app);

// Keeps large blocks (batch payloads) in the reused heap instead of fresh mmap'd pages, which
// cost a page fault per 4 KiB on every batch (docs/design.md "Memory is allocated once"). Called by
// the commands that move batches: serve, pull.
void keep_large_allocations_in_heap();

// Prints "textfeed <command>: <message>" to stderr, the message escaped by printable(), and
// throws CLI::RuntimeError(exit_code).
[[noreturn]] void fail(const std::string& command, const std::string& message, int exit_code = 1);

}  // namespace textfeed::tools
