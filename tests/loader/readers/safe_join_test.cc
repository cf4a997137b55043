// safe_join: image names never escape the dataset root.
#include <gtest/gtest.h>

#include "loader/readers/dataset.h"

namespace textfeed::loader {
namespace {

TEST(SafeJoinTest, AcceptsNamesInsideTheRoot) {
  auto p = safe_join("/data/set", "images/img_1.jpg");
  ASSERT_TRUE(p.has_value()) << p.error().to_string();
  EXPECT_EQ(*p, "/data/set/images/img_1.jpg");
  auto q = safe_join("/data/set", "images/../images/./img_2.jpg");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(*q, "/data/set/images/img_2.jpg");
}

TEST(SafeJoinTest, RefusesEscapesAndAbsoluteNames) {
  for (const char* bad : {"../etc/passwd", "images/../../x.jpg", "/etc/passwd", ""}) {
    auto r = safe_join("/data/set", bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().code(), Code::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace textfeed::loader
