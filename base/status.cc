// Status: names, formatting and context.
#include "base/status.h"

#include <cstring>

namespace textfeed {

std::string_view code_name(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kInvalidArgument:
      return "InvalidArgument";
    case Code::kNotFound:
      return "NotFound";
    case Code::kCorrupt:
      return "Corrupt";
    case Code::kIo:
      return "Io";
    case Code::kUnavailable:
      return "Unavailable";
    case Code::kOverloaded:
      return "Overloaded";
    case Code::kUnimplemented:
      return "Unimplemented";
    case Code::kCancelled:
      return "Cancelled";
    case Code::kInternal:
      return "Internal";
  }
  return "Unknown";
}

Status::Status(Code code, std::string message) {
  if (code != Code::kOk) rep_ = std::make_shared<const Rep>(Rep{code, std::move(message)});
}

Status Status::from_errno(std::string message, int errno_value) {
  message += ": ";
  message += std::strerror(errno_value);
  return Status(Code::kIo, std::move(message));
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

std::string Status::to_string() const {
  if (ok()) return "OK";
  std::string s(code_name(rep_->code));
  s += ": ";
  s += rep_->message;
  return s;
}

Status Status::with_context(std::string_view context) const {
  if (ok()) return *this;
  std::string m(context);
  m += ": ";
  m += rep_->message;
  return Status(rep_->code, std::move(m));
}

}  // namespace textfeed
