// Dataset readers: every annotation edge case of TARGETS.md §1 that applies, and the real sample.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "loader/dataset.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;

class ReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("textfeed_reader_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "images");
    fs::create_directories(root_ / "gt");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const fs::path& rel, const std::string& content) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel, std::ios::binary) << content;
  }
  const SampleRecord* find(const Dataset& ds, const std::string& image) {
    for (const auto& s : ds.samples)
      if (s.image == image) return &s;
    return nullptr;
  }
  fs::path root_;
};

TEST_F(ReaderTest, IcdarBomCrlfCommasFloatsAndIgnoreRules) {
  write("images/img_1.jpg", "x");
  write("gt/gt_img_1.txt",
        "\xEF\xBB\xBF" "1,2,30,2,30,20,1,20,Hello, world\r\n"
        "1.5,2.25,30,2,30,20,1,20,###\r\n"
        "1,2,30,2,30,20,1,20,a###b\r\n"
        "\r\n");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 1u);
  const SampleRecord& s = ds->samples[0];
  ASSERT_EQ(s.quads.size(), 3u);
  EXPECT_EQ(s.texts[0], "Hello, world");
  EXPECT_EQ(s.quads[0].xy[0], 1.0f);  // the BOM did not spoil the first number
  EXPECT_EQ(s.quads[1].xy[0], 1.5f);
  EXPECT_EQ(s.quads[1].xy[1], 2.25f);
  EXPECT_EQ(s.labels, (std::vector<unsigned char>{1, 0, 0}));  // substring rule: a###b ignored
  EXPECT_EQ(s.lines, (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(ds->bad.empty());

  ReaderOptions exact;
  exact.ignore_text = IgnoreText::kExact;
  auto ds2 = read_icdar15(root_.string(), exact);
  ASSERT_TRUE(ds2.has_value());
  EXPECT_EQ(ds2->samples[0].labels, (std::vector<unsigned char>{1, 0, 1}));
}

TEST_F(ReaderTest, IcdarPairsByNameNotBySortOrder) {
  // Sorted listings would pair img_10 with gt_img_1; pairing by name must not.
  write("images/img_1.jpg", "x");
  write("images/img_10.jpg", "x");
  write("images/img_2.jpg", "x");
  write("gt/gt_img_1.txt", "0,0,10,0,10,10,0,10,one\n");
  write("gt/gt_img_10.txt", "0,0,10,0,10,10,0,10,ten\n0,0,10,0,10,10,0,10,ten2\n");
  write("gt/gt_img_3.txt", "0,0,10,0,10,10,0,10,three\n");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_TRUE(ds.has_value());
  ASSERT_EQ(ds->samples.size(), 3u);
  EXPECT_EQ(find(*ds, "images/img_1.jpg")->texts, (std::vector<std::string>{"one"}));
  EXPECT_EQ(find(*ds, "images/img_10.jpg")->texts.size(), 2u);
  EXPECT_TRUE(find(*ds, "images/img_2.jpg")->quads.empty());  // kept, no gt
  ASSERT_EQ(ds->bad.size(), 2u);  // gt_img_3 without image, img_2 without gt
  bool orphan_gt = false, orphan_image = false;
  for (const auto& b : ds->bad) {
    orphan_gt |= b.file == "gt/gt_img_3.txt";
    orphan_image |= b.file == "images/img_2.jpg";
  }
  EXPECT_TRUE(orphan_gt && orphan_image);
}

TEST_F(ReaderTest, IcdarBadLinesAreListedAndSkipped) {
  write("images/a.jpg", "x");
  write("gt/gt_a.txt",
        "0,0,10,0,10,10,0,10,ok\n"
        "0,0,10,0,10,10,0\n"        // 7 numbers
        "0,0,ten,0,10,10,0,10,x\n"  // not a number
        "0,0,nan,0,10,10,0,10,x\n"  // not finite
        "5,5,15,5,15,15,5,15,ok2\n");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_TRUE(ds.has_value());
  EXPECT_EQ(ds->samples[0].texts, (std::vector<std::string>{"ok", "ok2"}));
  EXPECT_EQ(ds->samples[0].lines, (std::vector<int>{1, 5}));
  ASSERT_EQ(ds->bad.size(), 3u);
  EXPECT_EQ(ds->bad[0].file, "gt/gt_a.txt");
  EXPECT_EQ(ds->bad[0].line, 2);
  EXPECT_EQ(ds->bad[1].line, 3);
  EXPECT_NE(ds->bad[1].reason.find("ten"), std::string::npos);
  EXPECT_EQ(ds->bad[2].line, 4);
}

TEST_F(ReaderTest, IcdarMissingFoldersAreNotFound) {
  fs::remove_all(root_ / "gt");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_FALSE(ds.has_value());
  EXPECT_EQ(ds.error().code(), Code::kNotFound);
}

constexpr const char* kUfo = R"({"images": {
  "b.jpg": {"img_w": 100, "img_h": 50, "words": {
    "1": {"points": [[0,0],[10,0],[10,5],[0,5]], "transcription": "ok", "illegibility": false, "tags": []},
    "2": {"points": [[0,0],[10,0],[10,5],[0,5]], "transcription": "", "illegibility": true, "tags": null},
    "3": {"points": [[0,0],[10,0],[10,5],[0,5]], "transcription": "m", "illegibility": false, "tags": ["masked"]},
    "4": {"points": [[0,0],[10,0],[20,2],[10,5],[0,5]], "transcription": "five", "illegibility": false, "tags": []},
    "5": {"points": [[0,0],[10,0],[10,5]], "transcription": "tri", "illegibility": false},
    "6": {"points": [[0,0],[0.5,0],[0.5,0.5],[0,0.5]], "transcription": "tiny", "illegibility": false},
    "7": {"points": [[0,0],[3,0],[3,3],[0,3]], "transcription": "small", "illegibility": false}
  }},
  "a.jpg": {"words": {}},
  "../escape.jpg": {"words": {}}
}})";

TEST_F(ReaderTest, UfoSemanticsOfTheReference) {
  write("ufo/train.json", std::string("\xEF\xBB\xBF") + kUfo);  // BOM tolerated
  auto ds = read_ufo(root_.string(), (root_ / "ufo/train.json").string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 2u);  // the escaping name is refused
  EXPECT_EQ(ds->samples[0].image, "images/a.jpg");  // sorted, relative to images/
  const SampleRecord& b = ds->samples[1];
  EXPECT_EQ(b.width, 100);
  EXPECT_EQ(b.height, 50);
  // 1 valid, 2 illegible -> ignored, 3 masked -> background, 4 >4 pts -> skipped, 5 <4 pts -> bad,
  // 6 area 0.25 -> dropped, 7 kept.
  EXPECT_EQ(b.texts, (std::vector<std::string>{"ok", "", "small"}));
  EXPECT_EQ(b.labels, (std::vector<unsigned char>{1, 0, 1}));
  EXPECT_EQ(b.lines, (std::vector<int>{0, 1, 6}));
  int escapes = 0, three_points = 0, tiny = 0;
  for (const auto& r : ds->bad) {
    escapes += r.reason.find("escapes") != std::string::npos;
    three_points += r.reason.find("3 points") != std::string::npos;
    tiny += r.reason.find("drop_under_area") != std::string::npos;
  }
  EXPECT_EQ(escapes, 1);
  EXPECT_EQ(three_points, 1);
  EXPECT_EQ(tiny, 1);
}

TEST_F(ReaderTest, UfoPolygonPoliciesAndIgnoreUnder) {
  write("ufo/train.json", kUfo);
  ReaderOptions o;
  o.poly_policy = PolyPolicy::kMinRect;
  o.ignore_under_area = 10;
  auto ds = read_ufo(root_.string(), (root_ / "ufo/train.json").string(), o);
  ASSERT_TRUE(ds.has_value());
  const SampleRecord& b = ds->samples[1];
  ASSERT_EQ(b.texts, (std::vector<std::string>{"ok", "", "five", "small"}));
  EXPECT_EQ(b.labels, (std::vector<unsigned char>{1, 0, 1, 0}));  // "small" (area 9) now ignored
  // The min-area rectangle of the pentagon covers all of its points.
  const Quad& q = b.quads[2];
  float minx = q.xy[0], maxx = q.xy[0];
  for (int i = 0; i < 4; ++i) {
    minx = std::min(minx, q.x(i));
    maxx = std::max(maxx, q.x(i));
  }
  EXPECT_LE(minx, 0.01f);
  EXPECT_GE(maxx, 19.99f);
  o.poly_policy = PolyPolicy::kMaskIgnore;
  auto ds2 = read_ufo(root_.string(), (root_ / "ufo/train.json").string(), o);
  ASSERT_TRUE(ds2.has_value());
  EXPECT_EQ(ds2->samples[1].labels[2], kLabelIgnored);
}

TEST_F(ReaderTest, UfoMalformedJsonIsCorrupt) {
  write("ufo/train.json", R"({"images": {"a.jpg": )");
  auto ds = read_ufo(root_.string(), (root_ / "ufo/train.json").string(), {});
  ASSERT_FALSE(ds.has_value());
  EXPECT_EQ(ds.error().code(), Code::kCorrupt);
  EXPECT_NE(ds.error().message().find("train.json"), std::string::npos);
  write("ufo/other.json", R"({"pictures": {}})");
  auto ds2 = read_ufo(root_.string(), (root_ / "ufo/other.json").string(), {});
  ASSERT_FALSE(ds2.has_value());
  EXPECT_EQ(ds2.error().code(), Code::kCorrupt);
}

TEST_F(ReaderTest, OpenDatasetDetectsTheFormat) {
  write("images/a.jpg", "x");
  write("gt/gt_a.txt", "0,0,10,0,10,10,0,10,ok\n");
  auto icdar = open_dataset(root_.string(), {});
  ASSERT_TRUE(icdar.has_value());
  EXPECT_EQ(icdar->format, DatasetFormat::kIcdar15);
  write("ufo/train.json", kUfo);
  auto ufo = open_dataset((root_ / "ufo/train.json").string(), {});
  ASSERT_TRUE(ufo.has_value()) << ufo.error().to_string();
  EXPECT_EQ(ufo->format, DatasetFormat::kUfo);
  EXPECT_EQ(ufo->root, root_.string());
  EXPECT_FALSE(open_dataset((root_ / "nope").string(), {}).has_value());
}

TEST(RealSampleTest, BothFormatsAgreeOnTheIcdarSample) {
  const std::string root = std::string(TEXTFEED_SHARED_DIR) + "/data/icdar15-sample";
  auto icdar = read_icdar15(root, {});
  auto ufo = read_ufo(root, root + "/ufo/train.json", {});
  ASSERT_TRUE(icdar.has_value()) << icdar.error().to_string();
  ASSERT_TRUE(ufo.has_value()) << ufo.error().to_string();
  EXPECT_EQ(icdar->samples.size(), 10u);
  EXPECT_EQ(ufo->samples.size(), 10u);
  EXPECT_EQ(icdar->num_words(), 107u);
  EXPECT_EQ(ufo->num_words(), 107u);
  EXPECT_EQ(icdar->num_ignored(), ufo->num_ignored());
  EXPECT_TRUE(icdar->bad.empty());
  EXPECT_TRUE(ufo->bad.empty());
  for (size_t i = 0; i < 10; ++i) {
    ASSERT_EQ(icdar->samples[i].image, ufo->samples[i].image);
    ASSERT_EQ(icdar->samples[i].quads.size(), ufo->samples[i].quads.size());
    for (size_t w = 0; w < icdar->samples[i].quads.size(); ++w)
      EXPECT_EQ(icdar->samples[i].quads[w].xy, ufo->samples[i].quads[w].xy);
  }
}

}  // namespace
}  // namespace textfeed::loader
