// Logging and invariant checks. Log lines go to one process-wide sink (stderr by default) that the
// composition root (a command's main, the Python module) may replace; library code never writes
// to std::cerr directly. TF_CHECK is for bugs only: input errors are Status.
#pragma once

#include <functional>
#include <sstream>
#include <string_view>

namespace textfeed {

enum class LogLevel : unsigned char { kDebug, kInfo, kWarning, kError };

using LogSink = std::function<void(LogLevel, std::string_view message)>;

// Replaces the sink (nullptr restores stderr). Thread-safe; meant to be called at start-up.
void set_log_sink(LogSink sink);
// Lines below `level` are dropped. Thread-safe.
void set_log_level(LogLevel level);
LogLevel log_level();
// Emits one line, control characters and invalid UTF-8 escaped (base/printable.h). Thread-safe;
// lines from several threads never interleave.
void log_message(LogLevel level, std::string_view message);

namespace internal {

class LogLine {
 public:
  explicit LogLine(LogLevel level) : level_(level) {}
  LogLine(const LogLine&) = delete;
  LogLine& operator=(const LogLine&) = delete;
  ~LogLine() { log_message(level_, stream_.str()); }
  template <class T>
  LogLine& operator<<(const T& v) {
    stream_ << v;
    return *this;
  }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};

class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  [[noreturn]] ~CheckFailure();
  template <class T>
  CheckFailure& operator<<(const T& v) {
    stream_ << v;
    return *this;
  }

 private:
  std::ostringstream stream_;
};

// Turns `line << a << b` into a void expression, so the macros below are single expressions
// (safe in an unbraced if/else). `&` binds looser than `<<`.
struct Voidify {
  template <class T>
  void operator&(T&&) const {}
};

}  // namespace internal
}  // namespace textfeed

#define TF_LOG(level)                                        \
  (::textfeed::LogLevel::k##level < ::textfeed::log_level()) \
      ? (void)0                                              \
      : ::textfeed::internal::Voidify() &                    \
            ::textfeed::internal::LogLine(::textfeed::LogLevel::k##level)

// Aborts with file:line, the condition and any streamed context when `cond` is false.
#define TF_CHECK(cond)                       \
  (cond) ? (void)0                           \
         : ::textfeed::internal::Voidify() & \
               ::textfeed::internal::CheckFailure(__FILE__, __LINE__, #cond)

#ifdef NDEBUG
#define TF_DCHECK(cond)                    \
  true ? (void)0                           \
       : ::textfeed::internal::Voidify() & \
             ::textfeed::internal::CheckFailure(__FILE__, __LINE__, #cond)
#else
#define TF_DCHECK(cond) TF_CHECK(cond)
#endif
