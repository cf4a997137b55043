// Cache manifests (issue 16): merge refuses an incomplete, repeated or foreign set of shards;
// open_manifest names the shard and the manifest when a shard is missing, swapped or damaged; a
// hostile manifest (absolute or escaping paths, truncated or garbage JSON, wrong types, deep
// nesting, a newer version) is refused naming the file and the field.
#include "cache/manifest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cache/cache_fixture.h"

namespace textfeed::cache {
namespace {

namespace fs = std::filesystem;
using testing::make_sample;

constexpr uint32_t kShards = 3;
constexpr uint64_t kInputs = 7;  // shards of 2, 2 and 3 inputs

class ManifestTest : public testing::CacheFixture {
 protected:
  void SetUp() override {
    CacheFixture::SetUp();
    manifest_ = (dir_ / "set.tfmanifest").string();
    fs::create_directories(dir_ / "shards");
    for (uint32_t k = 0; k < kShards; ++k) write_shard(k, kShards, shard_path(k));
  }

  std::string shard_path(uint32_t k) const {
    return (dir_ / "shards" / ("s" + std::to_string(k) + ".tfc")).string();
  }

  // Shard k of `count` of a dataset of kInputs samples: inputs floor(k n / count) ...
  static void write_shard(uint32_t k, uint32_t count, const std::string& path,
                          uint64_t fingerprint = 0xfeed, int64_t built = 1700000000) {
    const uint64_t first = k * kInputs / count, end = (k + 1) * kInputs / count;
    auto w = CacheWriter::create(path, true);
    ASSERT_TRUE(w.has_value()) << w.error().to_string();
    for (uint64_t i = first; i < end; ++i)
      ASSERT_TRUE((*w)->add(make_sample(static_cast<int>(i)).data()).ok());
    CacheMeta meta;
    meta.profile = "upstage";
    meta.image_size = 2048;
    meta.build_unix_seconds = built;
    meta.dataset_format = "icdar15";
    meta.shard_index = k;
    meta.shard_count = count;
    meta.first_input = first;
    meta.num_inputs = end - first;
    meta.dataset_samples = kInputs;
    meta.dataset_fingerprint = fingerprint;
    meta.reader_options = "format=auto";
    meta.max_bad_share = 0.05;
    ASSERT_TRUE((*w)->finish(meta).ok());
  }

  Result<Manifest> merge(const std::vector<std::string>& paths) const {
    std::vector<std::shared_ptr<const CacheReader>> readers;
    for (const std::string& p : paths) {
      auto r = CacheReader::open(p);
      if (!r.has_value()) return r.error();
      readers.push_back(*r);
    }
    return merge_shards(readers, paths, manifest_);
  }
  void merge_and_write() {
    auto m = merge({shard_path(2), shard_path(0), shard_path(1)});
    ASSERT_TRUE(m.has_value()) << m.error().to_string();
    ASSERT_TRUE(write_manifest(*m, manifest_, false).ok());
  }
  std::string text() const {
    std::ifstream in(manifest_);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  void write_text(const std::string& t) const {
    fs::remove(manifest_);
    std::ofstream(manifest_) << t;
  }
  // The manifest's text with the first `from` replaced by `to`.
  void edit(const std::string& from, const std::string& to) const {
    std::string t = text();
    const size_t at = t.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    write_text(t.replace(at, from.size(), to));
  }

  std::string manifest_;
};

// A file's N is data: N = 2^32 - 1 (a shard of no inputs, consistent otherwise) is refused before
// anything is sized by it (merge's K -> file table would be 16 GiB).
TEST_F(ManifestTest, AShardFileClaimingMoreShardsThanAManifestHoldsIsRefusedBeforeAllocating) {
  const std::string huge = (dir_ / "shards" / "huge.tfc").string();
  write_shard(0, 0xFFFFFFFFu, huge);
  auto m = merge({huge});
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code(), Code::kInvalidArgument) << m.error().to_string();
  EXPECT_NE(m.error().message().find("huge.tfc"), std::string::npos) << m.error().message();
  EXPECT_NE(m.error().message().find("over the 4096 shards"), std::string::npos)
      << m.error().message();
}

TEST_F(ManifestTest, MergedShardsOpenAsOneCacheInTheWholeOrder) {
  merge_and_write();
  EXPECT_TRUE(is_manifest_file(manifest_));
  EXPECT_FALSE(is_manifest_file(shard_path(0)));
  EXPECT_FALSE(is_cache_file(manifest_));
  auto set = open_manifest(manifest_);
  ASSERT_TRUE(set.has_value()) << set.error().to_string();
  const Manifest& m = (*set)->manifest;
  EXPECT_EQ(m.samples, kInputs);
  ASSERT_EQ(m.shards.size(), kShards);
  EXPECT_EQ(m.shards[0].path, "shards/s0.tfc");
  EXPECT_EQ(m.shards[2].first, 4u);
  EXPECT_EQ(m.build.dataset_fingerprint, 0xfeedu);
  size_t i = 0;
  for (const auto& shard : (*set)->shards)
    for (size_t j = 0; j < shard->size(); ++j, ++i) {
      auto v = shard->sample(j);
      ASSERT_TRUE(v.has_value());
      EXPECT_TRUE(same(*v, make_sample(static_cast<int>(i)))) << i;
    }
  EXPECT_EQ(i, kInputs);
  // Written again, the manifest's text is the same; it is replaced only with overwrite.
  auto again = read_manifest(manifest_);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ(manifest_json(*again), text());
  EXPECT_EQ(write_manifest(*again, manifest_, false).code(), Code::kInvalidArgument);
  EXPECT_TRUE(write_manifest(*again, manifest_, true).ok());
  EXPECT_EQ(write_manifest(*again, shard_path(0), true).code(),
            Code::kInvalidArgument);  // not a manifest
}

TEST_F(ManifestTest, AManifestIsKnownByItsFirstBytesAlone) {
  const fs::path p = dir_ / "x.json";
  const std::pair<std::string, bool> cases[] = {
      {"{\"format\": \"textfeed-cache-manifest\"", true},
      {" \n\t{\r\n  \"format\"\n:\n\"textfeed-cache-manifest\", garbage", true},
      {std::string("\0\0", 2) + "{\"format\": \"textfeed-cache-manifest\"", false},
      {"{\"images\": {}}", false},  // a UFO json
      {"{\"format\": \"textfeed-cache-manifesto\"", false},
      {"", false},
  };
  for (const auto& [text, manifest] : cases) {
    fs::remove(p);
    std::ofstream(p, std::ios::binary) << text;
    EXPECT_EQ(is_manifest_file(p.string()), manifest) << text;
  }
  EXPECT_FALSE(is_manifest_file(dir_.string()));
}

TEST_F(ManifestTest, MergeRefusesAnIncompleteRepeatedOrForeignSet) {
  auto missing = merge({shard_path(0), shard_path(2)});
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message().find("shard 1/3"), std::string::npos)
      << missing.error().message();
  EXPECT_NE(missing.error().message().find("missing"), std::string::npos)
      << missing.error().message();

  fs::copy_file(shard_path(1), dir_ / "shards" / "copy.tfc");
  auto twice =
      merge({shard_path(0), shard_path(1), (dir_ / "shards" / "copy.tfc").string(), shard_path(2)});
  ASSERT_FALSE(twice.has_value());
  EXPECT_NE(twice.error().message().find("are both shard 1/3"), std::string::npos)
      << twice.error().message();

  write_shard(1, 2, (dir_ / "shards" / "of2.tfc").string());  // shard 1 of another N
  auto other_n = merge({shard_path(0), (dir_ / "shards" / "of2.tfc").string(), shard_path(2)});
  ASSERT_FALSE(other_n.has_value());
  EXPECT_NE(other_n.error().message().find("of2.tfc is not of the same build"), std::string::npos)
      << other_n.error().message();
  EXPECT_NE(other_n.error().message().find("shard count N 3 vs 2"), std::string::npos)
      << other_n.error().message();

  write_shard(1, 3, (dir_ / "shards" / "foreign.tfc").string(), 0xbeef);
  auto foreign = merge({shard_path(0), (dir_ / "shards" / "foreign.tfc").string(), shard_path(2)});
  ASSERT_FALSE(foreign.has_value());
  EXPECT_NE(foreign.error().message().find("dataset fingerprint"), std::string::npos)
      << foreign.error().message();

  // A cache from before shards existed records no dataset.
  build((dir_ / "old.tfc").string());
  auto old = merge({(dir_ / "old.tfc").string()});
  ASSERT_FALSE(old.has_value());
  EXPECT_NE(old.error().message().find("before shards existed"), std::string::npos)
      << old.error().message();

  // Shards outside the manifest's folder cannot be named relatively without "..".
  fs::create_directories(dir_ / "elsewhere");
  std::vector<std::string> paths;
  for (uint32_t k = 0; k < kShards; ++k) {
    paths.push_back((dir_ / "elsewhere" / ("s" + std::to_string(k) + ".tfc")).string());
    fs::copy_file(shard_path(k), paths.back());
  }
  std::vector<std::shared_ptr<const CacheReader>> readers;
  for (const auto& p : paths) readers.push_back(*CacheReader::open(p));
  auto outside = merge_shards(readers, paths, (dir_ / "shards" / "m.tfmanifest").string());
  ASSERT_FALSE(outside.has_value());
  EXPECT_NE(outside.error().message().find("is not in or below"), std::string::npos)
      << outside.error().message();
}

TEST_F(ManifestTest, AMissingShardIsNamedWithTheManifest) {
  merge_and_write();
  fs::remove(shard_path(1));
  auto set = open_manifest(manifest_);
  ASSERT_FALSE(set.has_value());
  EXPECT_EQ(set.error().code(), Code::kNotFound);
  EXPECT_NE(set.error().message().find("shard 1/3 (shards/s1.tfc)"), std::string::npos)
      << set.error().message();
  EXPECT_NE(set.error().message().find(manifest_), std::string::npos) << set.error().message();
}

TEST_F(ManifestTest, ASwappedOrRebuiltShardIsRefusedByItsChecksum) {
  merge_and_write();
  // The same shard built again (another build time): another file than the manifest lists.
  write_shard(1, kShards, shard_path(1), 0xfeed, 1800000000);
  auto rebuilt = open_manifest(manifest_);
  ASSERT_FALSE(rebuilt.has_value());
  EXPECT_EQ(rebuilt.error().code(), Code::kCorrupt);
  EXPECT_NE(rebuilt.error().message().find("s1.tfc"), std::string::npos)
      << rebuilt.error().message();
  EXPECT_NE(rebuilt.error().message().find("footer checksum"), std::string::npos)
      << rebuilt.error().message();
  EXPECT_NE(rebuilt.error().message().find(manifest_), std::string::npos)
      << rebuilt.error().message();
  // Two shards swapped.
  write_shard(1, kShards, shard_path(1));
  ASSERT_TRUE(open_manifest(manifest_).has_value());
  fs::rename(shard_path(0), dir_ / "tmp.tfc");
  fs::rename(shard_path(2), shard_path(0));
  fs::rename(dir_ / "tmp.tfc", shard_path(2));
  auto swapped = open_manifest(manifest_);
  ASSERT_FALSE(swapped.has_value());
  EXPECT_NE(swapped.error().message().find("shards/s0.tfc"), std::string::npos)
      << swapped.error().message();
  EXPECT_NE(swapped.error().message().find("sample count is 3, the manifest's 2"),
            std::string::npos)
      << swapped.error().message();
}

TEST_F(ManifestTest, ADamagedShardIsFoundOnReadNamingIt) {
  merge_and_write();
  {
    std::fstream f(shard_path(2), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  auto set = open_manifest(manifest_);  // records are checked lazily
  ASSERT_TRUE(set.has_value()) << set.error().to_string();
  auto v = (*set)->shards[2]->sample(0);
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message().find("s2.tfc"), std::string::npos) << v.error().message();
  // A damaged footer fails the open, naming the shard and the manifest.
  const auto size = fs::file_size(shard_path(1));
  {
    std::fstream f(shard_path(1), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 3));
    f.put('\x00');
  }
  set = open_manifest(manifest_);
  ASSERT_FALSE(set.has_value());
  EXPECT_EQ(set.error().code(), Code::kCorrupt);
  EXPECT_NE(set.error().message().find("shard 1/3 (shards/s1.tfc) of cache manifest " + manifest_),
            std::string::npos)
      << set.error().message();
}

TEST_F(ManifestTest, HostileManifestsAreRefusedNamingTheFileAndTheField) {
  merge_and_write();
  const std::string good = text();
  const std::pair<std::pair<std::string, std::string>, std::string> edits[] = {
      {{"\"shards/s1.tfc\"", "\"/etc/passwd\""}, "'shards[1].path'"},
      {{"\"shards/s1.tfc\"", "\"../s1.tfc\""}, "'shards[1].path'"},
      {{"\"shards/s1.tfc\"", "\"shards/../../s1.tfc\""}, "'shards[1].path'"},
      {{"\"shards/s1.tfc\"", "\"shards//s1.tfc\""}, "'shards[1].path'"},
      {{"\"shards/s1.tfc\"", "\"\""}, "'shards[1].path'"},
      {{"\"shards/s1.tfc\"", "17"}, "'shards[1].path' must be a string"},
      {{"\"samples\": 7", "\"samples\": -7"}, "'samples'"},
      {{"\"samples\": 7", "\"samples\": 8"}, "'samples' is 8 but the shards hold 7"},
      {{"\"first\": 4", "\"first\": 3"}, "'shards[2].first'"},
      {{"\"shard\": 2", "\"shard\": 1"}, "'shards[2].shard'"},
      {{"\"shards\": 3", "\"shards\": 2"}, "'shards'"},
      {{"\"fingerprint\": \"000000000000feed\"", "\"fingerprint\": \"feed\""},
       "'dataset.fingerprint'"},
      {{"\"codec\": \"raw\"", "\"codec\": \"png\""}, "'build.codec'"},
      {{"\"version\": 1", "\"version\": 0"}, "'version'"},
      {{"\"format\": \"textfeed-cache-manifest\"", "\"format\": \"something\""}, "'format'"},
      {{"\"footer_crc\"", "\"footer\""}, "'shards[0].footer_crc' is missing"},
  };
  for (const auto& [change, field] : edits) {
    write_text(good);
    edit(change.first, change.second);
    auto r = open_manifest(manifest_);
    ASSERT_FALSE(r.has_value()) << change.second;
    EXPECT_EQ(r.error().code(), Code::kCorrupt) << r.error().to_string();
    EXPECT_NE(r.error().message().find(manifest_), std::string::npos) << r.error().message();
    EXPECT_NE(r.error().message().find(field), std::string::npos)
        << change.second << ": " << r.error().message();
  }
  for (const std::string& garbage :
       {good.substr(0, good.size() / 2), std::string("\x89PNG garbage"), std::string(),
        std::string(100000, '[') + std::string(100000, ']'), std::string("[1, 2]")}) {
    write_text(garbage);
    auto r = open_manifest(manifest_);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code(), Code::kCorrupt) << r.error().to_string();
    EXPECT_NE(r.error().message().find(manifest_ + ": "), std::string::npos) << r.error().message();
  }
  write_text(good);
  edit("\"version\": 1", "\"version\": 2");
  EXPECT_EQ(open_manifest(manifest_).error().code(), Code::kUnimplemented);
  fs::remove(manifest_);
  EXPECT_EQ(open_manifest(manifest_).error().code(), Code::kNotFound);
  fs::create_directory(manifest_);
  EXPECT_EQ(open_manifest(manifest_).error().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::cache
