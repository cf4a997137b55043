// The polygon readers (Total-Text, CTW1500, PaddleOCR label files, mmocr json): each reads a small
// sample written here, keeps every word's points, finds its format, and lists malformed records
// with file, line or record, and reason.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "loader/readers/dataset.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;

class PolyReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("textfeed_poly_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
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
  // The bad record whose reason holds `needle`, or nullptr.
  static const BadRecord* bad(const Dataset& ds, const std::string& needle) {
    for (const BadRecord& b : ds.bad)
      if (b.reason.find(needle) != std::string::npos) return &b;
    return nullptr;
  }
  static std::vector<float> points(const SampleRecord& r, size_t word) {
    size_t at = 0;
    for (size_t w = 0; w < word; ++w) at += 2 * r.poly_points[w];
    return {r.poly_xy.begin() + static_cast<long>(at),
            r.poly_xy.begin() + static_cast<long>(at + 2 * r.poly_points[word])};
  }
  fs::path root_;
};

// ---- Total-Text -------------------------------------------------------------------------------

constexpr const char* kTotalText =
    "x: [[115 503 494 115]], y: [[322 346 426 404]], ornt: [u'm'], transcriptions: [u'nauGHTY']\n"
    "x: [[206 251 386 542 620 646 550 358 189\n"
    "  140]], y: [[ 633  811  931  946  926  976 1009  989  845\n"
    "  629]], ornt: [u'c'], transcriptions: [u'#']\n"
    "x: array([[10, 60, 60, 35, 10]], dtype=int16), y: array([[5, 5, 30, 40, 30]], dtype=int16), "
    "ornt: [u'h'], transcriptions: [u\"Joe's\"]\n";

TEST_F(PolyReaderTest, TotalTextKeepsEveryPointAndFindsItsFormat) {
  write("images/img1.jpg", "x");
  write("gt/poly_gt_img1.txt", kTotalText);
  auto ds = open_dataset(root_.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->format, ReaderFormat::kTotalText);
  ASSERT_EQ(ds->samples.size(), 1u);
  const SampleRecord& r = ds->samples[0];
  EXPECT_EQ(r.poly_points, (std::vector<uint32_t>{4, 10, 5}));
  EXPECT_EQ(r.poly_labels, (std::vector<unsigned char>{kLabelValid, kLabelIgnored, kLabelValid}));
  EXPECT_EQ(points(r, 0), (std::vector<float>{115, 322, 503, 346, 494, 426, 115, 404}));
  EXPECT_EQ(points(r, 1)[18], 140);
  EXPECT_EQ(points(r, 1)[19], 629);
  EXPECT_EQ(points(r, 2), (std::vector<float>{10, 5, 60, 5, 60, 30, 35, 40, 10, 30}));
  // poly_policy skip (the default): only the 4-point word is an EAST quad; none is a bad record.
  ASSERT_EQ(r.quads.size(), 1u);
  EXPECT_EQ(r.texts[0], "nauGHTY");
  EXPECT_TRUE(ds->bad.empty()) << ds->bad[0].reason;
  ReaderOptions minrect;
  minrect.poly_policy = PolyPolicy::kMinRect;
  auto all = read_totaltext(root_.string(), minrect);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->samples[0].quads.size(), 3u);
  EXPECT_EQ(all->samples[0].texts[2], "Joe's");
  EXPECT_EQ(all->num_ignored(), 1u);
}

TEST_F(PolyReaderTest, TotalTextMalformedRecordsAreListedWithTheirLine) {
  write("images/img1.jpg", "x");
  write("gt/poly_gt_img1.txt",
        "stray words\n"  // 1: before any record
        "x: [[1 9 9 1]], y: [[1 1 5]], ornt: [u'h'], transcriptions: [u'A']\n"       // 2: 4 x, 3 y
        "x: [[1 9 nan 1]], y: [[1 1 5 5]], ornt: [u'h'], transcriptions: [u'B']\n"   // 3: nan
        "x: [[1 9 9 1]], y: [[1 1 5 5]], ornt: [u'h']\n"                             // 4: no text
        "x: [[1 9]], y: [[1 1]], ornt: [u'h'], transcriptions: [u'C']\n"             // 5: 2 points
        "x: [[1 9 9 1]], y: [[1 1 5 5]], ornt: [u'h'], transcriptions: [u'OK']\n");  // 6
  auto ds = read_totaltext(root_.string(), {});
  ASSERT_TRUE(ds.has_value());
  ASSERT_EQ(ds->samples[0].poly_points.size(), 1u);
  EXPECT_EQ(ds->samples[0].texts[0], "OK");
  const std::vector<std::pair<std::string, int>> want = {{"does not start a record", 1},
                                                         {"4 x but 3 y", 2},
                                                         {"not a finite number", 3},
                                                         {"transcriptions", 4},
                                                         {"2 points", 5}};
  for (const auto& [needle, line] : want) {
    const BadRecord* b = bad(*ds, needle);
    ASSERT_NE(b, nullptr) << needle;
    EXPECT_EQ(b->line, line) << needle;
    EXPECT_EQ(b->file, "gt/poly_gt_img1.txt");
  }
}

// ---- CTW1500 ----------------------------------------------------------------------------------

std::string ctw_offsets_line() {  // box (10, 20)-(100, 60), then 14 points as offsets
  std::string s = "10,20,100,60";
  for (int i = 0; i < 14; ++i)
    s.append(",").append(std::to_string(i * 5)).append(i < 7 ? ",0" : ",30");
  return s;
}

TEST_F(PolyReaderTest, Ctw1500TxtReadsBothFormsAndFindsItsFormat) {
  write("images/0001.jpg", "x");
  write("gt/0001.txt", ctw_offsets_line() + "\n");
  write("images/1001.jpg", "x");
  write("gt/1001.txt",
        "48,84,61,79,75,73,88,68,102,74,116,79,130,84,135,73,119,67,104,60,89,56,74,61,59,67,45,73,"
        "#######\n"
        "51,137,58,137,66,137,74,137,82,137,90,137,98,137,98,119,90,119,82,119,74,119,66,119,58,"
        "119,50,119,####E-313\n");
  auto ds = open_dataset(root_.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->format, ReaderFormat::kCtw1500);
  const SampleRecord* train = find(*ds, "images/0001.jpg");
  ASSERT_NE(train, nullptr);
  ASSERT_EQ(train->poly_points, (std::vector<uint32_t>{14}));
  const std::vector<float> p = points(*train, 0);
  EXPECT_EQ(p[0], 10);   // 0 + xmin
  EXPECT_EQ(p[1], 20);   // 0 + ymin
  EXPECT_EQ(p[26], 75);  // 13 * 5 + 10
  EXPECT_EQ(p[27], 50);  // 30 + 20
  const SampleRecord* test = find(*ds, "images/1001.jpg");
  ASSERT_NE(test, nullptr);
  EXPECT_EQ(test->poly_labels, (std::vector<unsigned char>{kLabelIgnored, kLabelValid}));
  EXPECT_EQ(points(*test, 1)[0], 51);
  EXPECT_TRUE(ds->bad.empty()) << ds->bad[0].reason;
}

TEST_F(PolyReaderTest, Ctw1500XmlReadsBoxesAndListsBadOnes) {
  write("images/0200.jpg", "x");
  write("gt/0200.xml",
        "<Annotations>\n <image file=\"0200.jpg\">\n"
        "  <box height=\"197\" left=\"131\" top=\"49\" width=\"399\">\n   <label>A&amp;B</label>\n"
        "   "
        "<segs>131,58,208,49,279,56,346,76,412,101,473,141,530,192,510,246,458,210,405,175,350,151,"
        "291,137,"
        "228,133,165,134</segs>\n  </box>\n"
        "  <box height=\"1\" left=\"1\" top=\"1\" width=\"1\">\n   <label>###</label>\n   "
        "<segs>1,2,3</segs>\n"
        "  </box>\n </image>\n</Annotations>\n");
  auto ds = open_dataset(root_.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->format, ReaderFormat::kCtw1500);
  const SampleRecord& r = ds->samples.at(0);
  ASSERT_EQ(r.poly_points, (std::vector<uint32_t>{14}));
  EXPECT_EQ(points(r, 0)[27], 134);
  const BadRecord* b = bad(*ds, "3 numbers");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->line, 7);
  EXPECT_EQ(b->file, "gt/0200.xml");
  ReaderOptions minrect;
  minrect.poly_policy = PolyPolicy::kMinRect;
  auto q = read_ctw1500(root_.string(), minrect);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->samples[0].texts, (std::vector<std::string>{"A&B"}));
}

TEST_F(PolyReaderTest, Ctw1500MalformedTxtLinesAreListed) {
  write("images/0001.jpg", "x");
  write("gt/0001.txt", ctw_offsets_line() + "\n1,2,3\n" + ctw_offsets_line() + ",inf\n");
  ReaderOptions o;
  o.format = ReaderFormat::kCtw1500;
  auto ds = open_dataset(root_.string(), o);
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->samples[0].poly_points.size(), 1u);
  ASSERT_NE(bad(*ds, "3 numbers"), nullptr);
  EXPECT_EQ(bad(*ds, "3 numbers")->line, 2);
  ASSERT_NE(bad(*ds, "not a finite number"), nullptr);
  EXPECT_EQ(bad(*ds, "not a finite number")->line, 3);
}

// ---- PaddleOCR --------------------------------------------------------------------------------

constexpr const char* kPaddle =
    "imgs/a.jpg\t[{\"transcription\": \"HELLO\", \"points\": [[10, 10], [50, 10], [50, 30], [10, "
    "30]]}, "
    "{\"transcription\": \"###\", \"points\": [[1, 1], [5, 1], [5, 5], [1, 5]]}, "
    "{\"transcription\": \"*\", \"points\": [[0, 0], [9, 0], [9, 9], [5, 12], [0, 9], [0, 4]]}]\n"
    "imgs/b.jpg\t[]\n";

TEST_F(PolyReaderTest, PaddleLabelFileReadsWordsAndIgnoresTheirMarks) {
  write("train_label.txt", kPaddle);
  auto ds = open_dataset((root_ / "train_label.txt").string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->format, ReaderFormat::kPaddle);
  ASSERT_EQ(ds->samples.size(), 2u);
  const SampleRecord* a = find(*ds, "imgs/a.jpg");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->poly_points, (std::vector<uint32_t>{4, 4, 6}));
  EXPECT_EQ(a->poly_labels,
            (std::vector<unsigned char>{kLabelValid, kLabelIgnored, kLabelIgnored}));
  EXPECT_EQ(a->quads.size(), 2u);
  EXPECT_EQ(a->lines[0], 1);
  ASSERT_EQ(ds->files.size(), 1u);
  EXPECT_EQ(ds->files[0].file, "train_label.txt");
  EXPECT_EQ(ds->files[0].samples, 2u);
  auto by_folder = open_dataset(root_.string(), {});  // a folder with *train*.txt label files
  ASSERT_TRUE(by_folder.has_value()) << by_folder.error().to_string();
  EXPECT_EQ(by_folder->format, ReaderFormat::kPaddle);
  EXPECT_EQ(by_folder->samples.size(), 2u);
}

TEST_F(PolyReaderTest, PaddleMalformedLinesAreListedWithTheirLine) {
  write(
      "label.txt",
      "ok.jpg\t[{\"transcription\": \"A\", \"points\": [[0, 0], [4, 0], [4, 4]]}]\n"  // 1: a
                                                                                      // triangle,
                                                                                      // kept
      "no tab here\n"                                                                 // 2
      "bad.jpg\t[{\"transcription\": \"A\", \"points\": [[0, 0], [4, 0]\n"  // 3: broken json
      "../out.jpg\t[]\n"                                                    // 4: escapes
      "ok.jpg\t[]\n"                                                        // 5: twice
      "w.jpg\t[{\"transcription\": \"A\", \"points\": [[0, 0, 1], [4, 0], [4, 4]]}, "
      "{\"points\": [[0, 0], [4, 0], [4, 4]]}, "
      "{\"transcription\": \"B\", \"transcription\": \"C\", \"points\": [[0, 0], [4, 0], [4, 4]]}, "
      "{\"transcription\": \"D\", \"points\": [[0, 0], [4, 1e39], [4, 4]]}]\n");  // 6
  ReaderOptions o;
  o.format = ReaderFormat::kPaddle;
  auto ds = open_dataset((root_ / "label.txt").string(), o);
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 2u);  // ok.jpg and w.jpg (no word)
  EXPECT_EQ(find(*ds, "ok.jpg")->poly_points, (std::vector<uint32_t>{3}));
  EXPECT_TRUE(find(*ds, "w.jpg")->poly_points.empty());
  const std::vector<std::pair<std::string, int>> want = {{"no TAB", 2},
                                                         {"not valid JSON", 3},
                                                         {"escapes the dataset root", 4},
                                                         {"appears twice", 5},
                                                         {"not an [x, y] pair", 6},
                                                         {"no 'transcription'", 6},
                                                         {"'transcription' twice", 6},
                                                         {"32-bit float", 6}};
  for (const auto& [needle, line] : want) {
    const BadRecord* b = bad(*ds, needle);
    ASSERT_NE(b, nullptr) << needle;
    EXPECT_EQ(b->line, line) << needle;
    EXPECT_EQ(b->file, "label.txt");
  }
}

// ---- mmocr ------------------------------------------------------------------------------------

constexpr const char* kMmocr =
    R"({"metainfo": {"dataset_type": "TextDetDataset", "task_name": "textdet",
  "category": [{"id": 0, "name": "text"}]},
 "data_list": [
  {"img_path": "textdet_imgs/train/a.jpg", "height": 100, "width": 200, "instances": [
    {"polygon": [10, 10, 50, 10, 50, 30, 10, 30], "bbox": [10, 10, 50, 30], "bbox_label": 0, "ignore": false, "text": "HI"},
    {"polygon": [0, 0, 9, 0, 9, 9, 5, 12, 0, 9], "bbox": [0, 0, 9, 12], "bbox_label": 0, "ignore": true},
    {"bbox": [1, 2, 3, 4], "bbox_label": 0, "ignore": false}]},
  {"img_path": "textdet_imgs/train/b.jpg", "height": 10, "width": 10, "instances": [
    {"polygon": [1, 2, 3], "ignore": false},
    {"polygon": [1, 2, 3, 4, 5, 6], "ignore": "yes"},
    {"polygon": [1, 2, 3, 4, 5, 6], "ignore": false, "ignore": true}]},
  {"img_path": "../escape.jpg", "instances": []},
  {"instances": []}
 ]})";

TEST_F(PolyReaderTest, MmocrJsonReadsInstancesAndFindsItsFormat) {
  write("textdet_train.json", kMmocr);
  auto ds = open_dataset(root_.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->format, ReaderFormat::kMmocr);
  ASSERT_EQ(ds->samples.size(), 2u);
  const SampleRecord* a = find(*ds, "textdet_imgs/train/a.jpg");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->width, 200);
  EXPECT_EQ(a->height, 100);
  EXPECT_EQ(a->poly_points, (std::vector<uint32_t>{4, 5, 4}));
  EXPECT_EQ(a->poly_labels, (std::vector<unsigned char>{kLabelValid, kLabelIgnored, kLabelValid}));
  EXPECT_EQ(points(*a, 2), (std::vector<float>{1, 2, 3, 2, 3, 4, 1, 4}));  // the bbox as 4 points
  EXPECT_EQ(a->texts[0], "HI");
  EXPECT_TRUE(find(*ds, "textdet_imgs/train/b.jpg")->poly_points.empty());
  for (const char* needle : {"odd count", "'ignore' is not true or false", "'ignore' twice",
                             "escapes the dataset root", "no 'img_path'"}) {
    const BadRecord* b = bad(*ds, needle);
    ASSERT_NE(b, nullptr) << needle;
    EXPECT_EQ(b->file, "textdet_train.json");
    EXPECT_NE(b->reason.find("data_list["), std::string::npos) << b->reason;
  }
  auto by_file = open_dataset((root_ / "textdet_train.json").string(), {});
  ASSERT_TRUE(by_file.has_value());
  EXPECT_EQ(by_file->format, ReaderFormat::kMmocr);
}

TEST_F(PolyReaderTest, MmocrBrokenFilesAreErrorsNamingThem) {
  write("a.json", R"({"metainfo": {}, "data_list": [ {"img_path": "x.jpg", )");
  ReaderOptions o;
  o.format = ReaderFormat::kMmocr;
  auto broken = open_dataset((root_ / "a.json").string(), o);
  ASSERT_FALSE(broken.has_value());
  EXPECT_NE(broken.error().message().find("a.json: not valid JSON"), std::string::npos);
  write("b.json", R"({"metainfo": {}, "data_list": {}})");
  auto wrong = open_dataset((root_ / "b.json").string(), o);
  ASSERT_FALSE(wrong.has_value());
  EXPECT_NE(wrong.error().message().find("'data_list'"), std::string::npos);
  auto folder = open_dataset(root_.string(), o);  // no textdet_train.json
  ASSERT_FALSE(folder.has_value());
  EXPECT_NE(folder.error().message().find("textdet_train.json"), std::string::npos);
}

// ---- every reader fills the polygons; the format option forces one ---------------------------

TEST_F(PolyReaderTest, Icdar15WordsAreTheirOwnPolygons) {
  write("images/img_1.jpg", "x");
  write("gt/gt_img_1.txt", "1,2,3,4,5,6,7,8,HELLO\n9,9,19,9,19,19,9,19,###\n");
  auto ds = open_dataset(root_.string(), {});
  ASSERT_TRUE(ds.has_value());
  EXPECT_EQ(ds->format, ReaderFormat::kIcdar15);
  const SampleRecord& r = ds->samples[0];
  EXPECT_EQ(r.poly_points, (std::vector<uint32_t>{4, 4}));
  EXPECT_EQ(r.poly_labels, r.labels);
  EXPECT_EQ(points(r, 0), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(ds->points_histogram()[4], 2u);
}

TEST_F(PolyReaderTest, FormatOptionForcesAReader) {
  write("images/img1.jpg", "x");
  write("gt/poly_gt_img1.txt", kTotalText);
  ReaderOptions o;
  o.format = ReaderFormat::kIcdar15;  // read as ICDAR: the gt name does not pair
  auto icdar = open_dataset(root_.string(), o);
  ASSERT_TRUE(icdar.has_value());
  EXPECT_EQ(icdar->format, ReaderFormat::kIcdar15);
  EXPECT_EQ(icdar->num_words(), 0u);
  o.format = ReaderFormat::kTotalText;
  auto tt = open_dataset(root_.string(), o);
  ASSERT_TRUE(tt.has_value());
  EXPECT_EQ(tt->format, ReaderFormat::kTotalText);
  EXPECT_EQ(parse_reader_format("ctw1500").value(), ReaderFormat::kCtw1500);
  EXPECT_FALSE(parse_reader_format("coco").has_value());
  EXPECT_EQ(reader_format_name(ReaderFormat::kMmocr), "mmocr");
}

// The file checks every reader shares (detail/text.h, detail/json_file.h): a label file in UTF-16
// or a folder where a file should be is refused by name, never read as garbage.
TEST_F(PolyReaderTest, EveryFormatRefusesUtf16AndFoldersByName) {
  const std::string utf16("\xFF\xFEx\0:\0", 6);
  write("images/img1.jpg", "x");
  write("gt/poly_gt_img1.txt", utf16);
  auto tt = read_totaltext(root_.string(), {});
  ASSERT_TRUE(tt.has_value());
  EXPECT_TRUE(tt->samples.empty());  // the image is left out, not kept without its words
  ASSERT_NE(bad(*tt, "UTF-16"), nullptr);
  EXPECT_EQ(bad(*tt, "UTF-16")->file, "gt/poly_gt_img1.txt");
  fs::remove(root_ / "gt/poly_gt_img1.txt");
  fs::create_directories(root_ / "gt/img1.xml");  // a folder named like a CTW1500 label
  auto ctw = read_ctw1500(root_.string(), {});
  ASSERT_TRUE(ctw.has_value());
  EXPECT_TRUE(ctw->samples.empty());
  ASSERT_NE(bad(*ctw, "image left out"), nullptr);
  write("label.txt", utf16);
  auto paddle = read_paddle(root_.string(), {(root_ / "label.txt").string()}, {});
  ASSERT_FALSE(paddle.has_value());
  EXPECT_NE(paddle.error().message().find("UTF-16"), std::string::npos);
  write("m.json", utf16);
  auto mm = read_mmocr(root_.string(), (root_ / "m.json").string(), {});
  ASSERT_FALSE(mm.has_value());
  EXPECT_NE(mm.error().message().find("UTF-16"), std::string::npos);
  fs::create_directories(root_ / "dir.json");
  auto dir = read_mmocr(root_.string(), (root_ / "dir.json").string(), {});
  ASSERT_FALSE(dir.has_value());
}

// An image path whose subfolder is a symlink leading outside the root is a bad record (PaddleOCR
// and mmocr share the check with UFO).
TEST_F(PolyReaderTest, ListFormatsRefuseImagesBehindASymlinkOutTheRoot) {
  const fs::path outside = root_.string() + "_outside";
  fs::create_directories(outside);
  fs::create_directory_symlink(outside, root_ / "link");
  write("label.txt", "link/a.jpg\t[]\nin/b.jpg\t[]\n");
  auto ds = read_paddle(root_.string(), {(root_ / "label.txt").string()}, {});
  fs::remove_all(outside);
  ASSERT_TRUE(ds.has_value());
  ASSERT_EQ(ds->samples.size(), 1u);
  EXPECT_EQ(ds->samples[0].image, "in/b.jpg");
  ASSERT_NE(bad(*ds, "leads outside the dataset root"), nullptr);
  EXPECT_EQ(bad(*ds, "leads outside the dataset root")->line, 1);
}

// Issue 30 #6: an image path that names a folder on disk passed the lexical check, so the reader
// counted an image it would never decode (and `inspect` said 0 bad records).
TEST_F(PolyReaderTest, ListFormatsLeaveOutImagePathsThatAreFoldersOnDisk) {
  write("imgs/a.jpg", "x");
  fs::create_directories(root_ / "imgs" / "dir.jpg");
  ASSERT_EQ(::mkfifo((root_ / "imgs" / "fifo.jpg").c_str(), 0600), 0);
  write("label.txt", "imgs/a.jpg\t[]\nimgs/dir.jpg\t[]\nimgs/fifo.jpg\t[]\nimgs/missing.jpg\t[]\n");
  auto paddle = read_paddle(root_.string(), {(root_ / "label.txt").string()}, {});
  ASSERT_TRUE(paddle.has_value()) << paddle.error().to_string();
  std::vector<std::string> kept;
  for (const SampleRecord& r : paddle->samples) kept.push_back(r.image);
  // A missing image is not decided at index time: the decoder reports it, as for every format.
  EXPECT_EQ(kept, (std::vector<std::string>{"imgs/a.jpg", "imgs/missing.jpg"}));
  ASSERT_EQ(paddle->bad.size(), 2u);
  const BadRecord* folder =
      bad(*paddle, "'imgs/dir.jpg' names a folder, not an image file; left out");
  ASSERT_NE(folder, nullptr);
  EXPECT_EQ(folder->file, "label.txt");
  EXPECT_EQ(folder->line, 2);
  ASSERT_NE(bad(*paddle, "'imgs/fifo.jpg' names a FIFO, not an image file"), nullptr);
  EXPECT_EQ(bad(*paddle, "'imgs/fifo.jpg' names a FIFO")->line, 3);

  write("m.json", R"({"data_list": [{"img_path": "imgs/a.jpg", "instances": []},
                                   {"img_path": "imgs/dir.jpg", "instances": []}]})");
  auto mm = read_mmocr(root_.string(), (root_ / "m.json").string(), {});
  ASSERT_TRUE(mm.has_value()) << mm.error().to_string();
  ASSERT_EQ(mm->samples.size(), 1u);
  EXPECT_EQ(mm->samples[0].image, "imgs/a.jpg");
  const BadRecord* entry =
      bad(*mm, "data_list[1] image 'imgs/dir.jpg' names a folder, not an image file");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->file, "m.json");
}

}  // namespace
}  // namespace textfeed::loader
