// printable / valid_utf8 / the log's escaping: no input text reaches a terminal or a JSON writer
// raw.
#include "base/printable.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/log.h"

namespace textfeed {
namespace {

TEST(PrintableTest, PrintableUtf8PassesUnchanged) {
  EXPECT_EQ(printable("gt_img_1.txt: line 3"), "gt_img_1.txt: line 3");
  EXPECT_EQ(printable("\xED\x95\x9C\xEA\xB8\x80 \xE6\x97\xA5\xE6\x9C\xAC"),
            "\xED\x95\x9C\xEA\xB8\x80 \xE6\x97\xA5\xE6\x9C\xAC");
  EXPECT_EQ(printable("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

TEST(PrintableTest, ControlBytesAndNewlinesAreEscaped) {
  EXPECT_EQ(printable("a\nb"), "a\\nb");
  EXPECT_EQ(printable("a\rb\tc"), "a\\rb\\tc");
  EXPECT_EQ(printable("\x1b[2Jx"), "\\x1b[2Jx");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("\x7f"), "\\x7f");
  EXPECT_EQ(printable("back\\slash"), "back\\\\slash");
  // C1 controls: U+009B is a one-character CSI on some terminals.
  EXPECT_EQ(printable("\xC2\x9B"
                      "2J"),
            "\\xc2\\x9b2J");
  EXPECT_EQ(printable("\xC2\xA0"), "\xC2\xA0");  // U+00A0 is printable
}

TEST(PrintableTest, InvalidUtf8IsEscapedBytewise) {
  EXPECT_EQ(printable("x\xff.jpg"), "x\\xff.jpg");
  EXPECT_EQ(printable("\xC0\xAF"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(printable("\xF4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(printable("\xE6\x97"), "\\xe6\\x97");                    // truncated
}

TEST(PrintableTest, ValidUtf8ReplacesEachBadByte) {
  EXPECT_EQ(valid_utf8("ok \xE6\x97\xA5"), "ok \xE6\x97\xA5");
  EXPECT_EQ(valid_utf8("a\xff"
                       "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(valid_utf8("\xFF\xFE"
                       "a"),
            "\xEF\xBF\xBD\xEF\xBF\xBD"
            "a");
}

TEST(PrintableTest, IsValidUtf8) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("\xE6\x97\xA5"));
  EXPECT_FALSE(
      is_valid_utf8("\xFF\xFE"
                    "a"));
  EXPECT_FALSE(is_valid_utf8("\xE6\x97"));
}

TEST(PrintableTest, LogLinesCannotBeForged) {
  std::vector<std::string> lines;
  set_log_sink([&](LogLevel, std::string_view m) { lines.emplace_back(m); });
  TF_LOG(Warning) << "client 'evil\ntextfeed info: serve: stopped\x1b[31m' said hello";
  set_log_sink(nullptr);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].find('\n'), std::string::npos);
  EXPECT_EQ(lines[0].find('\x1b'), std::string::npos);
  EXPECT_NE(lines[0].find("evil\\ntextfeed info"), std::string::npos);
}

}  // namespace
}  // namespace textfeed
