// What the commands write besides plain text: JSON that is valid UTF-8 whatever bytes the files
// held, files written without following a planted symlink, and private scratch folders.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/status.h"

namespace textfeed::tools {

// `j` as JSON text. Strings from outside (gt lines, image names, paths, client names) may hold
// any bytes; each invalid UTF-8 sequence becomes U+FFFD instead of throwing from dump().
std::string json_text(const nlohmann::ordered_json& j, int indent = 2);

// Writes `bytes` to `path` as a new file: a fresh temporary beside it (mode `mode` from creation,
// O_EXCL | O_NOFOLLOW) renamed into place, so the name never holds a partial file. Never writes
// through a symlink; replaces only a regular file, and only when `overwrite`. `durable`: the file
// and the rename are fsync'd (a key file; not the thousands of images of a synthetic dataset).
// Errors: kInvalidArgument (exists and !overwrite, or not a regular file), kIo.
Status write_file_atomically(const std::string& path, std::string_view bytes, mode_t mode,
                             bool overwrite, bool durable);

// A fresh folder of an unguessable name (mode 0700) under `parent`, removed with everything in it
// when destroyed: a command's temporary files cannot be stood in for by something planted in a
// shared /tmp. Move-only resource; not thread-safe.
class ScratchFolder {
 public:
  // Errors: kIo.
  static Result<ScratchFolder> create(const std::string& parent, const std::string& prefix);
  ScratchFolder(ScratchFolder&& other) noexcept;
  ScratchFolder& operator=(ScratchFolder&&) = delete;
  ScratchFolder(const ScratchFolder&) = delete;
  ~ScratchFolder();
  const std::string& path() const { return path_; }

 private:
  explicit ScratchFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace textfeed::tools
