// ShmRegion: a POSIX shared-memory object mapped into this process. A client creates one to hold
// its batch slots (it owns the name and unlinks it when done); the daemon on the same host opens
// it by name and writes batches straight into it (docs/protocol.md, AttachMemory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace textfeed::transport {

// A resource type: owns one mapping, and the name when it created it. Not copyable. The mapping is
// plain memory: concurrent writes to disjoint ranges are fine; the owner synchronizes the rest.
// A creator holds an flock on the object for as long as the region lives: that is how
// remove_stale_shm tells a live owner's object from a dead one's, in any PID namespace.
class ShmRegion {
 public:
  // Creates `name` (mode 0600, must not exist) with `bytes` bytes and maps it read-write with its
  // pages populated. The region unlinks the name when destroyed. Errors: kInvalidArgument (a name
  // not made by new_shm_name's rules, zero size), kIo (shm_open, ftruncate, mmap).
  static Result<std::unique_ptr<ShmRegion>> create(const std::string& name, size_t bytes);
  // Maps the first `min_bytes` of an existing object read-write. Errors: kInvalidArgument (bad
  // name, an object smaller than that or owned by another user than this process's), kNotFound,
  // kIo.
  static Result<std::unique_ptr<ShmRegion>> open(const std::string& name, size_t min_bytes);
  ~ShmRegion();
  ShmRegion(const ShmRegion&) = delete;
  ShmRegion& operator=(const ShmRegion&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& name() const { return name_; }
  // Removes the name now (the mapping stays valid until destruction). Idempotent; it also removes
  // a name this region only opened (the daemon reclaiming the memory of a vanished client).
  void unlink();

 private:
  ShmRegion(std::string name, uint8_t* data, size_t size, bool owns_name, int lock_fd)
      : name_(std::move(name)), data_(data), size_(size), owns_name_(owns_name), lock_fd_(lock_fd) {}
  std::string name_;
  uint8_t* data_;
  size_t size_;
  bool owns_name_;
  int lock_fd_;  // the creator's descriptor, holding the flock; -1 for an opener
};

// A fresh name "/textfeed-<pid>-<n>-<random>" (the pid lets remove_stale_shm find leftovers).
std::string new_shm_name();
// Whether `name` is "/textfeed-" followed by letters, digits and '-' only (at most 200 chars).
bool is_valid_shm_name(const std::string& name);
// Unlinks the shared-memory objects of this naming scheme that no live process holds the flock of
// and that are older than a few seconds (what a client killed while its daemon was down too
// leaves behind). Returns their names.
std::vector<std::string> remove_stale_shm();

}  // namespace textfeed::transport
