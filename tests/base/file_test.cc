// base/file.h: regular files only, never blocking on a FIFO, fresh temporaries, guarded renames.
#include "base/file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

namespace textfeed {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("textfeed_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& content) const {
    std::ofstream(dir_ / name, std::ios::binary) << content;
  }
  fs::path dir_;
};

// Runs `read` on another thread; if it has not returned within the deadline it is blocked in
// open() on `fifo`: a writer then unblocks it and the test fails.
Status read_with_deadline(const std::string& fifo) {
  auto done = std::async(std::launch::async, [fifo] {
    std::vector<uint8_t> out;
    return read_regular_file(fifo, out, 1 << 20);
  });
  if (done.wait_for(std::chrono::seconds(5)) == std::future_status::timeout) {
    const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0) ::close(w);
    done.wait();
    ADD_FAILURE() << "read_regular_file blocked on a FIFO";
  }
  return done.get();
}

TEST_F(FileTest, ReadsARegularFileAndFollowsSymlinksToOne) {
  write("a.bin", std::string("ab\0cd", 5));
  fs::create_symlink(dir_ / "a.bin", dir_ / "link.bin");
  for (const char* name : {"a.bin", "link.bin"}) {
    std::vector<uint8_t> out(100, 7);
    ASSERT_TRUE(read_regular_file(path(name), out, 1 << 20).ok()) << name;
    EXPECT_EQ(out, (std::vector<uint8_t>{'a', 'b', 0, 'c', 'd'}));
  }
  std::string text;
  ASSERT_TRUE(read_regular_file(path("a.bin"), text, 5).ok());
  EXPECT_EQ(text.size(), 5u);
}

TEST_F(FileTest, AFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  const Status s = read_with_deadline(path("fifo"));
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("is a FIFO"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(path("fifo")), std::string::npos);
}

TEST_F(FileTest, FoldersSocketsDevicesAndMissingFilesAreRefusedByKind) {
  fs::create_directories(dir_ / "sub");
  std::vector<uint8_t> out;
  Status s = read_regular_file(path("sub"), out, 1 << 20);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("is a folder"), std::string::npos) << s.message();

  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock_path = path("sock");
  ASSERT_LT(sock_path.size(), sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  s = read_regular_file(sock_path, out, 1 << 20);
  ::close(sock);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("is a socket"), std::string::npos) << s.message();

  s = read_regular_file("/dev/zero", out, 1 << 20);  // endless if it were read
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("character device"), std::string::npos) << s.message();

  s = read_regular_file(path("missing"), out, 1 << 20);
  EXPECT_EQ(s.code(), Code::kNotFound);
}

TEST_F(FileTest, AFileOverTheLimitIsRefusedBeforeReading) {
  write("big", std::string(1000, 'x'));
  std::vector<uint8_t> out;
  const Status s = read_regular_file(path("big"), out, 999);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("over the limit"), std::string::npos) << s.message();
  EXPECT_EQ(out.capacity(), 0u);
}

TEST_F(FileTest, OnlyAbsentOrRegularFilesAreReplaceable) {
  write("reg", "x");
  EXPECT_TRUE(check_replaceable(path("absent"), false).ok());
  EXPECT_TRUE(check_replaceable(path("reg"), true).ok());
  EXPECT_NE(check_replaceable(path("reg"), false).message().find("exists"), std::string::npos);
  fs::create_symlink(dir_ / "reg", dir_ / "link");
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  fs::create_directories(dir_ / "sub");
  for (const char* name : {"link", "fifo", "sub"}) {
    const Status s = check_replaceable(path(name), true);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << name;
    EXPECT_NE(s.message().find("refusing to replace"), std::string::npos) << s.message();
  }
  EXPECT_EQ(check_replaceable("/dev/null", true).code(), Code::kInvalidArgument);
}

TEST_F(FileTest, AnEmptyOutputPathIsRefusedBeforeAnythingIsMade) {
  // lstat("") fails with ENOENT, which once read as "free to create": a build then ran to its
  // end and failed only at the rename.
  for (bool overwrite : {false, true}) {
    const Status s = check_replaceable("", overwrite);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.to_string();
    EXPECT_NE(s.message().find("empty"), std::string::npos) << s.message();
  }
}

TEST_F(FileTest, RenameIntoPlaceReplacesARegularFileButNeverALinkOrAFifo) {
  write("old", "old");
  write("target", "target");
  fs::create_symlink(dir_ / "target", dir_ / "link");
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  auto fresh = [&](const std::string& content) {
    Result<TempFile> t = create_temp_beside(path("out"), 0644);
    EXPECT_TRUE(t.has_value());
    EXPECT_EQ(::write(t->fd.get(), content.data(), content.size()),
              static_cast<ssize_t>(content.size()));
    return t->path;
  };
  const std::string a = fresh("new");
  EXPECT_TRUE(rename_into_place(a, path("old"), true).ok());
  std::string got;
  ASSERT_TRUE(read_regular_file(path("old"), got, 100).ok());
  EXPECT_EQ(got, "new");
  for (const char* name : {"link", "fifo"}) {
    const std::string b = fresh("evil");
    EXPECT_EQ(rename_into_place(b, path(name), true).code(), Code::kInvalidArgument) << name;
    fs::remove(b);
  }
  ASSERT_TRUE(read_regular_file(path("target"), got, 100).ok());
  EXPECT_EQ(got, "target");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link"));
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
  const std::string c = fresh("c");
  EXPECT_EQ(rename_into_place(c, path("old"), false).code(),
            Code::kInvalidArgument);  // exists, no overwrite
}

TEST_F(FileTest, TemporaryNamesAreFreshAndUnguessable) {
  Result<TempFile> a = create_temp_beside(path("out"), 0600);
  Result<TempFile> b = create_temp_beside(path("out"), 0600);
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_NE(a->path, b->path);
  const std::string prefix = path("out") + ".tmp-" + std::to_string(::getpid()) + "-";
  EXPECT_EQ(a->path.compare(0, prefix.size(), prefix), 0) << a->path;
  EXPECT_EQ(a->path.size(), prefix.size() + 16);
  struct stat st;
  ASSERT_EQ(::stat(a->path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u);  // created with the mode asked for, not widened later
}

}  // namespace
}  // namespace textfeed
