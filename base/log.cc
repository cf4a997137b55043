// The process-wide log sink and check failures.
#include "base/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "base/printable.h"

namespace textfeed {
namespace {

struct SinkState {
  std::mutex mu;
  LogSink sink;  // guarded by mu; empty = stderr
};

SinkState& sink_state() {
  static SinkState state;  // process-wide by nature: there is one stderr
  return state;
}

std::atomic<LogLevel> g_level{LogLevel::kInfo};

const char* level_tag(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "?";
}

}  // namespace

void set_log_sink(LogSink sink) {
  SinkState& s = sink_state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.sink = std::move(sink);
}

void set_log_level(LogLevel level) { g_level.store(level, std::memory_order_relaxed); }
LogLevel log_level() { return g_level.load(std::memory_order_relaxed); }

void log_message(LogLevel level, std::string_view message) {
  if (level < log_level()) return;
  // Messages quote names from outside (client names, file names, gt text): escaped here, once, so
  // that no input can forge a log line or drive the terminal.
  const std::string safe = printable(message);
  SinkState& s = sink_state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.sink) {
    s.sink(level, safe);
    return;
  }
  std::string line = "textfeed ";
  line += level_tag(level);
  line += ": ";
  line += safe;
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

namespace internal {

CheckFailure::CheckFailure(const char* file, int line, const char* condition) {
  stream_ << file << ":" << line << ": check failed: " << condition << " ";
}

CheckFailure::~CheckFailure() {
  std::string m = "textfeed fatal: " + stream_.str() + "\n";
  std::fwrite(m.data(), 1, m.size(), stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace internal
}  // namespace textfeed
