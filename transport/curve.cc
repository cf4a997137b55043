// CurveZMQ key pairs and key files ("public = ..." / "secret = ..." lines, '#' comments).
#include "transport/curve.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "base/file.h"

namespace textfeed::transport {

namespace {

constexpr std::string_view kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

// Writes `text` into a fresh file beside `path` (mode `mode` from its creation, never through a
// symlink) and renames it over `path`, which must be absent or (with `overwrite`) a regular file.
Status write_file(const std::string& path, const std::string& text, mode_t mode, bool overwrite) {
  TF_RETURN_IF_ERROR(check_replaceable(path, overwrite));
  TF_ASSIGN_OR_RETURN(TempFile temp, create_temp_beside(path, mode));
  const ssize_t n = ::write(temp.fd.get(), text.data(), text.size());
  const int e = errno;
  Status closed = temp.fd.close();
  if (n != static_cast<ssize_t>(text.size()) || !closed.ok()) {
    ::unlink(temp.path.c_str());
    return n != static_cast<ssize_t>(text.size()) ? Status::from_errno("cannot write " + path, e)
                                                  : closed;
  }
  Status renamed = rename_into_place(temp.path, path, overwrite);
  if (!renamed.ok()) ::unlink(temp.path.c_str());
  return renamed;
}

// The value of "<field> = <key>" in a key file, or a bare key on a line of its own.
Result<std::string> find_key(const std::string& path, const std::string& field) {
  std::string
      text;  // a key file is a few lines: anything larger, or not a regular file, is not one
  TF_RETURN_IF_ERROR(read_regular_file(path, text, 64 << 10));
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    std::string value = line.substr(start);
    const size_t eq = value.find('=');
    if (eq != std::string::npos && value.compare(0, field.size(), field) == 0) {
      value = value.substr(eq + 1);
      value.erase(0, value.find_first_not_of(" \t\""));
      value.erase(value.find_last_not_of(" \t\"") + 1);
      if (is_z85_key(value)) return value;
      return Status::invalid_argument(path + ": the " + field + " key is not 40 Z85 characters");
    }
    if (field == "public" && is_z85_key(value)) return value;
  }
  return Status::invalid_argument(path + " holds no " + field + " key");
}

}  // namespace

bool is_z85_key(const std::string& key) {
  return key.size() == 40 && key.find_first_not_of(kZ85Alphabet) == std::string::npos;
}

Result<CurveKeyPair> generate_curve_keypair() {
  char pub[41] = {}, sec[41] = {};
  if (zmq_curve_keypair(pub, sec) != 0)
    return Status::unimplemented(std::string("libzmq cannot make CURVE keys: ") +
                                 zmq_strerror(zmq_errno()));
  return CurveKeyPair{pub, sec};
}

Status write_curve_key_files(const std::string& base, const CurveKeyPair& keys, bool overwrite) {
  if (!is_z85_key(keys.public_key) || !is_z85_key(keys.secret_key))
    return Status::invalid_argument("not a CURVE key pair");
  const std::string header = "# textfeed CurveZMQ key (ZeroMQ Z85 text)\n";
  TF_RETURN_IF_ERROR(write_file(base + ".key",
                                header + "# SECRET: give it to nobody\npublic = " +
                                    keys.public_key + "\nsecret = " + keys.secret_key + "\n",
                                0600, overwrite));
  return write_file(base + ".pub", header + "public = " + keys.public_key + "\n", 0644, overwrite);
}

Result<CurveKeyPair> read_curve_secret_file(const std::string& path) {
  TF_ASSIGN_OR_RETURN(std::string secret, find_key(path, "secret"));
  char derived[41] = {};
  if (zmq_curve_public(derived, secret.c_str()) != 0)
    return Status::invalid_argument(path + ": not a valid CURVE secret key");
  auto pub = find_key(path, "public");
  if (pub.has_value() && *pub != derived)
    return Status::invalid_argument(path + ": its public key does not belong to its secret key");
  return CurveKeyPair{derived, secret};
}

Result<std::string> read_curve_public_file(const std::string& path) {
  return find_key(path, "public");
}

Result<CurveClientOptions> load_curve_client_keys(const std::string& server_public_file,
                                                  const std::string& client_key_file,
                                                  std::string_view server_name,
                                                  std::string_view client_name) {
  CurveClientOptions o;
  if (server_public_file.empty() && client_key_file.empty()) return o;
  if (server_public_file.empty() || client_key_file.empty())
    return Status::invalid_argument("CURVE needs both " + std::string(server_name) + " and " +
                                    std::string(client_name));
  TF_ASSIGN_OR_RETURN(o.server_public_key, read_curve_public_file(server_public_file));
  TF_ASSIGN_OR_RETURN(o.client, read_curve_secret_file(client_key_file));
  return o;
}

}  // namespace textfeed::transport
