// textfeed: the command-line entry point. Subcommands live one per file (tools/*_command.cc).
#include <malloc.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "base/printable.h"
#include "base/version.h"
#include "loader/worker_pool.h"
#include "tools/commands.h"

namespace textfeed::tools {
namespace {

// A bound as a user would write it: 0.2, 3600, 1e+06.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

void keep_large_allocations_in_heap() {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

CLI::Validator finite_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double v = 0;
        const char* end = text.data() + text.size();
        const auto [stop, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ec != std::errc() || stop != end || !std::isfinite(v))
          return "expected a finite number, got '" + printable(text) + "'";
        if (v < lo || v > hi) return "'" + printable(text) + "' is not in " + number(lo) + ".." + number(hi);
        return std::string();
      },
      "FLOAT in [" + number(lo) + ", " + number(hi) + "]");
}

CLI::Validator unsigned_64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [stop, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ec != std::errc() || stop != end)
          return "expected an integer in 0.." + std::to_string(UINT64_MAX) + ", got '" + printable(text) + "'";
        return std::string();
      },
      "UINT64");
}

void fail(const std::string& command, const std::string& message, int exit_code) {
  // Messages carry paths, gt text and names from files: escaped, they cannot drive the terminal.
  std::fprintf(stderr, "textfeed %s: %s\n", command.c_str(), printable(message).c_str());
  throw CLI::RuntimeError(exit_code);
}

}  // namespace textfeed::tools

int main(int argc, char** argv) {
  // Process-wide thread settings belong to main(): OpenCV's threads off, oneTBB's worker limit.
  const textfeed::loader::ProcessThreadSettings thread_settings;
  CLI::App app{
      "textfeed: decode, augment and build EAST training targets in C++, and feed them to "
      "PyTorch training processes.\n"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("textfeed ") + textfeed::kVersion);
  textfeed::tools::add_synth_command(app);
  textfeed::tools::add_inspect_command(app);
  textfeed::tools::add_bench_command(app);
  textfeed::tools::add_show_command(app);
  textfeed::tools::add_cache_command(app);
  textfeed::tools::add_serve_command(app);
  textfeed::tools::add_pull_command(app);
  textfeed::tools::add_stats_command(app);
  textfeed::tools::add_keygen_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help, version and the commands' own failures (already printed) go as CLI11 prints them.
    // A flag that does not parse or check is a usage error, status 2 as for every other refusal
    // of what was asked; its message quotes what was typed, so it is escaped line by line.
    if (e.get_exit_code() == 0 || dynamic_cast<const CLI::RuntimeError*>(&e) != nullptr) return app.exit(e);
    std::ostringstream err;
    app.exit(e, std::cout, err);
    std::istringstream lines(err.str());
    for (std::string line; std::getline(lines, line);)
      std::fprintf(stderr, "%s\n", textfeed::printable(line).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "textfeed: out of memory: a batch, its slots or an image did not fit (lower --batch-size, "
                 "--prefetch or crop_size)\n");
    return 2;
  }
  // Output that could not be written (a full disk, a closed pipe) is a failure, not a success.
  errno = 0;
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
    std::fprintf(stderr, "textfeed: writing the output failed: %s\n", std::strerror(errno != 0 ? errno : EIO));
    return 1;
  }
  return 0;
}
