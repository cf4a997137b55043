// ClientOptions' checks.
#include "client/client_options.h"

#include <string>

namespace textfeed::client {

Status validate(const ClientOptions& o) {
  const std::pair<const char*, std::chrono::milliseconds> durations[] = {
      {"connect_timeout", o.connect_timeout},
      {"reconnect_connect_timeout", o.reconnect_connect_timeout},
      {"heartbeat_interval", o.heartbeat_interval},
      {"daemon_timeout", o.daemon_timeout},
      {"reconnect_timeout", o.reconnect_timeout},
      {"stall_timeout", o.stall_timeout},
      {"backoff_first", o.backoff_first},
      {"backoff_max", o.backoff_max},
      {"poll_interval", o.poll_interval},
      {"close_timeout", o.close_timeout},
      {"wait_slice", o.wait_slice}};
  for (const auto& [name, value] : durations)
    if (value.count() <= 0)
      return Status::invalid_argument(std::string("ClientOptions.") + name +
                                      " must be positive, got " + std::to_string(value.count()) +
                                      " ms");
  if (!(o.backoff_jitter >= 0 && o.backoff_jitter < 1))
    return Status::invalid_argument("ClientOptions.backoff_jitter must be in [0, 1), got " +
                                    std::to_string(o.backoff_jitter));
  if (o.backoff_first > o.backoff_max)
    return Status::invalid_argument(
        "ClientOptions.backoff_first (" + std::to_string(o.backoff_first.count()) +
        " ms) is above backoff_max (" + std::to_string(o.backoff_max.count()) + " ms)");
  return Status();
}

}  // namespace textfeed::client
