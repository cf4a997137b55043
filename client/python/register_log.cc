// The C++ log lines (base/log.h) of a Python process, for textfeed/_log.py to hand to Python's
// logging (logger "textfeed"), so that a training script's log configuration governs them.
//
// base/log calls its sink under its own lock, on whichever thread logs: a Loader's workers, a
// remote feed's I/O thread, or a Python thread that may hold the GIL. The sink must therefore not
// take the GIL: a thread holding it that logs would wait for base/log's lock while the sink, under
// that lock, waited for the GIL. So the sink only queues (a bounded queue with its own lock, never
// held while Python runs), and Python takes the queued lines where it holds the GIL anyway: at a
// Loader's calls and at exit (textfeed/_log.py).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include "base/log.h"
#include "client/python/register.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

// Lines queued between two takes: a worker that logs in a loop while Python never takes them
// must not grow the process without bound. The newest are dropped past it, and counted.
constexpr size_t kMaxQueuedLines = 10000;

// Python's logging levels (logging.DEBUG ... logging.ERROR).
int python_level(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return 10;
    case LogLevel::kInfo:
      return 20;
    case LogLevel::kWarning:
      return 30;
    case LogLevel::kError:
      return 40;
  }
  return 40;
}

LogLevel log_level_of(int python_level) {
  if (python_level <= 10) return LogLevel::kDebug;
  if (python_level <= 20) return LogLevel::kInfo;
  if (python_level <= 30) return LogLevel::kWarning;
  return LogLevel::kError;
}

class LogQueue {
 public:
  void push(LogLevel level, std::string_view message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (lines_.size() >= kMaxQueuedLines) {
      ++dropped_;
      return;
    }
    lines_.emplace_back(level, std::string(message));
  }
  // The lines queued so far, oldest first, and how many were dropped since the last take.
  std::pair<std::deque<std::pair<LogLevel, std::string>>, uint64_t> take() {
    std::lock_guard<std::mutex> lock(mu_);
    std::pair<std::deque<std::pair<LogLevel, std::string>>, uint64_t> out(std::move(lines_),
                                                                          dropped_);
    lines_.clear();
    dropped_ = 0;
    return out;
  }

 private:
  std::mutex mu_;
  std::deque<std::pair<LogLevel, std::string>> lines_;  // guarded by mu_
  uint64_t dropped_ = 0;                                // guarded by mu_
};

// One per process, as base/log's sink is; never destroyed, since C++ threads may still log while
// the process exits (a feed closed by a finalizer).
LogQueue& log_queue() {
  static LogQueue& queue = *new LogQueue();
  return queue;
}

}  // namespace

void register_log(py::module_& m) {
  m.def(
      "_log_to_python",
      [] {
        set_log_sink(
            [](LogLevel level, std::string_view message) { log_queue().push(level, message); });
      },
      "From now on the C++ log lines are queued for _take_log_lines() instead of written to "
      "stderr.");
  m.def(
      "_log_to_stderr", [] { set_log_sink(nullptr); },
      "From now on the C++ log lines go to stderr again, as `textfeed info: ...` (at exit, once "
      "Python has taken the last queued ones).");
  m.def(
      "_take_log_lines",
      [] {
        auto [lines, dropped] = log_queue().take();  // the queue's lock is not held from here on
        py::list out;
        for (const auto& [level, message] : lines)
          out.append(py::make_tuple(python_level(level), message));
        return py::make_tuple(out, dropped);
      },
      "([(logging level, line), ...], lines dropped because the queue was full) since the last "
      "call.");
  m.def(
      "_set_log_level", [](int level) { set_log_level(log_level_of(level)); }, py::arg("level"),
      "C++ lines below this logging level (logging.DEBUG ... logging.ERROR) are not even made.");
}

}  // namespace textfeed::python
