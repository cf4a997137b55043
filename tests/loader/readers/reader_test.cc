// Dataset readers: every annotation edge case of docs/targets.md §1.1/§1.2 that applies, format
// detection, the JSON error locator, a large UFO file, and the real ICDAR-2015 sample.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include "loader/readers/dataset.h"
#include "loader/readers/detail/json_syntax.h"

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
  static const SampleRecord* find(const Dataset& ds, const std::string& image) {
    for (const auto& s : ds.samples)
      if (s.image == image) return &s;
    return nullptr;
  }
  // How many bad records have `needle` in their reason.
  static int count_bad(const Dataset& ds, const std::string& needle) {
    return static_cast<int>(std::count_if(ds.bad.begin(), ds.bad.end(), [&](const BadRecord& b) {
      return b.reason.find(needle) != std::string::npos;
    }));
  }
  Result<Dataset> ufo(const ReaderOptions& o = {}, const std::string& file = "ufo/train.json") {
    return read_ufo(root_.string(), (root_ / file).string(), o);
  }
  fs::path root_;
};

// ---- ICDAR-2015 -------------------------------------------------------------------------------

TEST_F(ReaderTest, IcdarBomCrlfCommasFloatsAndIgnoreRules) {
  write("images/img_1.jpg", "x");
  write("gt/gt_img_1.txt",
        "\xEF\xBB\xBF"
        "1,2,30,2,30,20,1,20,Hello, world\r\n"
        "1.5,2.25,30,2,30,20,1,20,###\r\n"
        "1,2,30,2,30,20,1,20,a###b\r\n"
        "-1e1, 2 ,30,2,30,20,1,20,*\r\n"
        "\r\n");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 1u);
  const SampleRecord& s = ds->samples[0];
  ASSERT_EQ(s.quads.size(), 4u);
  EXPECT_EQ(s.texts[0], "Hello, world");  // everything after the 8th comma; no CR
  EXPECT_EQ(s.quads[0].xy[0], 1.0f);      // the BOM did not spoil the first number
  EXPECT_EQ(s.quads[1].xy[0], 1.5f);
  EXPECT_EQ(s.quads[1].xy[1], 2.25f);
  EXPECT_EQ(s.quads[3].xy[0], -10.0f);
  EXPECT_EQ(s.quads[3].xy[1], 2.0f);
  EXPECT_EQ(s.annotation, "gt/gt_img_1.txt");
  EXPECT_EQ(s.labels, (std::vector<unsigned char>{1, 0, 0, 1}));  // substring: a###b ignored
  EXPECT_EQ(s.lines, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_TRUE(ds->bad.empty());  // a trailing blank line is the usual ending

  ReaderOptions exact;
  exact.ignore_text = IgnoreText::kExact;
  auto ds2 = read_icdar15(root_.string(), exact);
  ASSERT_TRUE(ds2.has_value());
  EXPECT_EQ(ds2->samples[0].labels, (std::vector<unsigned char>{1, 0, 1, 0}));  // "*" ignored
}

TEST_F(ReaderTest, IcdarBomAtLineStartAndLfOnly) {
  write("images/a.png", "x");
  write("gt/gt_a.txt",
        "0,0,10,0,10,10,0,10,one\n\xEF\xBB\xBF"
        "5,5,9,5,9,9,5,9,two");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_TRUE(ds.has_value());
  EXPECT_EQ(ds->samples[0].texts, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(ds->samples[0].quads[1].xy[0], 5.0f);
  EXPECT_TRUE(ds->bad.empty());
}

TEST_F(ReaderTest, IcdarPairsByNameNotBySortOrder) {
  // Sorted listings would pair img_10 with gt_img_1 and img_2 with gt_img_10; by name they don't.
  write("images/img_1.jpg", "x");
  write("images/img_10.jpg", "x");
  write("images/img_2.JPG", "x");
  write("images/notes.txt", "not an image");
  write("gt/gt_img_1.txt", "0,0,10,0,10,10,0,10,one\n");
  write("gt/gt_img_10.txt", "0,0,10,0,10,10,0,10,ten\n0,0,10,0,10,10,0,10,ten2\n");
  write("gt/gt_img_3.txt", "0,0,10,0,10,10,0,10,three\n");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_TRUE(ds.has_value());
  ASSERT_EQ(ds->samples.size(), 3u);
  EXPECT_EQ(ds->samples[0].image, "images/img_1.jpg");  // sorted by image path
  EXPECT_EQ(ds->samples[1].image, "images/img_10.jpg");
  EXPECT_EQ(ds->samples[2].image, "images/img_2.JPG");
  EXPECT_EQ(find(*ds, "images/img_1.jpg")->texts, (std::vector<std::string>{"one"}));
  EXPECT_EQ(find(*ds, "images/img_10.jpg")->texts.size(), 2u);
  EXPECT_TRUE(find(*ds, "images/img_2.JPG")->quads.empty());  // kept, without gt
  ASSERT_EQ(ds->bad.size(), 2u);  // gt_img_3 without image, img_2 without gt
  bool orphan_gt = false, orphan_image = false;
  for (const auto& b : ds->bad) {
    orphan_gt |= b.file == "gt/gt_img_3.txt" && b.line == 0;
    orphan_image |= b.file == "images/img_2.JPG" && b.line == 0;
  }
  EXPECT_TRUE(orphan_gt && orphan_image);
}

TEST_F(ReaderTest, IcdarBadLinesAreListedAndSkipped) {
  write("images/a.jpg", "x");
  write("gt/gt_a.txt",
        "0,0,10,0,10,10,0,10,ok\n"
        "0,0,10,0,10,10,0\n"        // 2: 7 numbers
        "0,0,ten,0,10,10,0,10,x\n"  // 3: not a number
        "0,0,nan,0,10,10,0,10,x\n"  // 4: not finite
        "\n"                        // 5: empty line inside the file
        "0,0,inf,0,10,10,0,10,x\n"  // 6: not finite
        "0,0,,0,10,10,0,10,x\n"     // 7: empty field
        "5,5,15,5,15,15,5,15,ok2\n"
        "\n\n");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_TRUE(ds.has_value());
  EXPECT_EQ(ds->samples[0].texts, (std::vector<std::string>{"ok", "ok2"}));
  EXPECT_EQ(ds->samples[0].lines, (std::vector<int>{1, 8}));
  ASSERT_EQ(ds->bad.size(), 6u);
  const int want_lines[] = {2, 3, 4, 5, 6, 7};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(ds->bad[i].file, "gt/gt_a.txt");
    EXPECT_EQ(ds->bad[i].line, want_lines[i]);
    EXPECT_FALSE(ds->bad[i].reason.empty());
  }
  EXPECT_NE(ds->bad[0].reason.find("8 coordinates"), std::string::npos);
  EXPECT_NE(ds->bad[1].reason.find("ten"), std::string::npos);
  EXPECT_EQ(ds->bad[3].reason, "empty line");
}

TEST_F(ReaderTest, IcdarEightNumbersWithoutText) {
  write("images/a.jpg", "x");
  write("gt/gt_a.txt", "0,0,10,0,10,10,0,10\n0,0,10,0,10,10,0,10,\n");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_TRUE(ds.has_value());
  EXPECT_EQ(ds->samples[0].texts, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(ds->samples[0].labels, (std::vector<unsigned char>{1, 1}));
}

TEST_F(ReaderTest, IcdarMissingFoldersAreNotFound) {
  fs::remove_all(root_ / "gt");
  auto ds = read_icdar15(root_.string(), {});
  ASSERT_FALSE(ds.has_value());
  EXPECT_EQ(ds.error().code(), Code::kNotFound);
}

TEST_F(ReaderTest, InvalidOptionsAreRefused) {
  ReaderOptions o;
  o.drop_under_area = -1;
  EXPECT_EQ(read_icdar15(root_.string(), o).error().code(), Code::kInvalidArgument);
  o = {};
  o.images_dir = "../elsewhere";
  EXPECT_EQ(read_icdar15(root_.string(), o).error().code(), Code::kInvalidArgument);
  write("ufo/train.json", R"({"images": {}})");
  o = {};
  o.ignore_under_area = std::nan("");
  EXPECT_EQ(ufo(o).error().code(), Code::kInvalidArgument);
}

// ---- UFO ---------------------------------------------------------------------------------------

constexpr const char* kUfo = R"({"images": {
  "b.jpg": {"img_w": 100, "img_h": 50.0, "paragraphs": {}, "words": {
    "1": {"points": [[0,0],[10,0],[10,5],[0,5]], "transcription": "ok", "illegibility": false, "tags": []},
    "2": {"points": [[0,0],[10,0],[10,5],[0,5]], "transcription": null, "illegibility": true, "tags": null},
    "3": {"points": [[0,0],[10,0],[10,5],[0,5]], "transcription": "m", "illegibility": false, "tags": ["masked"]},
    "4": {"points": [[0,0],[10,0],[20,2],[10,5],[0,5]], "transcription": "five", "illegibility": false, "tags": []},
    "5": {"points": [[0,0],[10,0],[10,5]], "transcription": "tri", "illegibility": false},
    "6": {"points": [[0,0],[0.5,0],[0.5,0.5],[0,0.5]], "transcription": "tiny", "illegibility": false},
    "7": {"points": [[0,0],[3,0],[3,3],[0,3]], "transcription": "small", "illegibility": false},
    "8": {"points": [[1,1],[9,1],[9,9],[1,9]], "transcription": "st", "illegibility": false, "tags": ["stamp", "x"]}
  }},
  "a.jpg": {"img_w": 10, "img_h": 10, "words": {}},
  "../escape.jpg": {"words": {}},
  "/etc/abs.jpg": {"words": {}}
}})";

TEST_F(ReaderTest, UfoSemanticsOfTheReference) {
  write("ufo/train.json", std::string("\xEF\xBB\xBF") + kUfo);  // BOM tolerated (utf-8-sig)
  auto ds = ufo();
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->format, ReaderFormat::kUfo);
  ASSERT_EQ(ds->samples.size(), 2u);                // the escaping names are refused
  EXPECT_EQ(ds->samples[0].image, "images/a.jpg");  // sorted, relative to the root
  EXPECT_TRUE(ds->samples[0].quads.empty());        // an empty word list is an image of background
  const SampleRecord& b = ds->samples[1];
  EXPECT_EQ(b.annotation, "ufo/train.json");
  EXPECT_EQ(b.width, 100);
  EXPECT_EQ(b.height, 50);
  // 1 valid, 2 illegible -> ignored, 3 and 8 tagged -> background, 4 >4 pts -> skipped (listed),
  // 5 <4 pts -> bad, 6 area 0.25 -> dropped, 7 kept (ignore_under is off, as the reference).
  EXPECT_EQ(b.texts, (std::vector<std::string>{"ok", "", "small"}));
  EXPECT_EQ(b.labels, (std::vector<unsigned char>{1, 0, 1}));
  EXPECT_EQ(b.lines, (std::vector<int>{0, 1, 6}));
  EXPECT_EQ(b.quads[0].xy, (std::array<float, 8>{0, 0, 10, 0, 10, 5, 0, 5}));
  EXPECT_EQ(count_bad(*ds, "escapes"), 1);
  EXPECT_EQ(count_bad(*ds, "absolute"), 1);
  EXPECT_EQ(count_bad(*ds, "3 points"), 1);
  EXPECT_EQ(count_bad(*ds, "5 points (> 4): skipped"), 1);
  EXPECT_EQ(count_bad(*ds, "drop_under_area"), 1);
  EXPECT_EQ(ds->bad.size(), 5u);  // tagged words are background, not bad records
  for (const BadRecord& r : ds->bad) {
    EXPECT_EQ(r.file, "ufo/train.json");
    if (r.reason.find("3 points") != std::string::npos) {
      EXPECT_EQ(r.line,
                0);  // no line number that is not one: the reason names the image and the word
      EXPECT_NE(r.reason.find("image 'b.jpg' word '5'"), std::string::npos) << r.reason;
    }
  }
}

TEST_F(ReaderTest, UfoPolygonPoliciesAndIgnoreUnder) {
  write("ufo/train.json", kUfo);
  ReaderOptions o;
  o.poly_policy = PolyPolicy::kMinRect;
  o.ignore_under_area = 10;
  auto ds = ufo(o);
  ASSERT_TRUE(ds.has_value());
  const SampleRecord& b = ds->samples[1];
  ASSERT_EQ(b.texts, (std::vector<std::string>{"ok", "", "five", "small"}));
  EXPECT_EQ(b.labels, (std::vector<unsigned char>{1, 0, 1, 0}));  // "small" (area 9) now ignored
  EXPECT_EQ(count_bad(*ds, "skipped"), 0);
  // The min-area rectangle of the pentagon covers all of its points and starts at the top-left.
  const Quad& q = b.quads[2];
  float minx = q.x(0), maxx = q.x(0), miny = q.y(0), maxy = q.y(0);
  for (int i = 0; i < 4; ++i) {
    minx = std::min(minx, q.x(i));
    maxx = std::max(maxx, q.x(i));
    miny = std::min(miny, q.y(i));
    maxy = std::max(maxy, q.y(i));
  }
  EXPECT_LE(minx, 0.01f);
  EXPECT_GE(maxx, 19.99f);
  EXPECT_LE(miny, 0.01f);
  EXPECT_GE(maxy, 4.99f);

  o.poly_policy = PolyPolicy::kMaskIgnore;
  o.ignore_under_area = 0;
  auto ds2 = ufo(o);
  ASSERT_TRUE(ds2.has_value());
  EXPECT_EQ(ds2->samples[1].texts[2], "five");
  EXPECT_EQ(ds2->samples[1].labels, (std::vector<unsigned char>{1, 0, 0, 1}));
}

// Eval returns every word with all its points: also the pentagon that poly policy skip leaves out
// of the quads; not the tagged, malformed or dropped words.
TEST_F(ReaderTest, UfoKeepsEveryWordsOriginalPolygon) {
  write("ufo/train.json", kUfo);
  auto ds = ufo({});
  ASSERT_TRUE(ds.has_value());
  const SampleRecord& b = ds->samples[1];
  ASSERT_EQ(b.quads.size(), 3u);
  EXPECT_EQ(b.poly_points, (std::vector<uint32_t>{4, 4, 5, 4}));
  EXPECT_EQ(b.poly_labels, (std::vector<unsigned char>{1, 0, 1, 1}));
  ASSERT_EQ(b.poly_xy.size(), 2u * (4 + 4 + 5 + 4));
  EXPECT_EQ(std::vector<float>(b.poly_xy.begin(), b.poly_xy.begin() + 8),
            (std::vector<float>{0, 0, 10, 0, 10, 5, 0, 5}));
}

TEST_F(ReaderTest, UfoIgnoreTagsAreAnOption) {
  write("ufo/train.json", kUfo);
  ReaderOptions o;
  o.ignore_tags = {"x"};  // "masked" words now count, the word tagged "stamp" and "x" does not
  auto ds = ufo(o);
  ASSERT_TRUE(ds.has_value());
  EXPECT_EQ(ds->samples[1].texts, (std::vector<std::string>{"ok", "", "m", "small"}));
}

TEST_F(ReaderTest, UfoImagesAtTheRootWithoutImagesFolder) {
  fs::remove_all(root_ / "images");
  write("labels.json", R"({"images": {"sub/./c.jpg": {"words": {
      "w": {"points": [[0,0],[10,0],[10,10],[0,10]], "illegibility": false}}}}})");
  auto ds = ufo({}, "labels.json");
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 1u);
  EXPECT_EQ(ds->samples[0].image, "sub/c.jpg");
  EXPECT_EQ(ds->samples[0].width, 0);  // no img_w given
  EXPECT_EQ(ds->samples[0].annotation, "labels.json");
}

TEST_F(ReaderTest, UfoBadWordsAndImagesAreListed) {
  write("ufo/train.json", R"({"images": {
    "a.jpg": {"words": {"x": 3, "y": {"points": [[0,0],[10,0],["a",1],[0,10]]},
                        "z": {"points": [[0,0],[10,0],[10,10],[0,10]], "illegibility": "yes"}}},
    "b.jpg": {"img_w": 4},
    "c.jpg": [],
    "a.jpg": {"words": {}}
  }})");
  auto ds = ufo();
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 2u);  // a.jpg (first one) and b.jpg
  EXPECT_TRUE(ds->samples[0].quads.empty());
  EXPECT_EQ(count_bad(*ds, "word 'x': is not an object"), 1);
  EXPECT_EQ(count_bad(*ds, "word 'y': a point coordinate is not a number"), 1);
  EXPECT_EQ(count_bad(*ds, "'illegibility' is not true or false"), 1);
  EXPECT_EQ(count_bad(*ds, "no 'words' object; kept with no words"), 1);
  EXPECT_EQ(count_bad(*ds, "image 'c.jpg' is not an object"), 1);
  EXPECT_EQ(count_bad(*ds, "appears twice"), 1);
}

TEST_F(ReaderTest, UfoMalformedJsonIsCorruptWithItsOffset) {
  write("ufo/train.json", "{\"images\": {\"a.jpg\": ");  // truncated
  auto ds = ufo();
  ASSERT_FALSE(ds.has_value());
  EXPECT_EQ(ds.error().code(), Code::kCorrupt);
  EXPECT_NE(ds.error().message().find("train.json"), std::string::npos);
  EXPECT_NE(ds.error().message().find("at byte 21"), std::string::npos) << ds.error().message();

  write("ufo/train.json", "\xEF\xBB\xBF{\"images\": {\n  \"a.jpg\": {\"words\": {},}\n}}");
  ds = ufo();
  ASSERT_FALSE(ds.has_value());
  EXPECT_EQ(ds.error().code(), Code::kCorrupt);
  // The offset counts the BOM: the file's own bytes.
  EXPECT_NE(ds.error().message().find("at byte 40 (line 2, column 25)"), std::string::npos)
      << ds.error().message();

  write("ufo/other.json", R"({"pictures": {}})");
  ds = ufo({}, "ufo/other.json");
  ASSERT_FALSE(ds.has_value());
  EXPECT_EQ(ds.error().code(), Code::kCorrupt);
  EXPECT_NE(ds.error().message().find("'images'"), std::string::npos);

  write("ufo/list.json", "[1, 2]");
  EXPECT_EQ(ufo({}, "ufo/list.json").error().code(), Code::kCorrupt);
  write("ufo/empty.json", "");
  EXPECT_EQ(ufo({}, "ufo/empty.json").error().code(), Code::kCorrupt);
  EXPECT_EQ(ufo({}, "ufo/missing.json").error().code(), Code::kNotFound);
}

TEST(JsonSyntaxTest, LocatesTheFirstError) {
  using internal::find_json_syntax_error;
  EXPECT_FALSE(find_json_syntax_error(R"({"a": [1, -2.5e3, true, null, "\u00e9\n"]} )"));
  EXPECT_FALSE(find_json_syntax_error("\"\xC3\xA9\""));
  struct Case {
    const char* text;
    size_t offset;
  } cases[] = {
      {"", 0},
      {"{", 1},
      {"[1,]", 3},
      {"{\"a\" 1}", 5},
      {"{\"a\":01}", 6},
      {"[1.]", 3},
      {"[tru]", 1},
      {"{} x", 3},
      {"[\"a\nb\"]", 3},
      {"[\"\\x\"]", 2},
      {"[\"abc", 5},
      {"{1:2}", 1},
      {"[\"\xC3\x28\"]", 2},
      {"[\"\xED\xA0\x80\"]", 2},
      {"[1 2]", 3},
      {"{\"a\":1]", 6},
  };
  for (const Case& c : cases) {
    auto e = find_json_syntax_error(c.text);
    ASSERT_TRUE(e.has_value()) << c.text;
    EXPECT_EQ(e->offset, c.offset) << c.text << ": " << e->what;
  }
  auto e = find_json_syntax_error("{\n  \"a\": x}");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->line, 2);
  EXPECT_EQ(e->column, 8);
}

// ---- format detection --------------------------------------------------------------------------

TEST_F(ReaderTest, OpenDatasetDetectsTheFormat) {
  write("images/a.jpg", "x");
  write("gt/gt_a.txt", "0,0,10,0,10,10,0,10,ok\n");
  write("ufo/train.json", kUfo);
  write("ufo/val.json", R"({"images": {}})");
  auto icdar = open_dataset(root_.string(), {});  // gt/ wins over ufo/
  ASSERT_TRUE(icdar.has_value());
  EXPECT_EQ(icdar->format, ReaderFormat::kIcdar15);
  EXPECT_EQ(icdar->root, root_.string());

  auto by_file = open_dataset((root_ / "ufo/val.json").string(), {});  // root = above ufo/
  ASSERT_TRUE(by_file.has_value()) << by_file.error().to_string();
  EXPECT_EQ(by_file->format, ReaderFormat::kUfo);
  EXPECT_EQ(by_file->root, root_.string());
  EXPECT_TRUE(by_file->samples.empty());

  fs::remove_all(root_ / "gt");
  auto by_folder = open_dataset(root_.string(), {});  // several json files: train.json
  ASSERT_TRUE(by_folder.has_value()) << by_folder.error().to_string();
  EXPECT_EQ(by_folder->format, ReaderFormat::kUfo);
  EXPECT_EQ(by_folder->samples.size(), 2u);

  fs::remove(root_ / "ufo/train.json");
  write("ufo/test.json", R"({"images": {}})");
  auto ambiguous = open_dataset(root_.string(), {});
  ASSERT_FALSE(ambiguous.has_value());
  EXPECT_NE(ambiguous.error().message().find("ufo/test.json ufo/val.json"), std::string::npos)
      << ambiguous.error().message();

  write("elsewhere/x.json", R"({"images": {}})");  // not in a ufo/ folder: root = its folder
  auto loose = open_dataset((root_ / "elsewhere/x.json").string(), {});
  ASSERT_TRUE(loose.has_value());
  EXPECT_EQ(loose->root, (root_ / "elsewhere").string());

  EXPECT_EQ(open_dataset((root_ / "nope").string(), {}).error().code(), Code::kNotFound);
  EXPECT_EQ(open_dataset((root_ / "images").string(), {}).error().code(), Code::kInvalidArgument);
  EXPECT_EQ(open_dataset((root_ / "images/a.jpg").string(), {}).error().code(),
            Code::kInvalidArgument);
}

// ---- scale -------------------------------------------------------------------------------------

// A UFO file of TEXTFEED_LARGE_UFO_MB megabytes (default 8) parses; the time is printed, not
// asserted (run with TEXTFEED_LARGE_UFO_MB=100 to measure the 100 MB case).
TEST_F(ReaderTest, UfoLargeFileParses) {
  const char* env = std::getenv("TEXTFEED_LARGE_UFO_MB");
  const size_t target_bytes = static_cast<size_t>(env ? std::atof(env) : 8.0) * 1000 * 1000;
  std::string json = "{\"images\": {";
  size_t images = 0, words = 0;
  const auto num = [&json](int v) { json += std::to_string(v); };
  while (json.size() < target_bytes) {
    json += images ? ",\n\"img_" : "\n\"img_";
    num(static_cast<int>(images++));
    json += ".jpg\": {\"img_w\": 1280, \"img_h\": 720, \"words\": {";
    for (int w = 0; w < 50; ++w, ++words) {
      const int x = 10 * w, y = 7 * w;
      json += w ? ",\"" : "\"";
      num(w);
      json += "\": {\"points\": [[";
      num(x);
      json += ".5, ";
      num(y);
      json += "], [";
      num(x + 40);
      json += ", ";
      num(y);
      json += "], [";
      num(x + 40);
      json += ", ";
      num(y + 12);
      json += ".25], [";
      num(x);
      json += ", ";
      num(y + 12);
      json += "]], \"transcription\": \"word";
      num(w);
      json +=
          "\", \"orientation\": \"Horizontal\", \"language\": [\"en\"], \"tags\": [], "
          "\"confidence\": null, \"illegibility\": ";
      json += w % 7 ? "false}" : "true}";
    }
    json += "}}";
  }
  json += "}}";
  write("ufo/train.json", json);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  auto ds = ufo();
  const double cpu_s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->samples.size(), images);
  EXPECT_EQ(ds->num_words(), words);
  EXPECT_TRUE(ds->bad.empty());
  std::printf("[ info ] UFO %.1f MB, %zu images, %zu words: read in %.3f s wall, %.3f s CPU\n",
              json.size() / 1e6, images, words, s, cpu_s);
}

// ---- the real sample ---------------------------------------------------------------------------

TEST(RealSampleTest, BothFormatsAgreeOnTheIcdarSample) {
  const std::string root = std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample";
  auto icdar = open_dataset(root, {});
  auto ufo = open_dataset(root + "/ufo/train.json", {});
  ASSERT_TRUE(icdar.has_value()) << icdar.error().to_string();
  ASSERT_TRUE(ufo.has_value()) << ufo.error().to_string();
  EXPECT_EQ(icdar->format, ReaderFormat::kIcdar15);
  EXPECT_EQ(ufo->format, ReaderFormat::kUfo);
  EXPECT_EQ(icdar->root, ufo->root);
  EXPECT_EQ(icdar->samples.size(), 10u);
  EXPECT_EQ(ufo->samples.size(), 10u);
  EXPECT_EQ(icdar->num_words(), 82u);  // lines of the gt files (data/icdar15-sample/README.md)
  EXPECT_EQ(ufo->num_words(), 82u);
  EXPECT_EQ(icdar->num_ignored(), 61u);  // those that read `###`
  EXPECT_EQ(icdar->num_ignored(), ufo->num_ignored());
  EXPECT_TRUE(icdar->bad.empty());
  EXPECT_TRUE(ufo->bad.empty());
  for (size_t i = 0; i < 10; ++i) {
    ASSERT_EQ(icdar->samples[i].image, ufo->samples[i].image);
    EXPECT_EQ(ufo->samples[i].width, 1280);
    EXPECT_EQ(ufo->samples[i].height, 720);
    ASSERT_EQ(icdar->samples[i].quads.size(), ufo->samples[i].quads.size());
    for (size_t w = 0; w < icdar->samples[i].quads.size(); ++w) {
      EXPECT_EQ(icdar->samples[i].quads[w].xy, ufo->samples[i].quads[w].xy);
      EXPECT_EQ(icdar->samples[i].labels[w], ufo->samples[i].labels[w]);
    }
  }
}

}  // namespace
}  // namespace textfeed::loader
