// ShmRegion: shm_open + ftruncate + mmap, with names that carry the creator's pid.
#include "transport/shm.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <cerrno>
#include <filesystem>
#include <random>

namespace textfeed::transport {

namespace {
constexpr std::string_view kPrefix = "/textfeed-";
}  // namespace

bool is_valid_shm_name(const std::string& name) {
  if (name.size() <= kPrefix.size() || name.size() > 200 || name.compare(0, kPrefix.size(), kPrefix) != 0)
    return false;
  for (size_t i = kPrefix.size(); i < name.size(); ++i) {
    const char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

std::string new_shm_name() {
  static std::atomic<uint64_t> counter{0};
  std::random_device rd;
  const uint64_t r = (uint64_t{rd()} << 32) ^ rd();
  char buf[96];
  std::snprintf(buf, sizeof(buf), "/textfeed-%d-%llu-%016llx", static_cast<int>(::getpid()),
                static_cast<unsigned long long>(counter.fetch_add(1)), static_cast<unsigned long long>(r));
  return buf;
}

Result<std::unique_ptr<ShmRegion>> ShmRegion::create(const std::string& name, size_t bytes) {
  if (!is_valid_shm_name(name)) return Status::invalid_argument("shared memory name '" + name + "' is not valid");
  if (bytes == 0) return Status::invalid_argument("shared memory '" + name + "' of 0 bytes");
  const int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status::from_errno("shm_open " + name, errno);
  ::flock(fd, LOCK_EX | LOCK_NB);  // ours alone: it was just created with O_EXCL
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int e = errno;
    ::close(fd);
    ::shm_unlink(name.c_str());
    return Status::from_errno("sizing shared memory " + name + " to " + std::to_string(bytes) + " bytes", e);
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) {
    const int e = errno;
    ::close(fd);
    ::shm_unlink(name.c_str());
    return Status::from_errno("mapping shared memory " + name, e);
  }
  return std::unique_ptr<ShmRegion>(new ShmRegion(name, static_cast<uint8_t*>(p), bytes, true, fd));
}

Result<std::unique_ptr<ShmRegion>> ShmRegion::open(const std::string& name, size_t min_bytes) {
  if (!is_valid_shm_name(name)) return Status::invalid_argument("shared memory name '" + name + "' is not valid");
  const int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) return Status::not_found("no shared memory named " + name + " on the daemon's host");
    return Status::from_errno("shm_open " + name, e);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return Status::from_errno("fstat " + name, e);
  }
  if (st.st_uid != ::geteuid()) {  // a daemon run as root must not write into another user's memory
    ::close(fd);
    return Status::invalid_argument("shared memory " + name + " belongs to another user");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size < min_bytes || min_bytes == 0) {
    ::close(fd);
    return Status::invalid_argument("shared memory " + name + " has " + std::to_string(size) + " bytes, " +
                                    std::to_string(min_bytes) + " needed");
  }
  // Only what was asked for: a larger object does not make us map (and populate) more.
  void* p = ::mmap(nullptr, min_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  const int e = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Status::from_errno("mapping shared memory " + name, e);
  return std::unique_ptr<ShmRegion>(new ShmRegion(name, static_cast<uint8_t*>(p), min_bytes, false, -1));
}

ShmRegion::~ShmRegion() {
  if (owns_name_) unlink();
  ::munmap(data_, size_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

void ShmRegion::unlink() {
  if (name_.empty()) return;
  ::shm_unlink(name_.c_str());  // ENOENT: already gone, which is what we want
  name_.clear();
  owns_name_ = false;
}

std::vector<std::string> remove_stale_shm() {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code ec;
  const std::string prefix(kPrefix.substr(1));  // file names under /dev/shm have no leading '/'
  const time_t now = ::time(nullptr);
  for (fs::directory_iterator it("/dev/shm", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (file.compare(0, prefix.size(), prefix) != 0 || !is_valid_shm_name("/" + file)) continue;
    const int fd = ::shm_open(("/" + file).c_str(), O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) continue;
    struct stat st {};
    // The flock is free only when the creator is gone; the age check covers the instant between a
    // creator's shm_open and its flock.
    const bool stale = ::fstat(fd, &st) == 0 && now - st.st_ctime > 10 && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (stale && ::shm_unlink(("/" + file).c_str()) == 0) removed.push_back("/" + file);
    ::close(fd);
  }
  return removed;
}

}  // namespace textfeed::transport
