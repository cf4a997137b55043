// Dataset layouts (docs/dataset_layouts.md): the Boostcamp baselines' folders
// (ROOT/ufo/<split>.json with ROOT/img/<split>/, and ROOT/<x>_receipt/ufo/<split>.json merged), the
// precedence of image folders, the merge order, a name in two merged files, confinement to the
// root, the split option and the illegibility option. Each test builds its layout in a temporary
// folder from a few images of data/icdar15-sample.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "loader/readers/dataset.h"
#include "loader/sources/dataset_source.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;

const fs::path kSampleImages = fs::path(TEXTFEED_DATA_DIR) / "icdar15-sample" / "images";

// A UFO json of `names`, each with one 4-point word (illegible when `illegible`).
std::string ufo_json(const std::vector<std::string>& names, const char* illegible = "false") {
  std::string json = "{\"images\": {";
  for (size_t i = 0; i < names.size(); ++i) {
    json += (i ? ", \"" : "\"") + names[i] +
            "\": {\"img_w\": 1280, \"img_h\": 720, \"words\": {\"1\": {\"points\": [[10, 10], [60, "
            "10], "
            "[60, 30], [10, 30]], \"transcription\": \"w\", \"illegibility\": " +
            illegible + "}}}";
  }
  return json + "}}";
}

class DatasetLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("textfeed_layout_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const fs::path& rel, const std::string& content) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel, std::ios::binary) << content;
  }
  // Copies sample images img_1.jpg, img_2.jpg, ... into `folder` as `names`.
  void images(const fs::path& folder, const std::vector<std::string>& names) {
    fs::create_directories(root_ / folder);
    for (size_t i = 0; i < names.size(); ++i)
      fs::copy_file(kSampleImages / ("img_" + std::to_string(i + 1) + ".jpg"),
                    root_ / folder / names[i], fs::copy_options::overwrite_existing);
  }
  // The 7th generation's layout: <lang>_receipt/ufo/<split>.json and <lang>_receipt/img/<split>/.
  void receipt(const std::string& lang, const std::string& code, int n,
               const std::string& split = "train") {
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i)
      names.push_back("extractor." + code + ".in_house.appen_00000" + std::to_string(i) +
                      "_page0001.jpg");
    images(lang + "_receipt/img/" + split, names);
    write(lang + "_receipt/ufo/" + split + ".json", ufo_json(names));
  }
  static std::vector<std::string> image_names(const Dataset& ds) {
    std::vector<std::string> out;
    for (const SampleRecord& s : ds.samples) out.push_back(s.image);
    return out;
  }
  fs::path root_;
};

// ---- the 6th generation: ROOT/ufo/train.json, ROOT/img/train/ --------------------------------

TEST_F(DatasetLayoutTest, SixthGenerationOpensByFileAndByFolder) {
  images("img/train", {"a.jpg", "b.jpg"});
  write("ufo/train.json", ufo_json({"b.jpg", "a.jpg"}));
  for (const fs::path& path : {root_ / "ufo/train.json", root_}) {
    auto ds = open_dataset(path.string(), {});
    ASSERT_TRUE(ds.has_value()) << path << ": " << ds.error().to_string();
    EXPECT_EQ(ds->root, root_.string());
    EXPECT_EQ(ds->format, ReaderFormat::kUfo);
    EXPECT_EQ(image_names(*ds), (std::vector<std::string>{"img/train/a.jpg", "img/train/b.jpg"}));
    ASSERT_EQ(ds->files.size(), 1u);
    EXPECT_EQ(ds->files[0].file, "ufo/train.json");
    EXPECT_EQ(ds->files[0].image_dir, "img/train");
    EXPECT_EQ(ds->files[0].samples, 2u);
    EXPECT_TRUE(ds->bad.empty());
    for (size_t i = 0; i < ds->samples.size(); ++i)
      EXPECT_TRUE(fs::is_regular_file(ds->image_path(i)));
  }
}

TEST_F(DatasetLayoutTest, OpeningASourceLogsEachJsonAndItsImageFolderOnce) {
  receipt("chinese", "zh", 2);
  receipt("thai", "th", 1);
  std::vector<std::string> lines;
  set_log_sink([&](LogLevel level, std::string_view m) {
    if (level == LogLevel::kInfo) lines.emplace_back(m);
  });
  auto source = DatasetSource::open(root_.string(), {});
  set_log_sink(nullptr);
  ASSERT_TRUE(source.has_value()) << source.error().to_string();
  EXPECT_EQ((*source)->size(), 3u);
  const std::string prefix = "dataset " + root_.string() + ": ";
  EXPECT_EQ(
      lines,
      (std::vector<std::string>{
          prefix + "chinese_receipt/ufo/train.json: 2 image(s) from chinese_receipt/img/train/",
          prefix + "thai_receipt/ufo/train.json: 1 image(s) from thai_receipt/img/train/"}));
}

TEST_F(DatasetLayoutTest, ImageFoldersArePickedInOrderImgSplitThenImagesThenTheRoot) {
  write("ufo/train.json", ufo_json({"a.jpg"}));
  images("img/train", {"a.jpg"});
  images("images", {"a.jpg"});
  images("", {"a.jpg"});
  const std::vector<std::pair<fs::path, std::string>> steps = {
      {"img/train", "img/train/a.jpg"}, {"images", "images/a.jpg"}, {"", "a.jpg"}};
  for (const auto& [folder, image] : steps) {
    auto ds = read_ufo(root_.string(), (root_ / "ufo/train.json").string(), {});
    ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
    ASSERT_EQ(ds->samples.size(), 1u);
    EXPECT_EQ(ds->samples[0].image, image);
    EXPECT_EQ(ds->files.at(0).image_dir, folder.string());
    if (!folder.empty()) fs::remove_all(root_ / folder);
  }
  // The json's stem names the img/ folder: a val.json reads img/val/, not img/train/.
  images("img/train", {"a.jpg"});
  images("img/val", {"a.jpg"});
  write("ufo/val.json", ufo_json({"a.jpg"}));
  auto val = read_ufo(root_.string(), (root_ / "ufo/val.json").string(), {});
  ASSERT_TRUE(val.has_value()) << val.error().to_string();
  EXPECT_EQ(val->samples.at(0).image, "img/val/a.jpg");
  // images_dir renames the second choice.
  fs::remove_all(root_ / "img");
  images("pics", {"a.jpg"});
  ReaderOptions pics;
  pics.images_dir = "pics";
  auto renamed = read_ufo(root_.string(), (root_ / "ufo/val.json").string(), pics);
  ASSERT_TRUE(renamed.has_value()) << renamed.error().to_string();
  EXPECT_EQ(renamed->samples.at(0).image, "pics/a.jpg");
}

TEST_F(DatasetLayoutTest, ALooseJsonFindsItsImagesNextToIt) {
  images("elsewhere", {"a.jpg"});
  write("elsewhere/labels.json", ufo_json({"a.jpg"}));
  auto ds = open_dataset((root_ / "elsewhere/labels.json").string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->root, (root_ / "elsewhere").string());
  EXPECT_EQ(ds->samples.at(0).image, "a.jpg");
  EXPECT_EQ(ds->files.at(0).file, "labels.json");
  EXPECT_EQ(ds->files.at(0).image_dir, "");
}

// ---- the split option ---------------------------------------------------------------------------

TEST_F(DatasetLayoutTest, SplitPicksTheJsonAndItsImageFolder) {
  images("img/train", {"a.jpg", "b.jpg"});
  images("img/val", {"c.jpg"});
  write("ufo/train.json", ufo_json({"a.jpg", "b.jpg"}));
  write("ufo/val.json", ufo_json({"c.jpg"}));
  ReaderOptions val;
  val.split = "val";
  auto ds = open_dataset(root_.string(), val);
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(image_names(*ds), std::vector<std::string>{"img/val/c.jpg"});
  EXPECT_EQ(ds->files.at(0).file, "ufo/val.json");

  ReaderOptions test;
  test.split = "test";
  auto missing = open_dataset(root_.string(), test);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), Code::kInvalidArgument);
  EXPECT_NE(missing.error().message().find(
                "no ufo/test.json for split 'test' (found: ufo/train.json ufo/val.json)"),
            std::string::npos)
      << missing.error().message();
}

TEST_F(DatasetLayoutTest, BadSplitValuesAreRefusedByName) {
  write("ufo/train.json", ufo_json({}));
  for (const std::string& bad : {std::string(), std::string("."), std::string(".."),
                                 std::string("a/b"), std::string("../train"), std::string("/etc/x"),
                                 std::string("tr\0ain", 6), std::string(256, 's')}) {
    ReaderOptions o;
    o.split = bad;
    const Status v = validate(o);
    EXPECT_EQ(v.code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(v.message().find("split"), std::string::npos) << v.message();
    auto ds = open_dataset(root_.string(), o);
    ASSERT_FALSE(ds.has_value()) << bad;
    EXPECT_EQ(ds.error().code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(ds.error().message().find("split"), std::string::npos) << ds.error().message();
  }
  ReaderOptions longest;
  longest.split = std::string(255, 's');
  EXPECT_TRUE(validate(longest).ok());
}

// ---- the 7th generation: <x>_receipt folders merged
// ----------------------------------------------

TEST_F(DatasetLayoutTest, SeventhGenerationMergesReceiptFoldersInSortedOrder) {
  receipt("vietnamese", "vi", 1);  // made out of order: the merge order is the names' order
  receipt("chinese", "zh", 2);
  receipt("thai", "th", 1);
  receipt("japanese", "ja", 2);
  fs::create_directories(root_ / "notes_receipt");  // no ufo/ folder: not a receipt folder
  auto ds = open_dataset(root_.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->root, root_.string());
  ASSERT_EQ(ds->files.size(), 4u);
  const char* order[] = {"chinese", "japanese", "thai", "vietnamese"};
  const size_t counts[] = {2, 2, 1, 1};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ds->files[i].file, std::string(order[i]) + "_receipt/ufo/train.json");
    EXPECT_EQ(ds->files[i].image_dir, std::string(order[i]) + "_receipt/img/train");
    EXPECT_EQ(ds->files[i].samples, counts[i]);
  }
  ASSERT_EQ(ds->samples.size(), 6u);
  EXPECT_EQ(ds->samples[0].image,
            "chinese_receipt/img/train/extractor.zh.in_house.appen_000000_page0001.jpg");
  EXPECT_EQ(ds->samples[0].annotation, "chinese_receipt/ufo/train.json");
  EXPECT_EQ(ds->samples[5].image,
            "vietnamese_receipt/img/train/extractor.vi.in_house.appen_000000_page0001.jpg");
  EXPECT_TRUE(std::is_sorted(
      ds->samples.begin(), ds->samples.end(),
      [](const SampleRecord& a, const SampleRecord& b) { return a.image < b.image; }));
  for (size_t i = 0; i < ds->samples.size(); ++i)
    EXPECT_TRUE(fs::is_regular_file(ds->image_path(i)));
  EXPECT_TRUE(ds->bad.empty());
}

TEST_F(DatasetLayoutTest, SeventhGenerationSplitAndAMissingSplitFile) {
  receipt("chinese", "zh", 2);
  receipt("chinese", "zh", 1, "val");
  receipt("thai", "th", 1, "val");
  ReaderOptions val;
  val.split = "val";
  auto ds = open_dataset(root_.string(), val);
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(ds->samples.size(), 2u);
  EXPECT_EQ(ds->files.at(1).image_dir, "thai_receipt/img/val");
  auto train = open_dataset(root_.string(), {});  // thai_receipt has no train.json
  ASSERT_FALSE(train.has_value());
  EXPECT_EQ(train.error().code(), Code::kInvalidArgument);
  EXPECT_NE(train.error().message().find("no thai_receipt/ufo/train.json for split 'train'"),
            std::string::npos)
      << train.error().message();
}

TEST_F(DatasetLayoutTest, AnImageNameInTwoMergedFilesIsAnErrorNamingBoth) {
  receipt("chinese", "zh", 1);
  receipt("japanese", "ja", 1);
  const std::string name = "extractor.zh.in_house.appen_000000_page0001.jpg";
  images("japanese_receipt/img/train", {name});
  write("japanese_receipt/ufo/train.json",
        ufo_json({"extractor.ja.in_house.appen_000000_page0001.jpg", name}));
  auto ds = open_dataset(root_.string(), {});
  ASSERT_FALSE(ds.has_value());
  EXPECT_EQ(ds.error().code(), Code::kInvalidArgument);
  EXPECT_NE(ds.error().message().find(
                "image '" + name +
                "' is in both chinese_receipt/ufo/train.json and japanese_receipt/ufo/train.json"),
            std::string::npos)
      << ds.error().message();
}

TEST_F(DatasetLayoutTest, AnImageWhoseLanguageCodeDisagreesWithItsFolderIsKeptInItsJsonsFolder) {
  receipt("chinese", "zh", 1);
  const std::string stray =
      "extractor.ja.in_house.appen_000009_page0001.jpg";  // "ja" in chinese_receipt
  images("chinese_receipt/img/train", {"extractor.zh.in_house.appen_000000_page0001.jpg", stray});
  write("chinese_receipt/ufo/train.json",
        ufo_json({"extractor.zh.in_house.appen_000000_page0001.jpg", stray}));
  auto ds = open_dataset(root_.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  ASSERT_EQ(ds->samples.size(), 2u);
  EXPECT_EQ(ds->samples[0].image, "chinese_receipt/img/train/" + stray);  // "ja" sorts before "zh"
  EXPECT_TRUE(fs::is_regular_file(ds->image_path(0)));
}

TEST_F(DatasetLayoutTest, AFolderWithNoLayoutSaysWhatItLookedFor) {
  fs::create_directories(root_ / "chinese_receipt/img/train");  // no ufo/
  auto ds = open_dataset(root_.string(), {});
  ASSERT_FALSE(ds.has_value());
  EXPECT_EQ(ds.error().code(), Code::kInvalidArgument);
  EXPECT_NE(ds.error().message().find("no ufo/ or <x>_receipt/ufo/ folder"), std::string::npos)
      << ds.error().message();
}

// ---- confinement
// -----------------------------------------------------------------------------------

TEST_F(DatasetLayoutTest, ASymlinkedImageFolderOutsideTheRootIsRefused) {
  const fs::path outside = root_.string() + "_outside";
  fs::remove_all(outside);
  fs::create_directories(outside);
  fs::copy_file(kSampleImages / "img_1.jpg", outside / "a.jpg");
  fs::create_directories(root_ / "img");
  fs::create_directory_symlink(outside, root_ / "img/train");
  write("ufo/train.json", ufo_json({"a.jpg"}));
  auto ds = open_dataset(root_.string(), {});
  ASSERT_FALSE(ds.has_value());
  EXPECT_EQ(ds.error().code(), Code::kInvalidArgument);
  EXPECT_NE(ds.error().message().find("img/train: the image folder leads outside the dataset root"),
            std::string::npos)
      << ds.error().message();

  // A whole receipt folder linked from elsewhere is refused the same way.
  fs::remove_all(root_);
  fs::create_directories(root_);
  fs::create_directories(outside / "ufo");
  fs::create_directories(outside / "img/train");
  std::ofstream(outside / "ufo/train.json") << ufo_json({"a.jpg"});
  fs::create_directory_symlink(outside, root_ / "chinese_receipt");
  auto linked = open_dataset(root_.string(), {});
  ASSERT_FALSE(linked.has_value());
  EXPECT_NE(linked.error().message().find("leads outside the dataset root"), std::string::npos)
      << linked.error().message();

  // A link that stays inside the root is fine.
  fs::remove(root_ / "chinese_receipt");
  images("data_real/img/train", {"a.jpg"});
  write("data_real/ufo/train.json", ufo_json({"a.jpg"}));
  fs::create_directory_symlink(root_ / "data_real", root_ / "chinese_receipt");
  auto inside = open_dataset(root_.string(), {});
  ASSERT_TRUE(inside.has_value()) << inside.error().to_string();
  EXPECT_EQ(inside->samples.at(0).image, "chinese_receipt/img/train/a.jpg");
  fs::remove_all(outside);
}

TEST_F(DatasetLayoutTest, ImageNamesThatLeaveTheirFolderAreLeftOutAndListed) {
  const fs::path outside = root_.string() + "_outside";
  fs::remove_all(outside);
  fs::create_directories(outside);
  fs::copy_file(kSampleImages / "img_1.jpg", outside / "x.jpg");
  images("img/train", {"a.jpg"});
  fs::create_directory_symlink(outside, root_ / "img/train/sub");
  write("ufo/train.json",
        ufo_json({"a.jpg", "../../x.jpg", "../../../x.jpg", "sub/x.jpg", "/etc/passwd"}));
  auto ds = open_dataset(root_.string(), {});
  ASSERT_TRUE(ds.has_value()) << ds.error().to_string();
  EXPECT_EQ(image_names(*ds), std::vector<std::string>{"img/train/a.jpg"});
  int escapes = 0, links = 0, absolute = 0;
  for (const BadRecord& b : ds->bad) {
    EXPECT_EQ(b.file, "ufo/train.json");
    escapes += b.reason.find("escapes the dataset root") != std::string::npos;
    links +=
        b.reason.find("image 'sub/x.jpg' lies in a folder that leads outside the dataset root") !=
        std::string::npos;
    absolute += b.reason.find("is absolute") != std::string::npos;
  }
  EXPECT_EQ(escapes, 2);  // `..` out of img/train/ is refused even where it would stay in the root
  EXPECT_EQ(links, 1);
  EXPECT_EQ(absolute, 1);
  fs::remove_all(outside);
}

// ---- illegibility
// -------------------------------------------------------------------------------------

TEST_F(DatasetLayoutTest, IllegibilityIgnoreMasksIllegibleWordsAndValidKeepsThem) {
  images("img/train", {"a.jpg"});
  write("ufo/train.json", ufo_json({"a.jpg"}, "true"));
  auto ignore = open_dataset(root_.string(), {});
  ASSERT_TRUE(ignore.has_value()) << ignore.error().to_string();
  EXPECT_EQ(ignore->samples.at(0).labels, std::vector<unsigned char>{kLabelIgnored});
  ReaderOptions valid;
  valid.illegibility = Illegibility::kValid;
  auto kept = open_dataset(root_.string(), valid);
  ASSERT_TRUE(kept.has_value()) << kept.error().to_string();
  EXPECT_EQ(kept->samples.at(0).labels, std::vector<unsigned char>{kLabelValid});
  EXPECT_EQ(kept->num_ignored(), 0u);

  // `valid` does not read the flag at all: a flag that is no boolean leaves the word valid, while
  // `ignore` lists the word as bad.
  write("ufo/train.json", ufo_json({"a.jpg"}, "\"maybe\""));
  auto strict = open_dataset(root_.string(), {});
  ASSERT_TRUE(strict.has_value());
  EXPECT_EQ(strict->num_words(), 0u);
  ASSERT_EQ(strict->bad.size(), 1u);
  EXPECT_NE(strict->bad[0].reason.find("'illegibility' is not true or false"), std::string::npos);
  auto lenient = open_dataset(root_.string(), valid);
  ASSERT_TRUE(lenient.has_value());
  EXPECT_EQ(lenient->samples.at(0).labels, std::vector<unsigned char>{kLabelValid});
  EXPECT_TRUE(lenient->bad.empty());
}

}  // namespace
}  // namespace textfeed::loader
