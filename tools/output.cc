// JSON text, atomic file writes and scratch folders for the commands (see output.h).
#include "tools/output.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <utility>
#include <vector>

#include "base/file.h"

namespace textfeed::tools {

std::string json_text(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Status write_file_atomically(const std::string& path, std::string_view bytes, mode_t mode,
                             bool overwrite, bool durable) {
  TF_RETURN_IF_ERROR(check_replaceable(path, overwrite));  // before writing anything
  TF_ASSIGN_OR_RETURN(TempFile t, create_temp_beside(path, mode));
  const char* p = bytes.data();
  size_t left = bytes.size();
  Status s;
  while (left > 0 && s.ok()) {
    const ssize_t n = ::write(t.fd.get(), p, left);
    if (n < 0 && errno != EINTR) s = Status::from_errno("cannot write " + t.path, errno);
    if (n > 0) p += n, left -= static_cast<size_t>(n);
  }
  if (s.ok() && durable && ::fsync(t.fd.get()) != 0)
    s = Status::from_errno("fsync " + t.path, errno);
  if (s.ok()) s = t.fd.close().with_context(t.path);
  if (s.ok()) s = rename_into_place(t.path, path, overwrite, durable);
  if (!s.ok()) ::unlink(t.path.c_str());
  return s;
}

Result<ScratchFolder> ScratchFolder::create(const std::string& parent, const std::string& prefix) {
  std::string name = (std::filesystem::path(parent) / (prefix + "XXXXXX")).string();
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)
    return Status::from_errno("cannot create a folder in " + parent, errno);
  return ScratchFolder(std::string(buf.data()));
}

ScratchFolder::ScratchFolder(ScratchFolder&& other) noexcept
    : path_(std::exchange(other.path_, std::string())) {}

ScratchFolder::~ScratchFolder() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace textfeed::tools
