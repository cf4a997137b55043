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

// Flag checks CLI11 lacks. finite_in: a finite number in [lo, hi] (CLI::Range lets NaN through,
// since every comparison with it is false). unsigned_64: decimal digits that fit 64 bits (CLI11
// wraps "-1" and saturates what overflows, so two seeds a user typed apart would be the same).
CLI::Validator finite_in(double lo, double hi);
CLI::Validator unsigned_64();

// Prints "textfeed <command>: <message>" to stderr, the message escaped by printable(), and
// throws CLI::RuntimeError(exit_code).
[[noreturn]] void fail(const std::string& command, const std::string& message, int exit_code = 1);

}  // namespace textfeed::tools
