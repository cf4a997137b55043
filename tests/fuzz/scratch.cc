// What every fuzz target shares: the per-process scratch folder, file writing, and the check
// for leaked file descriptors.
#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

// How many descriptors are open (the listing's own included, before and after alike). readdir,
// not std::filesystem: this runs twice per input.
size_t count_descriptors() {
  DIR* dir = ::opendir("/proc/self/fd");
  TF_CHECK(dir != nullptr) << "cannot list /proc/self/fd";
  size_t n = 0;
  while (const dirent* e = ::readdir(dir)) n += e->d_name[0] != '.';
  ::closedir(dir);
  return n;
}

// Every open descriptor and what it refers to, for the message of a failed check.
std::string list_descriptors() {
  std::string out;
  std::error_code ec;
  for (fs::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code link_ec;
    out.append(" ").append(it->path().filename().string()).append(" -> ");
    out.append(fs::read_symlink(it->path(), link_ec).string()).append(";");
  }
  return out;
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
  const size_t before = count_descriptors();
  run(input);
  const size_t after = count_descriptors();
  if (std::exchange(first, false)) return;
  TF_CHECK(after <= before) << "the input left " << after - before
                            << " file descriptor(s) open; now open:" << list_descriptors();
}

void write_file(const std::string& path, std::span<const uint8_t> bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  TF_CHECK(f != nullptr) << "cannot write " << path;
  const size_t put = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
  const bool closed = std::fclose(f) == 0;
  TF_CHECK(put == bytes.size() && closed) << "short write to " << path;
}

}  // namespace textfeed::fuzz
