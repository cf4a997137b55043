// The SampleSource seam: sources that are neither a dataset folder nor a cache drive the whole
// pipeline through the interface alone (what a mixture of sources will do), and a source's read
// error is a bad sample like any other.
#include "loader/sources/source.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "loader/decode/decode.h"
#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/sources/dataset_source.h"
#include "loader/sources/mixture_source.h"

namespace textfeed::loader {
namespace {

const std::string kSample = std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample";

// The sample dataset held in memory: every image file's bytes read once, served as encoded
// pixels (or, with `decode`, decoded once at full size and served as pixels), with the dataset's
// own words. Indexes listed in `failing` fail to read.
class InMemorySource final : public SampleSource {
 public:
  InMemorySource(const Dataset& ds, bool decode, std::set<size_t> failing = {})
      : ds_(ds), decoded_(decode), failing_(std::move(failing)) {
    Decoder decoder;
    for (size_t i = 0; i < ds_.samples.size(); ++i) {
      files_.emplace_back();
      EXPECT_TRUE(read_file(ds_.image_path(i), files_.back()).ok());
      images_.emplace_back();
      if (decode) {
        EXPECT_TRUE(decoder.decode(files_.back(), ds_.samples[i].image, 1, images_.back()).ok());
      }
    }
  }

  size_t size() const override { return ds_.samples.size(); }
  Status read(size_t i, SampleRead& out) const override {
    if (failing_.count(i)) return Status::io("memory: sample " + std::to_string(i) + " is gone");
    const SampleRecord& r = ds_.samples[i];
    out.name = "memory:" + r.image;
    out.quads = r.quads;
    out.labels = r.labels;
    out.pre_resized = false;
    if (decoded_) {
      out.pixels = images_[i].view();
      out.width = out.pixels.width;
      out.height = out.pixels.height;
      out.encoded = {};
    } else {
      out.pixels = {};
      out.width = out.height = 0;  // the header says it
      out.encoded = files_[i];
    }
    return Status();
  }
  std::string name(size_t i) const override { return "memory:" + ds_.samples.at(i).image; }
  std::string describe() const override { return "memory (" + std::to_string(size()) + " images)"; }
  uint64_t fingerprint() const override { return 42; }
  int stored_image_size() const override { return -1; }

 private:
  Dataset ds_;
  bool decoded_;
  std::set<size_t> failing_;
  std::vector<std::vector<uint8_t>> files_;
  std::vector<Image> images_;
};

std::unique_ptr<BatchPipeline> make(std::shared_ptr<const SampleSource> src,
                                    augment::Profile profile) {
  PipelineSpec o;
  o.augment = augment::profile_defaults(profile);
  o.sampler.seed = 11;
  o.sampler.batch_size = 4;
  auto p = BatchPipeline::create(std::move(src), o);
  EXPECT_TRUE(p.has_value()) << p.error().to_string();
  return std::move(*p);
}

std::vector<uint8_t> fill(BatchPipeline& p, int threads, size_t batch, BatchInfo& info) {
  std::vector<uint8_t> slot(p.layout().slot_bytes, 0);
  WorkerPool pool(threads);
  const Status s = p.fill(0, batch, slot.data(), info, pool);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return slot;
}

TEST(SampleSourceTest, AnInMemorySourceOfTheSameFilesGivesTheDatasetsBatches) {
  auto ds = open_dataset(kSample, {});
  ASSERT_TRUE(ds.has_value());
  for (auto profile : {augment::Profile::kSakura, augment::Profile::kUpstage}) {
    auto from_folder = make(std::make_shared<const DatasetSource>(*ds), profile);
    auto from_memory = make(std::make_shared<const InMemorySource>(*ds, false), profile);
    EXPECT_EQ(from_memory->source().describe(),
              "memory (" + std::to_string(ds->samples.size()) + " images)");
    for (size_t b = 0; b < 2; ++b) {
      BatchInfo a, m;
      EXPECT_EQ(fill(*from_folder, 2, b, a), fill(*from_memory, 1, b, m)) << "batch " << b;
      EXPECT_EQ(a.indices, m.indices);
    }
  }
}

TEST(SampleSourceTest, DecodedPixelsFromASourceGiveTheSameBatchesWhateverTheThreads) {
  auto ds = open_dataset(kSample, {});
  ASSERT_TRUE(ds.has_value());
  auto p = make(std::make_shared<const InMemorySource>(*ds, true), augment::Profile::kUpstage);
  BatchInfo one, two;
  const std::vector<uint8_t> a = fill(*p, 1, 1, one), b = fill(*p, 2, 1, two);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(one.errors.empty());
  // Something was written: the image tensor is not all zeros.
  const TensorDesc& img = p->layout().image();
  EXPECT_NE(std::vector<uint8_t>(img.size_bytes, 0),
            std::vector<uint8_t>(a.begin() + img.offset_bytes,
                                 a.begin() + img.offset_bytes + img.size_bytes));
}

TEST(SampleSourceTest, AReadErrorIsABadSampleReplacedAsAnyOther) {
  auto ds = open_dataset(kSample, {});
  ASSERT_TRUE(ds.has_value());
  auto whole = make(std::make_shared<const InMemorySource>(*ds, false), augment::Profile::kSakura);
  BatchInfo info;
  fill(*whole, 1, 0, info);
  const uint32_t victim = info.indices.at(1);
  auto p = make(std::make_shared<const InMemorySource>(*ds, false, std::set<size_t>{victim}),
                augment::Profile::kSakura);
  BatchInfo got;
  fill(*p, 2, 0, got);
  ASSERT_EQ(got.errors.size(), 1u);
  EXPECT_EQ(got.errors[0].index, victim);
  EXPECT_NE(got.errors[0].replaced_by, victim);
  EXPECT_EQ(got.errors[0].code, Code::kIo);
  EXPECT_NE(got.errors[0].message.find("memory: sample " + std::to_string(victim) + " is gone"),
            std::string::npos)
      << got.errors[0].message;
  EXPECT_EQ(got.indices.at(1), got.errors[0].replaced_by);
}

// A source of `n` samples that only counts: what a mixture's fingerprint reads of its members.
class CountingSource final : public SampleSource {
 public:
  CountingSource(size_t n, uint64_t fingerprint) : n_(n), fingerprint_(fingerprint) {}
  size_t size() const override { return n_; }
  Status read(size_t, SampleRead&) const override { return Status::unimplemented("counting only"); }
  std::string name(size_t i) const override { return std::to_string(i); }
  std::string describe() const override { return "counting"; }
  uint64_t fingerprint() const override { return fingerprint_; }
  int stored_image_size() const override { return -1; }

 private:
  size_t n_;
  uint64_t fingerprint_;
};

uint64_t mixture_fingerprint(double weight_a, double weight_b) {
  auto m = MixtureSource::create({{std::make_shared<const CountingSource>(10, 1), "a", weight_a},
                                  {std::make_shared<const CountingSource>(10, 2), "b", weight_b}});
  EXPECT_TRUE(m.has_value()) << m.error().to_string();
  return m.has_value() ? (*m)->fingerprint() : 0;
}

// Issue 30 #2: weights were hashed as 6-decimal text, so (1e-7, 4e-7) and (4e-7, 1e-7), which
// draw other orders, had one fingerprint and a checkpoint of one resumed on the other.
TEST(MixtureSourceTest, TheFingerprintTellsWeightsThatPrintAlikeApart) {
  EXPECT_NE(mixture_fingerprint(1e-7, 4e-7), mixture_fingerprint(4e-7, 1e-7));
  EXPECT_NE(mixture_fingerprint(1, 1), mixture_fingerprint(1, 1 + 1e-12));
  EXPECT_EQ(mixture_fingerprint(1e-7, 4e-7), mixture_fingerprint(1e-7, 4e-7)) << "not stable";
  EXPECT_EQ(mixture_fingerprint(0, 0), mixture_fingerprint(-0.0, 0)) << "-0 is no weight, as 0";
}

}  // namespace
}  // namespace textfeed::loader
