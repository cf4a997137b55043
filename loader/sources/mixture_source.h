// MixtureSource: several SampleSources as one (loader/sources/source.h), their samples end to end:
// member s's sample i is index offset(s) + i. With weights, the sampler draws each epoch's samples
// from the members in proportion (loader/sources/sampler.h); without, an epoch is every sample
// once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "loader/sources/source.h"
#include "loader/spec/spec.h"

namespace textfeed::loader {

// Immutable; every method is safe from many threads (the members' are).
class MixtureSource final : public SampleSource {
 public:
  struct Member {
    std::shared_ptr<const SampleSource> source;
    std::string label;  // for messages and batch reports: the path or name it was given as
    double weight = 0;  // 0 for every member or > 0 for every one (SourceSpec::weight)
  };
  // Errors: kInvalidArgument (no members, over kMaxSources, more than 2^32 - 1 samples in all,
  // weights given to some members only, caches whose pixels were resized to different sizes).
  static Result<std::shared_ptr<const MixtureSource>> create(std::vector<Member> members);

  size_t size() const override { return offsets_.back(); }
  Status read(size_t i, SampleRead& out) const override;
  // "label: the member's name of the sample".
  std::string name(size_t i) const override;
  std::string describe() const override;
  // Of the members' fingerprints, sizes, labels' order and exact weights (their bits): another
  // weighting draws other epochs, so a checkpoint of one is refused by the other.
  uint64_t fingerprint() const override { return fingerprint_; }
  // The members' common stored size; -1 when none is pre-resized.
  int stored_image_size() const override { return stored_; }
  std::vector<SourcePart> parts() const override;

  const std::vector<Member>& members() const { return members_; }

 private:
  explicit MixtureSource(std::vector<Member> members);
  // (member, index there) of index i.
  std::pair<size_t, size_t> locate(size_t i) const;

  std::vector<Member> members_;
  std::vector<size_t> offsets_;  // members_.size() + 1 prefix sums
  uint64_t fingerprint_ = 0;
  int stored_ = -1;
};

// One source as it is (no weight), else a MixtureSource of them, each opened with
// SampleSource::open(path, reader) and labelled with its path. Errors: those of validate() on the
// weights, of each open (with the source's path), of MixtureSource::create.
Result<std::shared_ptr<const SampleSource>> open_sources(const std::vector<SourceSpec>& sources);

}  // namespace textfeed::loader
