// Annotations written by a careless or hostile hand: CR-only line ends, coordinates that overflow
// float32, UTF-16 files, NUL bytes, entries that are folders or FIFOs, names that are folders,
// floods of words. Each is read correctly or listed as a bad record with its file and reason;
// nothing blocks, and nothing reaches the targets as an infinity.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include "base/log.h"
#include "loader/readers/dataset.h"
#include "loader/readers/detail/json_syntax.h"
#include "loader/sources/source.h"
#include "tests/loader/test_images.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::write_text;

class HostileReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root() / "images");
    fs::create_directories(root() / "gt");
  }
  const fs::path& root() const { return dir_.path(); }
  void image(const std::string& name) { write_text(root() / "images" / name, "x"); }
  static const SampleRecord* find(const Dataset& ds, const std::string& image) {
    for (const SampleRecord& s : ds.samples)
      if (s.image == image) return &s;
    return nullptr;
  }
  // The bad records whose file contains `file` and reason contains `why`.
  static int bad(const Dataset& ds, const std::string& file, const std::string& why) {
    int n = 0;
    for (const BadRecord& b : ds.bad)
      n += b.file.find(file) != std::string::npos && b.reason.find(why) != std::string::npos;
    return n;
  }
  static std::string all_bad(const Dataset& ds) {
    std::string s;
    for (const BadRecord& b : ds.bad)
      s += b.file + ":" + std::to_string(b.line) + ": " + b.reason + "\n";
    return s;
  }
  // read_icdar15 on another thread, failing (not hanging) if it blocks on a FIFO.
  Result<Dataset> read_icdar_with_deadline() {
    auto done =
        std::async(std::launch::async, [this] { return read_icdar15(root().string(), {}); });
    if (done.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
      ADD_FAILURE() << "the reader blocked";
      for (const auto& e : fs::recursive_directory_iterator(root()))
        if (e.is_fifo()) {
          const int w = ::open(e.path().c_str(), O_WRONLY | O_NONBLOCK);
          if (w >= 0) ::close(w);
        }
    }
    return done.get();
  }
  ScratchDir dir_;
};

const char kWord[] = "1,2,30,2,30,20,1,20,";

TEST_F(HostileReaderTest, CrOnlyLfAndCrLfLineEndsAllSplitLines) {
  image("a.jpg");
  write_text(root() / "gt" / "gt_a.txt", std::string(kWord) + "one\r" + kWord + "two\n" + kWord +
                                             "three\r\n" + kWord + "four\r");
  auto ds = read_icdar15(root().string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  const SampleRecord* a = find(*ds, "images/a.jpg");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->texts.size(), 4u) << all_bad(*ds);
  EXPECT_EQ(a->texts[0], "one");
  EXPECT_EQ(a->texts[1], "two");
  EXPECT_EQ(a->texts[2], "three");
  EXPECT_EQ(a->texts[3], "four");
  EXPECT_EQ(a->lines, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_TRUE(ds->bad.empty()) << all_bad(*ds);
}

TEST_F(HostileReaderTest, IcdarCoordinatesBeyondFloat32AreBadLinesNotInfinities) {
  image("a.jpg");
  write_text(root() / "gt" / "gt_a.txt",
             std::string(kWord) + "ok\n" + "1e39,2,30,2,30,20,1,20,big\n" +
                 "1,2,30,-1e300,30,20,1,20,huge\n" + "1,2,30,2,30,20,1,3.4e38,edge\n");
  auto ds = read_icdar15(root().string(), {});
  ASSERT_TRUE(ds.has_value());
  const SampleRecord* a = find(*ds, "images/a.jpg");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->quads.size(), 2u);  // "ok" and 3.4e38 (finite in float32)
  for (const Quad& q : a->quads)
    for (float v : q.xy) EXPECT_TRUE(std::isfinite(v));
  EXPECT_EQ(bad(*ds, "gt_a.txt", "out of range of a 32-bit float"), 2) << all_bad(*ds);
}

TEST_F(HostileReaderTest, UfoCoordinatesBeyondFloat32AreBadWords) {
  write_text(root() / "ufo" / "train.json",
             R"({"images": {"a.jpg": {"words": {
                 "1": {"points": [[1e39, 2], [30, 2], [30, 20], [1, 20]]},
                 "2": {"points": [[1, 2], [30, -1e300], [30, 20], [1, 20]]},
                 "3": {"points": [[1, 2], [30, 2], [30, 20], [1, 20]]}}}}})");
  auto ds = read_ufo(root().string(), (root() / "ufo" / "train.json").string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 1u);
  ASSERT_EQ(ds->samples[0].quads.size(), 1u);
  for (float v : ds->samples[0].quads[0].xy) EXPECT_TRUE(std::isfinite(v));
  EXPECT_EQ(bad(*ds, "train.json", "out of range of a 32-bit float"), 2) << all_bad(*ds);
}

TEST_F(HostileReaderTest, Utf16AndUtf32GtFilesAreRefusedByName) {
  image("a.jpg");
  image("b.jpg");
  std::string utf16 = "\xFF\xFE";
  for (char c : std::string(kWord) + "w\r\n") utf16 += std::string{c, '\0'};
  write_text(root() / "gt" / "gt_a.txt", utf16);
  write_text(root() / "gt" / "gt_b.txt",
             std::string("\xFF\xFE\0\0", 4) + std::string("1\0\0\0", 4));
  auto ds = read_icdar15(root().string(), {});
  ASSERT_TRUE(ds.has_value());
  EXPECT_EQ(find(*ds, "images/a.jpg"), nullptr);  // left out, not kept with no words
  EXPECT_EQ(bad(*ds, "gt_a.txt", "is UTF-16 text"), 1) << all_bad(*ds);
  EXPECT_EQ(bad(*ds, "gt_b.txt", "is UTF-32 text"), 1) << all_bad(*ds);
}

TEST_F(HostileReaderTest, NulBytesInATranscriptionAreBadRecords) {
  image("a.jpg");
  write_text(root() / "gt" / "gt_a.txt",
             std::string(kWord) + "ok\n" + kWord + std::string("a\0b", 3) + "\n");
  auto ds = read_icdar15(root().string(), {});
  ASSERT_TRUE(ds.has_value());
  ASSERT_EQ(find(*ds, "images/a.jpg")->texts, (std::vector<std::string>{"ok"}));
  EXPECT_EQ(bad(*ds, "gt_a.txt", "NUL"), 1) << all_bad(*ds);
  write_text(
      root() / "ufo" / "train.json",
      R"({"images": {"a.jpg": {"words": {"1": {"points": [[1, 2], [30, 2], [30, 20], [1, 20]],
                 "transcription": "a\u0000b"}}}}})");
  auto ufo = read_ufo(root().string(), (root() / "ufo" / "train.json").string(), {});
  ASSERT_TRUE(ufo.has_value());
  EXPECT_TRUE(ufo->samples[0].quads.empty());
  EXPECT_EQ(bad(*ufo, "train.json", "NUL"), 1) << all_bad(*ufo);
}

TEST_F(HostileReaderTest, FoldersAndFifosNamedLikeImagesOrGtFilesAreSaidNotSkipped) {
  fs::create_directories(root() / "images" / "dir.jpg");
  ASSERT_EQ(::mkfifo((root() / "images" / "fifo.jpg").c_str(), 0600), 0);
  image("a.jpg");
  image("b.jpg");
  fs::create_directories(root() / "gt" / "gt_a.txt");
  ASSERT_EQ(::mkfifo((root() / "gt" / "gt_b.txt").c_str(), 0600), 0);
  auto ds = read_icdar_with_deadline();
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_TRUE(ds->samples.empty()) << "a.jpg and b.jpg must be left out, not kept with no words";
  EXPECT_EQ(bad(*ds, "images/dir.jpg", "is a folder"), 1) << all_bad(*ds);
  EXPECT_EQ(bad(*ds, "images/fifo.jpg", "is a FIFO"), 1) << all_bad(*ds);
  EXPECT_EQ(bad(*ds, "gt/gt_a.txt", "is a folder"), 1) << all_bad(*ds);
  EXPECT_EQ(bad(*ds, "gt/gt_b.txt", "is a FIFO"), 1) << all_bad(*ds);
}

TEST_F(HostileReaderTest, AUfoFileThatIsAFifoIsRefusedWithoutBlocking) {
  fs::create_directories(root() / "ufo");
  const fs::path fifo = root() / "ufo" / "train.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto done =
      std::async(std::launch::async, [&] { return read_ufo(root().string(), fifo.string(), {}); });
  if (done.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
    ADD_FAILURE() << "read_ufo blocked on a FIFO";
    const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0) ::close(w);
  }
  const Result<Dataset> ds = done.get();
  ASSERT_FALSE(ds.has_value());
  EXPECT_NE(ds.error().message().find("is a FIFO"), std::string::npos) << ds.error().to_string();
  const Result<Dataset> opened = open_dataset(fifo.string(), {});
  ASSERT_FALSE(opened.has_value());
  EXPECT_NE(opened.error().message().find(fifo.string()), std::string::npos);
}

TEST_F(HostileReaderTest, UfoNamesThatAreFoldersAreLeftOut) {
  fs::create_directories(root() / "images" / "sub");
  write_text(root() / "ufo" / "train.json",
             R"({"images": {".": {"words": {}}, "sub/": {"words": {}}, "sub/..": {"words": {}},
                            "ok.jpg": {"words": {}}}})");
  auto ds = read_ufo(root().string(), (root() / "ufo" / "train.json").string(), {});
  ASSERT_TRUE(ds.has_value());
  ASSERT_EQ(ds->samples.size(), 1u) << all_bad(*ds);
  EXPECT_EQ(ds->samples[0].image, "images/ok.jpg");
  EXPECT_EQ(bad(*ds, "train.json", "names a folder"), 3) << all_bad(*ds);
}

// Issue 30 #6: a name that is lexically a file but a folder (or FIFO) on disk is left out too.
TEST_F(HostileReaderTest, UfoNamesThatAreFoldersOnDiskAreLeftOut) {
  image("ok.jpg");
  fs::create_directories(root() / "images" / "dir.jpg");
  ASSERT_EQ(::mkfifo((root() / "images" / "fifo.jpg").c_str(), 0600), 0);
  write_text(
      root() / "ufo" / "train.json",
      R"({"images": {"dir.jpg": {"words": {}}, "fifo.jpg": {"words": {}}, "ok.jpg": {"words": {}}}})");
  auto ds = read_ufo(root().string(), (root() / "ufo" / "train.json").string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 1u) << all_bad(*ds);
  EXPECT_EQ(ds->samples[0].image, "images/ok.jpg");
  EXPECT_EQ(bad(*ds, "train.json", "image 'dir.jpg' names a folder, not an image file; left out"),
            1)
      << all_bad(*ds);
  EXPECT_EQ(bad(*ds, "train.json", "image 'fifo.jpg' names a FIFO, not an image file; left out"), 1)
      << all_bad(*ds);
}

TEST_F(HostileReaderTest, AFloodOfWordsLeavesTheImageOut) {
  image("a.jpg");
  std::string gt;
  for (size_t i = 0; i <= 65536; ++i) gt += kWord + std::string("w\n");
  write_text(root() / "gt" / "gt_a.txt", gt);
  auto ds = read_icdar15(root().string(), {});
  ASSERT_TRUE(ds.has_value());
  EXPECT_EQ(find(*ds, "images/a.jpg"), nullptr);
  EXPECT_EQ(bad(*ds, "gt_a.txt", "more than 65536 words"), 1) << all_bad(*ds);

  std::string json = R"({"images": {"a.jpg": {"words": {)";
  for (size_t i = 0; i <= 65536; ++i)
    json += (i ? ",\"" : "\"") + std::to_string(i) +
            R"(": {"points": [[1, 2], [30, 2], [30, 20], [1, 20]]})";
  write_text(root() / "ufo" / "train.json", json + "}}}}");
  auto ufo = read_ufo(root().string(), (root() / "ufo" / "train.json").string(), {});
  ASSERT_TRUE(ufo.has_value()) << ufo.error().to_string();
  EXPECT_TRUE(ufo->samples.empty());
  EXPECT_EQ(bad(*ufo, "train.json", "more than the limit of 65536"), 1) << all_bad(*ufo);
}

TEST_F(HostileReaderTest, UfoDuplicateKeysAreReportedNotReadOneWay) {
  // simdjson's lookup takes the first of duplicate keys, Python's json the last: neither is read.
  const fs::path json = root() / "ufo" / "train.json";
  write_text(json, R"({"images": {
      "a.jpg": {"words": {"1": {"points": [[1, 2], [30, 2], [30, 20], [1, 20]]},
                          "2": {"points": [[1, 2], [30, 2], [30, 20], [1, 20]], "points": [[5, 5], [9, 5], [9, 9], [5, 9]]},
                          "1": {"points": [[2, 2], [30, 2], [30, 20], [2, 20]], "transcription": "dup"},
                          "3": {"points": [[1, 2], [30, 2], [30, 20], [1, 20]], "illegibility": false, "illegibility": true}}},
      "b.jpg": {"words": {}, "words": {"1": {"points": [[1, 2], [30, 2], [30, 20], [1, 20]]}}}}})");
  auto ds = read_ufo(root().string(), json.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 1u) << all_bad(*ds);
  ASSERT_EQ(ds->samples[0].quads.size(), 1u) << all_bad(*ds);  // only the first word '1'
  EXPECT_EQ(ds->samples[0].quads[0].xy[0], 1.f);
  EXPECT_EQ(bad(*ds, "train.json", "image 'a.jpg' word '1' appears twice; the second is left out"),
            1)
      << all_bad(*ds);
  EXPECT_EQ(bad(*ds, "train.json", "image 'a.jpg' word '2': has the key 'points' twice"), 1)
      << all_bad(*ds);
  EXPECT_EQ(bad(*ds, "train.json", "image 'a.jpg' word '3': has the key 'illegibility' twice"), 1)
      << all_bad(*ds);
  EXPECT_EQ(bad(*ds, "train.json", "image 'b.jpg' has the key 'words' twice; left out"), 1)
      << all_bad(*ds);

  write_text(json, R"({"images": {"a.jpg": {"words": {}}}, "images": {}})");
  auto twice = read_ufo(root().string(), json.string(), {});
  ASSERT_FALSE(twice.has_value());
  EXPECT_EQ(twice.error().code(), Code::kCorrupt);
  EXPECT_NE(twice.error().message().find("'images' appears twice"), std::string::npos)
      << twice.error().message();
}

TEST_F(HostileReaderTest, UfoNumbersBeyondRangeDeepNestingAndUtf16AreRefusedWithWhere) {
  const fs::path json = root() / "ufo" / "train.json";
  const std::string head = R"({"images": {"a.jpg": {"words": {"1": {"points": [[)";  // 50 bytes
  for (const char* number : {"1e400", "-2.5E+309", "18446744073709551616", "-9223372036854775809",
                             "123456789012345678901234567890"}) {
    write_text(json, head + number + R"(, 2], [30, 2], [30, 20], [1, 20]]}}}}})");
    auto ds = read_ufo(root().string(), json.string(), {});
    ASSERT_FALSE(ds.has_value()) << number;
    EXPECT_EQ(ds.error().code(), Code::kCorrupt);
    EXPECT_NE(
        ds.error().message().find("at byte " + std::to_string(head.size()) + " (line 1, column " +
                                  std::to_string(head.size() + 1) + "): number out of range"),
        std::string::npos)
        << ds.error().message();
  }
  // What simdjson accepts the scanner accepts: the largest integers, and underflow to zero.
  EXPECT_FALSE(internal::find_json_syntax_error(
      "[18446744073709551615, -9223372036854775808, 1e-400, 1.7e308]"));

  write_text(json, R"({"images": {"a.jpg": {"words": )" + std::string(5000, '[') +
                       std::string(5000, ']') + "}}}");
  auto deep = read_ufo(root().string(), json.string(), {});
  ASSERT_FALSE(deep.has_value());
  EXPECT_EQ(deep.error().code(), Code::kCorrupt);
  EXPECT_NE(deep.error().message().find("nested deeper than"), std::string::npos)
      << deep.error().message();
  EXPECT_NE(deep.error().message().find("at byte "), std::string::npos) << deep.error().message();

  for (const std::string& bom :
       {std::string("\xFF\xFE"), std::string("\xFE\xFF"), std::string("\xFF\xFE\0\0", 4)}) {
    write_text(json, bom + "{}");
    auto utf = read_ufo(root().string(), json.string(), {});
    ASSERT_FALSE(utf.has_value());
    EXPECT_EQ(utf.error().code(), Code::kInvalidArgument);
    EXPECT_NE(utf.error().message().find("train.json is UTF-"), std::string::npos)
        << utf.error().message();
  }
}

TEST_F(HostileReaderTest, ASourceSaysEveryRecordItsReaderLeftOut) {
  // serve, bench, show and the Python Loader open datasets through SampleSource: what the reader
  // left out reaches their log with its file, line and reason, not only `textfeed inspect`.
  image("a.jpg");
  image("b.jpg");
  write_text(root() / "gt" / "gt_a.txt",
             std::string(kWord) + "ok\nnan,2,30,2,30,20,1,20,x\n" + kWord + "ok\n1,2,3\n");
  std::string many;
  for (int i = 0; i < 150; ++i) many += "x,2,30,2,30,20,1,20,x\n";
  write_text(root() / "gt" / "gt_b.txt", many);
  std::vector<std::string> lines;
  set_log_sink([&](LogLevel level, std::string_view m) {
    if (level == LogLevel::kWarning) lines.emplace_back(m);
  });
  auto source = SampleSource::open(root().string(), {});
  set_log_sink(nullptr);
  ASSERT_TRUE(source.has_value()) << source.error().to_string();
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  EXPECT_NE(all.find("152 annotation record(s) left out"), std::string::npos) << all;
  EXPECT_NE(all.find("gt/gt_a.txt:2: coordinate 1 is not a finite number: 'nan'"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("gt/gt_a.txt:4: expected 8 coordinates, found 3 fields"), std::string::npos)
      << all;
  EXPECT_NE(all.find("gt/gt_b.txt:98: coordinate 1"), std::string::npos) << all;
  EXPECT_EQ(all.find("gt/gt_b.txt:99: "), std::string::npos) << "past the first 100, only a count";
  EXPECT_NE(all.find("... and 52 more annotation record(s)"), std::string::npos) << all;
  // A dataset read with nothing left out logs nothing.
  write_text(root() / "gt" / "gt_a.txt", std::string(kWord) + "ok\n");
  write_text(root() / "gt" / "gt_b.txt", std::string(kWord) + "ok\n");
  lines.clear();
  set_log_sink([&](LogLevel level, std::string_view m) {
    if (level == LogLevel::kWarning) lines.emplace_back(m);
  });
  ASSERT_TRUE(SampleSource::open(root().string(), {}).has_value());
  set_log_sink(nullptr);
  EXPECT_TRUE(lines.empty()) << lines[0];
}

TEST_F(HostileReaderTest, AnOversizedGtFileIsRefusedBeforeReading) {
  image("a.jpg");
  const fs::path gt = root() / "gt" / "gt_a.txt";
  write_text(gt, kWord);
  fs::resize_file(gt, (uint64_t{64} << 20) + 1);  // sparse: costs no disk
  auto ds = read_icdar15(root().string(), {});
  ASSERT_TRUE(ds.has_value());
  EXPECT_EQ(find(*ds, "images/a.jpg"), nullptr);
  EXPECT_EQ(bad(*ds, "gt_a.txt", "over the limit"), 1) << all_bad(*ds);
}

}  // namespace
}  // namespace textfeed::loader
