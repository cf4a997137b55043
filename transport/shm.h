// Shared memory between a client and a daemon on the same host, bound to the client that made it.
// The client keeps its batch slots in an anonymous memory file (memfd) sealed against shrinking
// and growing, and hands the daemon the file's descriptor itself (SCM_RIGHTS over a datagram Unix
// socket beside the daemon's ipc endpoint, with a one-time token the daemon gave that client's
// stream). The daemon maps only descriptors it was handed that way: memory has no name another
// client could give, a client cannot make the daemon fault by shrinking its memory (the seal
// forbids it), and the memory goes away with the last process that maps it (docs/security.md).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/file.h"
#include "base/status.h"

namespace textfeed::transport {

// Bytes of the token that ties a handed-over descriptor to the stream it is for.
inline constexpr size_t kMemoryTokenBytes = 16;
using MemoryToken = std::array<uint8_t, kMemoryTokenBytes>;
// AttachMemory's bounds (protocol.capnp): 1..kMaxSharedMemorySlots slots, each slotStride bytes
// apart, a multiple of kSlotStrideAlignBytes (a page).
inline constexpr uint32_t kMaxSharedMemorySlots = 1024;
inline constexpr uint64_t kSlotStrideAlignBytes = 4096;

// A fresh random token (std::random_device).
MemoryToken new_memory_token();

// A mapping of a sealed memory file. A resource type: owns the mapping (and, for the creator, the
// descriptor). Plain memory: concurrent writes to disjoint ranges are fine; the owner synchronizes
// the rest.
class ShmRegion {
 public:
  // Client: a new memory file of `bytes` bytes, sealed (no shrink, no grow, no further seals),
  // mapped read-write with its pages populated. Errors: kInvalidArgument (0 bytes), kIo.
  static Result<std::unique_ptr<ShmRegion>> create(size_t bytes);
  // Daemon: maps the first `min_bytes` of a descriptor a client handed over, after checking that
  // it is a memory file (tmpfs, not hugetlbfs) sealed against shrinking, at least that large and
  // with that much memory behind it (not sparse: the daemon never allocates a client's memory);
  // the descriptor is closed either way. Errors: kInvalidArgument naming what is wrong, kIo.
  static Result<std::unique_ptr<ShmRegion>> map_received(FileDescriptor fd, size_t min_bytes);
  ~ShmRegion();
  ShmRegion(const ShmRegion&) = delete;
  ShmRegion& operator=(const ShmRegion&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // The creator's descriptor (what it hands over); -1 for a mapping of a received one.
  int fd() const { return fd_.get(); }

 private:
  ShmRegion(uint8_t* data, size_t size, FileDescriptor fd)
      : data_(data), size_(size), fd_(std::move(fd)) {}
  uint8_t* data_;
  size_t size_;
  FileDescriptor fd_;
};

// The daemon's end of the hand-over: a datagram Unix socket at a path (mode 0600, created under
// umask 077) that accepts datagrams of one token and one descriptor, from the daemon's own user
// only. Not thread-safe: the daemon's socket thread owns it.
class MemoryInbox {
 public:
  struct Delivery {
    MemoryToken token{};
    FileDescriptor fd;
  };
  // Binds `path` (a stale socket there is replaced: the caller holds the endpoint's lock).
  // Errors: kInvalidArgument (path too long for a Unix socket, something else than a socket at
  // the path), kIo.
  static Result<std::unique_ptr<MemoryInbox>> bind(const std::string& path);
  // Removes the socket file (if the path still names it).
  ~MemoryInbox();
  MemoryInbox(const MemoryInbox&) = delete;
  MemoryInbox& operator=(const MemoryInbox&) = delete;

  // Readable when datagrams wait (for poll).
  int fd() const { return socket_.get(); }
  const std::string& path() const { return path_; }
  // Up to `max` waiting deliveries, without blocking. A datagram that is not exactly one token and
  // one descriptor, or that comes from another user, is dropped (its descriptors closed) and
  // counted in `refused`.
  std::vector<Delivery> receive(size_t max, size_t* refused);

 private:
  MemoryInbox(std::string path, FileDescriptor socket, ino_t inode)
      : path_(std::move(path)), socket_(std::move(socket)), inode_(inode) {}
  std::string path_;
  FileDescriptor socket_;
  ino_t inode_;  // of the socket file bound: removed at the end only while the path still names it
};

// The client's end: sends `fd` with `token` to the inbox at `path`, waiting at most `timeout_ms`
// for room in it. Errors: kInvalidArgument (path too long), kUnavailable (no inbox there, or it
// stayed full), kIo.
Status send_memory(const std::string& path, const MemoryToken& token, int fd,
                   int timeout_ms = 5000);

}  // namespace textfeed::transport
