// Sealed memory files (memfd_create + F_ADD_SEALS) and their hand-over over a datagram Unix socket
// (SCM_RIGHTS, with SO_PASSCRED telling the sender's user).
#include "transport/shm.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>

namespace textfeed::transport {

namespace {

Result<sockaddr_un> unix_address(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(a.sun_path))
    return Status::invalid_argument("Unix socket path '" + path + "' is empty or longer than " +
                                    std::to_string(sizeof(a.sun_path) - 1) + " bytes");
  std::memcpy(a.sun_path, path.data(), path.size());
  return a;
}

// The blocks of the whole file say nothing of where they are: a file twice the size needed, with
// only its second half touched, has enough of them. So the range that is mapped and populated,
// [0, bytes), must hold no hole. On tmpfs a page is data once written or read through a mapping
// (or swapped out), a hole otherwise (fallocate's pages, never touched, are holes too). SEEK_HOLE
// moves the file offset, which the client shares; it maps the file and never reads it by offset.
Status check_no_hole(int fd, size_t bytes) {
  const off_t hole = ::lseek(fd, 0, SEEK_HOLE);
  if (hole < 0)
    return Status::from_errno("looking for holes in the client's memory (SEEK_HOLE)", errno);
  if (static_cast<uint64_t>(hole) >= bytes) return Status();
  return Status::invalid_argument("the client's memory has a hole at byte " + std::to_string(hole) +
                                  " of the " + std::to_string(bytes) +
                                  " bytes it lends (a sparse file: touch every page "
                                  "before handing it over)");
}

}  // namespace

MemoryToken new_memory_token() {
  std::random_device rd;
  MemoryToken t{};
  for (size_t i = 0; i < t.size(); i += 4) {
    const uint32_t r = rd();
    std::memcpy(t.data() + i, &r, 4);
  }
  return t;
}

Result<std::unique_ptr<ShmRegion>> ShmRegion::create(size_t bytes) {
  if (bytes == 0) return Status::invalid_argument("shared memory of 0 bytes");
  FileDescriptor fd(::memfd_create("textfeed-slots", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return Status::from_errno("memfd_create", errno);
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
    return Status::from_errno("sizing shared memory to " + std::to_string(bytes) + " bytes", errno);
  // Sealed before anyone else sees it: its size can never change again, so no mapping of it can
  // fault on a page past its end.
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    return Status::from_errno("sealing shared memory", errno);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.get(), 0);
  if (p == MAP_FAILED)
    return Status::from_errno("mapping " + std::to_string(bytes >> 20) + " MiB of shared memory",
                              errno);
  return std::unique_ptr<ShmRegion>(new ShmRegion(static_cast<uint8_t*>(p), bytes, std::move(fd)));
}

Result<std::unique_ptr<ShmRegion>> ShmRegion::map_received(FileDescriptor fd, size_t min_bytes) {
  if (min_bytes == 0) return Status::invalid_argument("a mapping of 0 bytes");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Status::from_errno("fstat of the client's memory", errno);
  struct statfs fs {};
  if (!S_ISREG(st.st_mode) || ::fstatfs(fd.get(), &fs) != 0 || fs.f_type != TMPFS_MAGIC)
    return Status::invalid_argument(
        "the descriptor handed over is not a memory file (memfd_create)");
  const int seals = ::fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0 || !(seals & F_SEAL_SHRINK))
    return Status::invalid_argument(
        "the client's memory is not sealed against shrinking (F_SEAL_SHRINK)");
  if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
    return Status::invalid_argument("the client's memory is sealed against writing");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < min_bytes)
    return Status::invalid_argument("the client's memory has " + std::to_string(size) + " bytes, " +
                                    std::to_string(min_bytes) + " needed");
  // Only memory the client already has: a sparse file of any size costs its maker nothing, and
  // mapping it populated would make the daemon allocate (and wait for) all of it.
  const auto backed = static_cast<uint64_t>(st.st_blocks) * 512;
  if (backed < min_bytes)
    return Status::invalid_argument("the client's memory holds only " + std::to_string(backed) +
                                    " of the " + std::to_string(min_bytes) +
                                    " bytes it lends (a sparse file: touch every page "
                                    "before handing it over)");
  TF_RETURN_IF_ERROR(check_no_hole(fd.get(), min_bytes));
  // Only what was asked for: a larger file does not make us map (and populate) more.
  void* p =
      ::mmap(nullptr, min_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.get(), 0);
  if (p == MAP_FAILED) return Status::from_errno("mapping the client's memory", errno);
  return std::unique_ptr<ShmRegion>(
      new ShmRegion(static_cast<uint8_t*>(p), min_bytes, FileDescriptor()));
}

ShmRegion::~ShmRegion() { ::munmap(data_, size_); }

Result<std::unique_ptr<MemoryInbox>> MemoryInbox::bind(const std::string& path) {
  TF_ASSIGN_OR_RETURN(const sockaddr_un address, unix_address(path));
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid())
      return Status::invalid_argument(
          path + " exists and is not a socket of this user: refusing to replace it");
    ::unlink(path.c_str());  // a dead daemon's: the caller holds the endpoint's lock
  }
  FileDescriptor s(::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!s.valid()) return Status::from_errno("socket", errno);
  const int on = 1;
  if (::setsockopt(s.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0)
    return Status::from_errno("SO_PASSCRED", errno);
  // Created under umask 077: never open to other users, not even before the chmod.
  const mode_t previous = ::umask(077);
  const int rc = ::bind(s.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address));
  const int e = errno;
  ::umask(previous);
  if (rc != 0) return Status::from_errno("binding " + path, e);
  ::chmod(path.c_str(), 0600);
  struct stat bound {};
  ::lstat(path.c_str(), &bound);
  return std::unique_ptr<MemoryInbox>(new MemoryInbox(path, std::move(s), bound.st_ino));
}

MemoryInbox::~MemoryInbox() {
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == inode_)
    ::unlink(path_.c_str());
}

std::vector<MemoryInbox::Delivery> MemoryInbox::receive(size_t max, size_t* refused) {
  std::vector<Delivery> out;
  const uid_t self = ::geteuid();
  for (size_t n = 0; n < max; ++n) {
    Delivery d;
    uint8_t data[kMemoryTokenBytes + 1];
    iovec iov{data, sizeof(data)};
    // Room for a few descriptors: a datagram with more loses the rest (the kernel closes them).
    alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int)) + CMSG_SPACE(sizeof(ucred))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t got = ::recvmsg(socket_.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (got < 0) break;  // EAGAIN: nothing more waits (other errors: the next poll says)
    std::vector<FileDescriptor> fds;
    bool from_self = false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET) continue;
      if (c->cmsg_type == SCM_RIGHTS) {
        const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; ++i) {
          int fd = -1;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
          fds.emplace_back(fd);
        }
      } else if (c->cmsg_type == SCM_CREDENTIALS) {
        ucred cred{};
        std::memcpy(&cred, CMSG_DATA(c), sizeof(cred));
        from_self = cred.uid == self;
      }
    }
    const bool whole = got == static_cast<ssize_t>(kMemoryTokenBytes) &&
                       !(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC));
    if (!whole || !from_self || fds.size() != 1) {
      if (refused) ++*refused;
      continue;  // `fds` closes whatever came
    }
    std::memcpy(d.token.data(), data, kMemoryTokenBytes);
    d.fd = std::move(fds[0]);
    out.push_back(std::move(d));
  }
  return out;
}

Status send_memory(const std::string& path, const MemoryToken& token, int fd, int timeout_ms) {
  TF_ASSIGN_OR_RETURN(const sockaddr_un address, unix_address(path));
  FileDescriptor s(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return Status::from_errno("socket", errno);
  // Connected, so that poll() tells when the daemon's queue has room again.
  if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int e = errno;
    return Status::unavailable("cannot reach the daemon's memory socket " + path + ": " +
                               std::strerror(e));
  }
  iovec iov{const_cast<uint8_t*>(token.data()), token.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    if (::sendmsg(s.get(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) return Status();
    const int e = errno;
    if (e != EAGAIN && e != EINTR)
      return e == ECONNREFUSED
                 ? Status::unavailable("the daemon's memory socket " + path + " is gone")
                 : Status::from_errno("handing shared memory to the daemon", e);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return Status::unavailable("the daemon's memory socket " + path + " stayed full");
    pollfd p{s.get(), POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
}

}  // namespace textfeed::transport
