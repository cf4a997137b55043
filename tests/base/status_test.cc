// Status and Result: codes, messages, context and the propagation macros.
#include "base/status.h"

#include <gtest/gtest.h>

namespace textfeed {
namespace {

TEST(StatusTest, OkIsDefaultAndCheap) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Code::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.to_string(), "OK");
}

TEST(StatusTest, ErrorsCarryCodeMessageAndContext) {
  Status s = Status::corrupt("bad marker at byte 12");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kCorrupt);
  Status c = s.with_context("images/img_1.jpg");
  EXPECT_EQ(c.message(), "images/img_1.jpg: bad marker at byte 12");
  EXPECT_EQ(c.to_string(), "Corrupt: images/img_1.jpg: bad marker at byte 12");
  EXPECT_EQ(s.message(), "bad marker at byte 12");  // the original is unchanged
  EXPECT_TRUE(Status().with_context("x").ok());
}

TEST(StatusTest, FromErrnoAppendsStrerror) {
  Status s = Status::from_errno("open /nope", ENOENT);
  EXPECT_EQ(s.code(), Code::kIo);
  EXPECT_NE(s.message().find("No such file"), std::string::npos) << s.message();
}

Result<int> parse_positive(int v) {
  if (v <= 0) return Status::invalid_argument("not positive: " + std::to_string(v));
  return v;
}

Status doubled(int v, int* out) {
  TF_ASSIGN_OR_RETURN(int x, parse_positive(v));
  *out = 2 * x;
  return Status();
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> a = parse_positive(3);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(*a, 3);
  Result<int> b = parse_positive(-1);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().code(), Code::kInvalidArgument);
  int out = 0;
  EXPECT_TRUE(doubled(4, &out).ok());
  EXPECT_EQ(out, 8);
  EXPECT_EQ(doubled(0, &out).message(), "not positive: 0");
}

TEST(ResultTest, OkStatusIsNotAValue) {
  Result<int> r{Status()};
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kInternal);
}

}  // namespace
}  // namespace textfeed
