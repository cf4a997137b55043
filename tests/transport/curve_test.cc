// CurveZMQ key files: written fresh and renamed into place (never through a symlink, over nothing
// but a regular file), read only from regular files (a FIFO never blocks), refused when malformed.
#include "transport/curve.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace textfeed::transport {
namespace {

class CurveKeyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/tmp/textfeed-curve-test-" + std::to_string(::getpid());
    ::mkdir(dir_.c_str(), 0700);
  }
  void TearDown() override {
    for (const char* f : {"/k.key", "/k.pub", "/target", "/fifo"}) ::unlink((dir_ + f).c_str());
    ::rmdir(dir_.c_str());
  }
  std::string dir_;
};

TEST_F(CurveKeyFileTest, AKeyPairRoundTripsWithTheSecretPrivate) {
  auto keys = generate_curve_keypair();
  ASSERT_TRUE(keys.has_value());
  ASSERT_TRUE(write_curve_key_files(dir_ + "/k", *keys, false).ok());
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/k.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto back = read_curve_secret_file(dir_ + "/k.key");
  ASSERT_TRUE(back.has_value()) << back.error().to_string();
  EXPECT_EQ(back->secret_key, keys->secret_key);
  EXPECT_EQ(*read_curve_public_file(dir_ + "/k.pub"), keys->public_key);
  EXPECT_EQ(write_curve_key_files(dir_ + "/k", *keys, false).code(), Code::kInvalidArgument)
      << "exists";
  EXPECT_TRUE(write_curve_key_files(dir_ + "/k", *keys, true).ok());
}

TEST_F(CurveKeyFileTest, ASymlinkAtTheKeyNameIsNeverWrittenThrough) {
  std::ofstream(dir_ + "/target") << "precious\n";
  ASSERT_EQ(::symlink((dir_ + "/target").c_str(), (dir_ + "/k.key").c_str()), 0);
  auto keys = generate_curve_keypair();
  EXPECT_EQ(write_curve_key_files(dir_ + "/k", *keys, true).code(), Code::kInvalidArgument);
  std::string kept;
  std::getline(std::ifstream(dir_ + "/target"), kept);
  EXPECT_EQ(kept, "precious");
}

TEST_F(CurveKeyFileTest, KeyFilesThatAreNotRegularFilesAreRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((dir_ + "/fifo").c_str(), 0600), 0);
  EXPECT_EQ(read_curve_secret_file(dir_ + "/fifo").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(read_curve_public_file(dir_).status().code(), Code::kInvalidArgument) << "a folder";
  EXPECT_EQ(read_curve_public_file(dir_ + "/none").status().code(), Code::kNotFound);
  std::ofstream(dir_ + "/target") << "public = tooshort\n";
  EXPECT_EQ(read_curve_public_file(dir_ + "/target").status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::transport
