// What every fuzz target shares: the per-process scratch folder, file writing, and the check
// for leaked file descriptors.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "base/log.h"
#include "tests/fuzz/fuzz_targets.h"

namespace textfeed::fuzz {
namespace {

namespace fs = std::filesystem;

fs::path scratch_parent() {
  std::error_code ec;
  if (const char* t = std::getenv("TMPDIR"); t && *t && fs::is_directory(t, ec)) return t;
  if (fs::is_directory("/dev/shm", ec)) return "/dev/shm";  // memory: no disk writes per input
  return "/tmp";
}

// Owns the folder: made empty on construction, removed when the process exits normally. A
// crashed fuzzer leaves it behind; its name carries the pid, so it never collides.
class ScratchDir {
 public:
  ScratchDir() : path_(scratch_parent() / ("textfeed-fuzz-" + std::to_string(::getpid()))) {
    std::error_code ec;
    fs::remove_all(path_, ec);
    fs::create_directories(path_, ec);
    TF_CHECK(!ec) << "cannot create the fuzz scratch folder " << path_.string() << ": "
                  << ec.message();
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_string_; }

 private:
  fs::path path_;
  std::string path_string_ = path_.string();
};

// What /proc/self/fd lists: descriptor number -> what it refers to.
std::map<std::string, std::string> open_descriptors() {
  static const std::string own_listing = "/proc/" + std::to_string(::getpid()) + "/fd";
  std::map<std::string, std::string> fds;
  std::error_code ec;
  for (fs::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code link_ec;
    const std::string target = fs::read_symlink(it->path(), link_ec).string();
    if (target == own_listing) continue;
    fds[it->path().filename().string()] = target;
  }
  TF_CHECK(!ec) << "cannot list /proc/self/fd: " << ec.message();
  return fds;
}

}  // namespace

const std::string& scratch_dir() {
  static const ScratchDir dir;
  return dir.path();
}

void run_checking_descriptors(TargetFn run, std::span<const uint8_t> input) {
  // Only what opens during the run counts: between runs, the sanitizers' symbolizer may start
  // and keep pipes. The first run of a process may open for good (library initialization).
  static bool first = true;
  const std::map<std::string, std::string> before = open_descriptors();
  run(input);
  const std::map<std::string, std::string> after = open_descriptors();
  if (std::exchange(first, false)) return;
  std::string leaked;
  for (const auto& [fd, target] : after)
    if (!before.count(fd)) leaked += " " + fd + " -> " + target + ";";
  TF_CHECK(after.size() <= before.size()) << "the input left file descriptors open:" << leaked;
}

void write_file(const std::string& path, std::span<const uint8_t> bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  TF_CHECK(f != nullptr) << "cannot write " << path;
  const size_t put = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
  const bool closed = std::fclose(f) == 0;
  TF_CHECK(put == bytes.size() && closed) << "short write to " << path;
}

}  // namespace textfeed::fuzz
