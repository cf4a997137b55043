// Shared memory handed over by descriptor: sealed memory files cannot shrink under a mapping, the
// daemon maps nothing but a sealed memory file of the size it needs, and its inbox takes exactly
// one token and one descriptor per datagram, from its own user.
#include "transport/shm.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace textfeed::transport {
namespace {

std::string scratch_path(const std::string& name) {
  return "/tmp/textfeed-shm-test-" + std::to_string(::getpid()) + "-" + name;
}

// Sends a raw datagram with `fds` to `path`.
void send_raw(const std::string& path, const std::string& data, std::vector<int> fds) {
  const int s = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path.data(), path.size());
  iovec iov{const_cast<char*>(data.data()), data.size()};
  msghdr msg{};
  msg.msg_name = &a;
  msg.msg_namelen = sizeof(a);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * std::max<size_t>(fds.size(), 1)));
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ASSERT_GE(::sendmsg(s, &msg, 0), 0) << std::strerror(errno);
  ::close(s);
}

TEST(ShmTest, ASealedRegionCannotShrinkOrGrow) {
  auto r = ShmRegion::create(1 << 20);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_NE(::ftruncate((*r)->fd(), 0), 0) << "a client could make the daemon fault on its mapping";
  EXPECT_NE(::ftruncate((*r)->fd(), 2 << 20), 0);
  (*r)->data()[(1 << 20) - 1] = 7;
}

TEST(ShmTest, TheDaemonMapsOnlySealedMemoryFilesLargeEnough) {
  auto r = ShmRegion::create(64 << 10);
  ASSERT_TRUE(r.has_value());
  auto mapped = ShmRegion::map_received(FileDescriptor(::dup((*r)->fd())), 64 << 10);
  ASSERT_TRUE(mapped.has_value()) << mapped.error().to_string();
  (*mapped)->data()[100] = 42;
  EXPECT_EQ((*r)->data()[100], 42) << "the same memory";

  auto small = ShmRegion::map_received(FileDescriptor(::dup((*r)->fd())), 128 << 10);
  EXPECT_EQ(small.status().code(), Code::kInvalidArgument);

  const int unsealed = ::memfd_create("unsealed", MFD_CLOEXEC);
  ASSERT_EQ(::ftruncate(unsealed, 64 << 10), 0);
  auto open = ShmRegion::map_received(FileDescriptor(unsealed), 4096);
  EXPECT_EQ(open.status().code(), Code::kInvalidArgument);
  EXPECT_NE(open.status().message().find("F_SEAL_SHRINK"), std::string::npos)
      << open.status().message();

  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ::close(pipe_fds[1]);
  EXPECT_EQ(ShmRegion::map_received(FileDescriptor(pipe_fds[0]), 4096).status().code(),
            Code::kInvalidArgument);

  const std::string file = scratch_path("file");
  const int f = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(f, 0);
  ASSERT_EQ(::ftruncate(f, 64 << 10), 0);
  ::unlink(file.c_str());
  EXPECT_EQ(ShmRegion::map_received(FileDescriptor(f), 4096).status().code(),
            Code::kInvalidArgument)
      << "a file on disk is not a memory file";
  EXPECT_EQ(ShmRegion::map_received(FileDescriptor(::open("/dev/null", O_RDWR | O_CLOEXEC)), 4096)
                .status()
                .code(),
            Code::kInvalidArgument);
}

// A client handed over a sealed, sparse memory file of 4 x 256 MiB that it never touched: the
// daemon's populated mapping allocated all of it on its socket thread (1.5 s per GiB, unbounded
// with a larger stride), in the daemon's name.
TEST(ShmTest, SparseMemoryIsRefusedSoTheDaemonNeverAllocatesIt) {
  const size_t bytes = 16 << 20;
  const int fd = ::memfd_create("sparse", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(bytes)), 0);
  ASSERT_EQ(::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
  auto sparse = ShmRegion::map_received(FileDescriptor(::dup(fd)), bytes);
  EXPECT_EQ(sparse.status().code(), Code::kInvalidArgument);
  EXPECT_NE(sparse.status().message().find("sparse"), std::string::npos)
      << sparse.status().message();
  // Half of it touched: still not what it lends.
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED);
  std::memset(p, 1, bytes / 2);
  EXPECT_EQ(ShmRegion::map_received(FileDescriptor(::dup(fd)), bytes).status().code(),
            Code::kInvalidArgument);
  EXPECT_TRUE(ShmRegion::map_received(FileDescriptor(::dup(fd)), bytes / 2).has_value())
      << "the half it has can be lent";
  std::memset(p, 1, bytes);
  EXPECT_TRUE(ShmRegion::map_received(FileDescriptor(::dup(fd)), bytes).has_value());
  ::munmap(p, bytes);
  ::close(fd);
}

// Issue 30 #5: a file twice the size needed, with only its second half touched, had blocks enough
// for the whole check; the daemon then populated the untouched first half at its own cost.
TEST(ShmTest, AHoleInTheLentRangeIsRefusedWhateverTheFileHoldsElsewhere) {
  const size_t bytes = 8 << 20;
  const int fd = ::memfd_create("holed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(2 * bytes)), 0);
  ASSERT_EQ(::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
  auto* p =
      static_cast<uint8_t*>(::mmap(nullptr, 2 * bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  ASSERT_NE(p, MAP_FAILED);
  std::memset(p + bytes, 1, bytes);  // the second half only
  auto holed = ShmRegion::map_received(FileDescriptor(::dup(fd)), bytes);
  EXPECT_EQ(holed.status().code(), Code::kInvalidArgument);
  EXPECT_NE(holed.status().message().find("hole at byte 0"), std::string::npos)
      << holed.status().message();
  // An untouched end of the range is enough to refuse it (2 MiB, so that huge tmpfs pages, where
  // they are on, leave it a hole too).
  const size_t tail = 2 << 20;
  std::memset(p, 1, bytes - tail);
  auto end = ShmRegion::map_received(FileDescriptor(::dup(fd)), bytes);
  EXPECT_EQ(end.status().code(), Code::kInvalidArgument);
  EXPECT_NE(end.status().message().find("hole at byte " + std::to_string(bytes - tail)),
            std::string::npos)
      << end.status().message();
  EXPECT_TRUE(ShmRegion::map_received(FileDescriptor(::dup(fd)), bytes - tail).has_value());
  std::memset(p, 1, bytes);
  EXPECT_TRUE(ShmRegion::map_received(FileDescriptor(::dup(fd)), bytes).has_value());
  ::munmap(p, 2 * bytes);
  ::close(fd);
}

TEST(ShmTest, TheInboxTakesATokenAndOneDescriptor) {
  const std::string path = scratch_path("inbox");
  auto inbox = MemoryInbox::bind(path);
  ASSERT_TRUE(inbox.has_value()) << inbox.error().to_string();
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  auto r = ShmRegion::create(8192);
  ASSERT_TRUE(r.has_value());
  const MemoryToken token = new_memory_token();
  ASSERT_TRUE(send_memory(path, token, (*r)->fd()).ok());
  size_t refused = 0;
  auto got = (*inbox)->receive(8, &refused);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(refused, 0u);
  EXPECT_EQ(got[0].token, token);
  auto mapped = ShmRegion::map_received(std::move(got[0].fd), 8192);
  ASSERT_TRUE(mapped.has_value()) << mapped.error().to_string();
  (*r)->data()[5] = 9;
  EXPECT_EQ((*mapped)->data()[5], 9);

  // Malformed hand-overs are dropped, their descriptors closed.
  const std::string token_text(reinterpret_cast<const char*>(token.data()), token.size());
  send_raw(path, token_text, {});                         // no descriptor
  send_raw(path, token_text, {(*r)->fd(), (*r)->fd()});   // two
  send_raw(path, token_text + "x", {(*r)->fd()});         // a longer token
  send_raw(path, token_text.substr(0, 8), {(*r)->fd()});  // a shorter one
  got = (*inbox)->receive(8, &refused);
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(refused, 4u);
  EXPECT_TRUE((*inbox)->receive(8, &refused).empty()) << "nothing waits: receive never blocks";

  inbox->reset();
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "the inbox removes its socket";
  EXPECT_EQ(send_memory(path, token, (*r)->fd(), 100).code(), Code::kUnavailable);
}

TEST(ShmTest, TheInboxReplacesOnlyAStaleSocketOfItsOwn) {
  const std::string path = scratch_path("not-a-socket");
  const int f = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(f, 0);
  ::close(f);
  EXPECT_EQ(MemoryInbox::bind(path).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(::access(path.c_str(), F_OK), 0) << "a regular file is never removed";
  ::unlink(path.c_str());
  {  // a daemon that died leaves its socket behind
    const int s = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, path.data(), path.size());
    ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&a), sizeof(a)), 0);
    ::close(s);
  }
  auto again = MemoryInbox::bind(path);
  EXPECT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(MemoryInbox::bind(std::string(200, 'x')).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::transport
