// The cache's dealings with the file system under a hostile hand: a FIFO or a device given as the
// cache to read, a FIFO, device, folder or symlink at the output path, a symlink planted at the
// temporary name, leftovers of killed builds in both namings.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>

#include "tests/cache/cache_fixture.h"

namespace textfeed::cache {
namespace {

namespace fs = std::filesystem;
using testing::CacheFixture;

class CacheFileTest : public CacheFixture {
 protected:
  std::string read(const fs::path& p) const {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  void write(const fs::path& p, const std::string& text) const {
    std::ofstream(p, std::ios::binary) << text;
  }
  // The pid of a process that has exited (and been reaped).
  static pid_t dead_pid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    return child;
  }
};

TEST_F(CacheFileTest, AFifoIsNotOpenedAsACacheAndDoesNotBlock) {
  const fs::path fifo = dir_ / "c.tfc";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto done = std::async(std::launch::async, [&] { return CacheReader::open(fifo.string()); });
  if (done.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
    ADD_FAILURE() << "CacheReader::open blocked on a FIFO";
    const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0) ::close(w);
  }
  auto r = done.get();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kInvalidArgument) << r.error().to_string();
  EXPECT_NE(r.error().message().find("is a FIFO"), std::string::npos) << r.error().message();
}

// What tells a cache from anything else, in one place (cache/), without blocking on a FIFO.
TEST_F(CacheFileTest, IsCacheFileKnowsACacheByItsMagicAlone) {
  build(path_);
  EXPECT_TRUE(is_cache_file(path_));
  write(dir_ / "named.tfc", "not a cache at all");  // the name says nothing
  EXPECT_FALSE(is_cache_file((dir_ / "named.tfc").string()));
  write(dir_ / "short", "TXFC");  // a prefix of the magic
  EXPECT_FALSE(is_cache_file((dir_ / "short").string()));
  const fs::path fifo = dir_ / "fifo.tfc";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto done = std::async(std::launch::async, [&] { return is_cache_file(fifo.string()); });
  if (done.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
    ADD_FAILURE() << "is_cache_file blocked on a FIFO";
    const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0) ::close(w);
  }
  EXPECT_FALSE(done.get());
  for (const std::string& other :
       {dir_.string(), std::string("/dev/zero"), (dir_ / "missing").string()})
    EXPECT_FALSE(is_cache_file(other)) << other;
}

TEST_F(CacheFileTest, FoldersAndDevicesAreNotCaches) {
  for (const std::string& path : {dir_.string(), std::string("/dev/zero")}) {
    auto r = CacheReader::open(path);
    ASSERT_FALSE(r.has_value()) << path;
    EXPECT_EQ(r.error().code(), Code::kInvalidArgument) << r.error().to_string();
    EXPECT_NE(r.error().message().find("not a regular file"), std::string::npos)
        << r.error().message();
  }
}

TEST_F(CacheFileTest, ForceReplacesOnlyARegularFile) {
  write(dir_ / "victim", "precious");
  fs::create_symlink(dir_ / "victim", dir_ / "link.tfc");
  ASSERT_EQ(::mkfifo((dir_ / "fifo.tfc").c_str(), 0600), 0);
  fs::create_directories(dir_ / "folder.tfc");
  for (const std::string& out : {(dir_ / "link.tfc").string(), (dir_ / "fifo.tfc").string(),
                                 (dir_ / "folder.tfc").string(), std::string("/dev/null")}) {
    auto w = CacheWriter::create(out, /*overwrite=*/true);
    ASSERT_FALSE(w.has_value()) << out;
    EXPECT_EQ(w.error().code(), Code::kInvalidArgument) << w.error().to_string();
    EXPECT_NE(w.error().message().find("refusing to replace"), std::string::npos)
        << w.error().message();
  }
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.tfc"));
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo.tfc"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(read(dir_ / "victim"), "precious");
  // A regular file is replaced.
  build(path_);
  auto again = CacheWriter::create(path_, true);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  ASSERT_TRUE((*again)->add(samples_[0].data()).ok());
  ASSERT_TRUE((*again)->finish(test_meta()).ok());
  EXPECT_EQ((*CacheReader::open(path_))->size(), 1u);
  // But only a cache, or an empty file: a mistyped --out must not take a dataset's gt file.
  const fs::path text = dir_ / "gt_img_1.txt";
  write(text, "1,2,3,4,5,6,7,8,word\n");
  auto refused = CacheWriter::create(text.string(), true);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message().find("is not a textfeed cache"), std::string::npos)
      << refused.error().message();
  EXPECT_EQ(read(text), "1,2,3,4,5,6,7,8,word\n");
  write(dir_ / "empty.tfc", "");
  EXPECT_TRUE(CacheWriter::create((dir_ / "empty.tfc").string(), true).has_value());
}

// A link planted where an earlier build put its temporary ("<out>.tmp-<pid>") pointed at a file
// of the victim's: with O_CREAT | O_TRUNC the build wrote the cache into the victim's file.
TEST_F(CacheFileTest, APlantedSymlinkAtTheTemporaryNameIsNeverFollowed) {
  write(dir_ / "victim", "precious");
  const fs::path planted = path_ + ".tmp-" + std::to_string(::getpid());
  fs::create_symlink(dir_ / "victim", planted);
  build(path_);
  EXPECT_EQ(read(dir_ / "victim"), "precious");
  EXPECT_TRUE(fs::is_symlink(planted));
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ((*r)->size(), samples_.size());
}

TEST_F(CacheFileTest, TemporaryNamesAreUnguessableAndRemovedOnFailure) {
  std::string temp;
  {
    auto w = CacheWriter::create(path_, false);
    ASSERT_TRUE(w.has_value());
    temp = (*w)->temp_path();
    const std::string prefix = path_ + ".tmp-" + std::to_string(::getpid()) + "-";
    EXPECT_EQ(temp.compare(0, prefix.size(), prefix), 0) << temp;
    EXPECT_EQ(temp.size(), prefix.size() + 16) << temp;
    EXPECT_TRUE(fs::exists(temp));
  }  // destroyed before finish()
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(CacheFileTest, LeftoversOfDeadBuildsAreRemovedInBothNamingsButNeverLinks) {
  const std::string dead = std::to_string(dead_pid());
  const fs::path old_style = path_ + ".tmp-" + dead;
  const fs::path new_style = path_ + ".tmp-" + dead + "-0123456789abcdef";
  const fs::path link = path_ + ".tmp-" + dead + "-fedcba9876543210";
  const fs::path odd = path_ + ".tmp-" + dead + "-notours";
  write(old_style, "partial");
  write(new_style, "partial");
  write(dir_ / "victim", "precious");
  fs::create_symlink(dir_ / "victim", link);
  write(odd, "someone else's");
  auto w = CacheWriter::create(path_, false);
  ASSERT_TRUE(w.has_value());
  std::vector<std::string> removed = (*w)->removed_stale_temps();
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, (std::vector<std::string>{old_style.string(), new_style.string()}));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::exists(odd));
  EXPECT_EQ(read(dir_ / "victim"), "precious");
}

TEST_F(CacheFileTest, ATranscriptionWithANulByteIsRefusedNotWrittenUnreadable) {
  testing::TestSample s = samples_[1];
  ASSERT_FALSE(s.texts.empty());
  s.texts[0] = std::string("a\0b", 3);
  auto w = CacheWriter::create(path_, false);
  ASSERT_TRUE(w.has_value());
  const Status st = (*w)->add(s.data());
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("NUL"), std::string::npos) << st.message();
}

TEST_F(CacheFileTest, AnEmptyCacheFinishesWithoutTouchingANullIndex) {
  auto w = CacheWriter::create(path_, false);
  ASSERT_TRUE(w.has_value());
  ASSERT_TRUE((*w)->finish(test_meta()).ok());
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ((*r)->size(), 0u);
}

}  // namespace
}  // namespace textfeed::cache
