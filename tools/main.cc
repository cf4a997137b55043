// textfeed: the command-line entry point. Subcommands live one per file (tools/*_command.cc).
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "base/printable.h"
#include "base/version.h"
#include "loader/pipeline/worker_pool.h"
#include "tools/commands.h"

namespace textfeed::tools {
namespace {

// A bound as a user would write it: 0.2, 3600, 1e+06.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The least level of the lines on stderr, for every command: --quiet, or --log-level NAME. The
// subcommands fall through to the command for the flags they lack, so either may come before or
// after the subcommand (textfeed serve ... --quiet). Call before adding the subcommands.
void add_log_flags(CLI::App& app) {
  app.fallthrough();
  CLI::Option* quiet = app.add_flag_callback(
      "--quiet,-q", [] { set_log_level(LogLevel::kWarning); },
      "Only warnings and errors on stderr (as --log-level warning)");
  app.add_option_function<std::string>(
         "--log-level",
         [](const std::string& name) {
           set_log_level(name == "error"     ? LogLevel::kError
                         : name == "warning" ? LogLevel::kWarning
                         : name == "debug"   ? LogLevel::kDebug
                                             : LogLevel::kInfo);
         },
         "The least level of the lines on stderr: error, warning, info (the default) or debug")
      ->check(CLI::IsMember({"error", "warning", "info", "debug"}))
      ->excludes(quiet);
}

// How many edits make `a` into `b`: inserting, deleting or replacing a character, or swapping two
// neighbours (--quite for --quiet is one typo, not two).
size_t edit_distance(std::string_view a, std::string_view b) {
  const size_t w = b.size() + 1;
  std::vector<size_t> d((a.size() + 1) * w);  // d[i * w + j]: a's first i characters to b's first j
  for (size_t i = 0; i <= a.size(); ++i) d[i * w] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t& e = d[i * w + j];
      e = std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1,
                    d[(i - 1) * w + j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        e = std::min(e, d[(i - 2) * w + j - 2] + 1);
    }
  return d.back();
}

// The long flag of `command` or of the commands above it nearest to `typed`, a flag it does not
// have (--thread, --thread=2, -thread); "" when none is near enough to be what was meant: a third
// of the name's letters edited at most, and never all of them.
std::string nearest_flag(const CLI::App& command, std::string_view typed) {
  const size_t dashes = typed.find_first_not_of('-');
  if (dashes == 0 || dashes == std::string_view::npos) return "";  // a value, or dashes alone
  const std::string_view name = typed.substr(dashes, typed.find('=') - dashes);
  std::string best;
  size_t best_distance = std::max<size_t>(1, name.size() / 3) + 1;
  for (const CLI::App* c = &command; c != nullptr; c = c->get_parent())
    for (const CLI::Option* option : c->get_options())
      for (const std::string& flag : option->get_lnames())
        if (const size_t d = edit_distance(name, flag); d < best_distance && d < name.size()) {
          best = "--" + flag;
          best_distance = d;
        }
  return best;
}

// Follows CLI11's error ("The following argument was not expected: --thread", or another that came
// first, "--dataset is required") with a line per flag the command did not know that is near one
// it has: "textfeed bench: --thread: did you mean --threads?".
void suggest_flags(const CLI::App& app) {
  const CLI::App* command = &app;
  while (!command->get_subcommands().empty()) command = command->get_subcommands().back();
  std::string who;  // "textfeed cache build"
  for (const CLI::App* c = command; c->get_parent() != nullptr; c = c->get_parent())
    who = " " + c->get_name() + who;
  who = "textfeed" + who;
  for (const std::string& typed : app.remaining(true))
    if (const std::string flag = nearest_flag(*command, typed); !flag.empty())
      std::fprintf(stderr, "%s: %s: did you mean %s?\n", who.c_str(), printable(typed).c_str(),
                   flag.c_str());
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
        if (v < lo || v > hi)
          return "'" + printable(text) + "' is not in " + number(lo) + ".." + number(hi);
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
          return "expected an integer in 0.." + std::to_string(UINT64_MAX) + ", got '" +
                 printable(text) + "'";
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
  textfeed::tools::add_log_flags(app);
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
    if (e.get_exit_code() == 0 || dynamic_cast<const CLI::RuntimeError*>(&e) != nullptr)
      return app.exit(e);
    std::ostringstream err;
    app.exit(e, std::cout, err);
    std::istringstream lines(err.str());
    for (std::string line; std::getline(lines, line);)
      std::fprintf(stderr, "%s\n", textfeed::printable(line).c_str());
    textfeed::tools::suggest_flags(app);  // unknown flags, also when another error came first
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(
        stderr,
        "textfeed: out of memory: a batch, its slots or an image did not fit (lower --batch-size, "
        "--prefetch or crop_size)\n");
    return 2;
  }
  // Output that could not be written (a full disk, a closed pipe) is a failure, not a success.
  errno = 0;
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
    std::fprintf(stderr, "textfeed: writing the output failed: %s\n",
                 std::strerror(errno != 0 ? errno : EIO));
    return 1;
  }
  return 0;
}
