// CurveZMQ keys for tcp: key pairs, the key files `textfeed keygen` writes, and the options that
// switch encryption and client authentication on. Keys are Z85 text, 40 characters each.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace textfeed::transport {

struct CurveKeyPair {
  std::string public_key;  // Z85, 40 characters
  std::string secret_key;  // Z85, 40 characters; keep it private
};

// Daemon side: encrypt, and accept only the listed client public keys.
struct CurveServerOptions {
  CurveKeyPair server;                       // empty secret_key: CURVE off
  std::vector<std::string> allowed_clients;  // Z85 public keys; empty: every client is refused
  bool enabled() const { return !server.secret_key.empty(); }
};

// Client side: the daemon's public key and the client's own pair.
struct CurveClientOptions {
  std::string server_public_key;  // empty: CURVE off
  CurveKeyPair client;
  bool enabled() const { return !server_public_key.empty(); }
};

// A new random key pair. Errors: kUnimplemented (libzmq built without CURVE).
Result<CurveKeyPair> generate_curve_keypair();
// Writes "<base>.key" (mode 0600 from its creation: public and secret) and "<base>.pub" (public
// only), each as a fresh file renamed into place: never through a symlink, and over nothing but a
// regular file (with `overwrite`). Errors: kInvalidArgument (a file exists and !overwrite, or is
// not a regular file), kIo.
Status write_curve_key_files(const std::string& base, const CurveKeyPair& keys, bool overwrite);
// Reads a ".key" file (both keys; the public key is checked against the secret one).
// Errors: kNotFound, kIo, kInvalidArgument (no valid key in it, or the pair does not match).
Result<CurveKeyPair> read_curve_secret_file(const std::string& path);
// Reads the public key from a ".pub" or ".key" file. Errors as read_curve_secret_file.
Result<std::string> read_curve_public_file(const std::string& path);
// A client's CURVE options from its two key files: the daemon's public key (its ".pub", or a
// ".key") and this client's own ".key". `server_name` and `client_name` are what the caller calls
// the two (flags, keywords), for the message. Neither file named: CURVE off (a default
// CurveClientOptions). Errors: kInvalidArgument (one named without the other, naming both), and
// read_curve_public_file's and read_curve_secret_file's.
Result<CurveClientOptions> load_curve_client_keys(const std::string& server_public_file,
                                                  const std::string& client_key_file,
                                                  std::string_view server_name,
                                                  std::string_view client_name);
// Whether `key` is 40 characters of the Z85 alphabet.
bool is_z85_key(const std::string& key);

}  // namespace textfeed::transport
