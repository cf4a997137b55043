// Replays every fuzz target's seed corpus (tests/fuzz/corpus/<target>/) and every saved finding
// (tests/fuzz/regressions/<target>/) through the same entry points the fuzzers use, so each
// normal test run, and the sanitizer run in CI, re-checks them. Inputs in tests/fuzz/pending/
// wait for a fix elsewhere and are not replayed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#include "base/log.h"
#include "tests/fuzz/fuzz_targets.h"

namespace textfeed::fuzz {

// Test names and ctest list the target by name, not as bytes.
void PrintTo(const Target& target, std::ostream* os) { *os << target.name; }

namespace {

namespace fs = std::filesystem;

const fs::path kFuzzDir = fs::path(TEXTFEED_SOURCE_DIR) / "tests" / "fuzz";

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().front() != '.')
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void replay(const Target& target, const std::vector<fs::path>& files) {
  for (const fs::path& file : files) {
    // Printed before the run: if the input crashes the process, the log names it.
    std::printf("[ replay   ] %s\n", fs::relative(file, kFuzzDir).c_str());
    std::fflush(stdout);
    const std::vector<uint8_t> bytes = read_bytes(file);
    run_checking_descriptors(target.run, bytes);
  }
}

class FuzzReplayTest : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override { set_log_level(LogLevel::kError); }
};

TEST_P(FuzzReplayTest, EverySeedRunsCleanly) {
  const std::vector<fs::path> seeds = files_in(kFuzzDir / "corpus" / GetParam().name);
  ASSERT_FALSE(seeds.empty()) << "no seed corpus in tests/fuzz/corpus/" << GetParam().name;
  replay(GetParam(), seeds);
}

TEST_P(FuzzReplayTest, EverySavedFindingRunsCleanly) {
  replay(GetParam(), files_in(kFuzzDir / "regressions" / GetParam().name));
}

std::string target_name(const ::testing::TestParamInfo<Target>& target) {
  return std::string(target.param.name);
}

// The manifest target's seed is what `cache merge` writes of the target's own shard files, so a
// mutation starts from a manifest that opens; a change of the format or of those files shows here
// (the message holds the text to save as the seed).
TEST(FuzzSeedTest, TheManifestSeedIsWhatMergeWritesOfTheTargetsShards) {
  const std::vector<uint8_t> seed =
      read_bytes(kFuzzDir / "corpus" / "manifest" / "merged.tfmanifest");
  const std::string expected = manifest_seed_for_testing();
  EXPECT_EQ(std::string(seed.begin(), seed.end()), expected)
      << "tests/fuzz/corpus/manifest/merged.tfmanifest";
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplayTest, ::testing::ValuesIn(kTargets), target_name);

}  // namespace
}  // namespace textfeed::fuzz
