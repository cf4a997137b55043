#include "transport/endpoint.h"

#include <sys/un.h>

#include <charconv>
#include <string>

#include "base/printable.h"

namespace textfeed::transport {
namespace {

Status bad(std::string_view endpoint, const std::string& why) {
  return Status::invalid_argument("endpoint '" + printable(endpoint) + "': " + why);
}

}  // namespace

Status check_endpoint(std::string_view endpoint, EndpointUse use) {
  if (endpoint.find('\0') != std::string_view::npos) return bad(endpoint, "contains a NUL byte");
  if (endpoint.starts_with("ipc://")) {
    const std::string_view path = endpoint.substr(6);
    if (path.empty()) return bad(endpoint, "no socket path after ipc://");
    if (path.size() >= sizeof(sockaddr_un{}.sun_path))
      return bad(endpoint, "a socket path is at most " +
                               std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) +
                               " bytes, this one has " + std::to_string(path.size()));
    return Status();
  }
  if (endpoint.starts_with("tcp://")) {
    const std::string_view rest = endpoint.substr(6);
    const size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos) return bad(endpoint, "no port: give tcp://HOST:PORT");
    const std::string_view host = rest.substr(0, colon), port = rest.substr(colon + 1);
    if (host.empty()) return bad(endpoint, "no host before the port");
    if (use == EndpointUse::kBind && port == "*") return Status();
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size())
      return bad(endpoint,
                 "the port '" + printable(port) + "' is not a number (nothing may follow it)");
    const unsigned lowest = use == EndpointUse::kBind ? 0 : 1;
    if (value < lowest || value > 65535)
      return bad(endpoint, "the port " + std::to_string(value) + " is not in " +
                               std::to_string(lowest) + "..65535");
    return Status();
  }
  const size_t scheme = endpoint.find("://");
  if (endpoint.starts_with("inproc://"))
    return bad(endpoint, "inproc:// is reachable only inside one process; use ipc:// or tcp://");
  return bad(endpoint, scheme == std::string_view::npos
                           ? "not an endpoint; give ipc:///path or tcp://host:port"
                           : "the transport '" + printable(endpoint.substr(0, scheme)) +
                                 "' is not offered; give ipc:///path or tcp://host:port");
}

}  // namespace textfeed::transport
