// Status and Result<T>: how textfeed reports expected failures (bad input, I/O, protocol).
// Bugs are TF_CHECK (base/log.h); exceptions never cross a textfeed public header.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace textfeed {

// Status codes; each maps 1:1 onto the wire's error enum and onto a Python exception class.
enum class Code : unsigned char {
  kOk = 0,
  kInvalidArgument,  // the caller's input is wrong (options, a path outside the root, ...)
  kNotFound,         // a file, dataset or sample does not exist
  kCorrupt,          // data exists but is malformed (truncated JPEG, bad JSON, bad checksum)
  kIo,               // the OS refused (read, write, mmap, rename)
  kUnavailable,      // peer gone: reconnect and retry
  kOverloaded,       // peer busy: back off and retry
  kUnimplemented,
  kCancelled,
  kInternal,
};

// Name of a code, e.g. "Corrupt".
std::string_view code_name(Code code);

// A cheap value: OK holds no allocation; an error holds an immutable (code, message) pair
// shared between copies. Thread-safe for concurrent const use.
class [[nodiscard]] Status {
 public:
  Status() noexcept = default;

  static Status invalid_argument(std::string message) {
    return {Code::kInvalidArgument, std::move(message)};
  }
  static Status not_found(std::string message) { return {Code::kNotFound, std::move(message)}; }
  static Status corrupt(std::string message) { return {Code::kCorrupt, std::move(message)}; }
  static Status io(std::string message) { return {Code::kIo, std::move(message)}; }
  static Status unavailable(std::string message) {
    return {Code::kUnavailable, std::move(message)};
  }
  static Status overloaded(std::string message) { return {Code::kOverloaded, std::move(message)}; }
  static Status unimplemented(std::string message) {
    return {Code::kUnimplemented, std::move(message)};
  }
  static Status cancelled(std::string message) { return {Code::kCancelled, std::move(message)}; }
  static Status internal(std::string message) { return {Code::kInternal, std::move(message)}; }
  // An io() error whose message ends with strerror(errno_value).
  static Status from_errno(std::string message, int errno_value);

  Status(Code code, std::string message);

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  // Empty for OK.
  const std::string& message() const;
  // "OK" or "<Code>: <message>".
  std::string to_string() const;
  // The same error with "<context>: " in front of its message; OK stays OK.
  Status with_context(std::string_view context) const;

 private:
  struct Rep {
    Code code;
    std::string message;
  };
  std::shared_ptr<const Rep> rep_;
};

// Either a T or a non-OK Status (the shape of C++23 std::expected).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit like std::expected
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    if (std::get<Status>(v_).ok()) v_ = Status::internal("Result constructed from an OK Status");
  }

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  bool ok() const { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The error; OK if this holds a value.
  Status status() const { return has_value() ? Status() : std::get<1>(v_); }
  const Status& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace textfeed

#define TF_STATUS_CONCAT_INNER(a, b) a##b
#define TF_STATUS_CONCAT(a, b) TF_STATUS_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function when it is not OK.
#define TF_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::textfeed::Status tf_status_ = (expr);  \
    if (!tf_status_.ok()) return tf_status_; \
  } while (0)

// `lhs = *expr` where expr is a Result; returns its Status from the enclosing function on error.
#define TF_ASSIGN_OR_RETURN(lhs, expr) \
  TF_ASSIGN_OR_RETURN_IMPL(TF_STATUS_CONCAT(tf_result_, __LINE__), lhs, expr)
#define TF_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.has_value()) return tmp.error();      \
  lhs = std::move(tmp).value()
