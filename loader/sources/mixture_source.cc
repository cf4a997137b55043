// MixtureSource: index arithmetic over members; reads forwarded.
#include "loader/sources/mixture_source.h"

#include <algorithm>

#include "loader/sources/detail/fingerprint.h"

namespace textfeed::loader {

Result<std::shared_ptr<const MixtureSource>> MixtureSource::create(std::vector<Member> members) {
  if (members.empty() || members.size() > kMaxSources)
    return Status::invalid_argument("a mixture has 1.." + std::to_string(kMaxSources) +
                                    " sources, got " + std::to_string(members.size()));
  size_t total = 0, weighted = 0;
  int stored = -1;
  for (const Member& m : members) {
    if (m.source->size() > UINT32_MAX - total)
      return Status::invalid_argument("the sources hold more than 2^32 - 1 samples together");
    total += m.source->size();
    if (!(m.weight >= 0 && m.weight <= kMaxWeight))
      return Status::invalid_argument("source " + m.label + ": weight must be 0 or in (0, 1e9]");
    weighted += m.weight > 0;
    const int s = m.source->stored_image_size();
    if (s >= 0 && stored >= 0 && s != stored)
      return Status::invalid_argument("source " + m.label + " holds pixels resized to " +
                                      std::to_string(s) + ", another source to " +
                                      std::to_string(stored) +
                                      ": caches built for different image sizes cannot be mixed");
    if (s >= 0) stored = s;
  }
  if (weighted != 0 && weighted != members.size())
    return Status::invalid_argument("either every source has a weight or none has");
  return std::shared_ptr<const MixtureSource>(new MixtureSource(std::move(members)));
}

MixtureSource::MixtureSource(std::vector<Member> members) : members_(std::move(members)) {
  internal::Fingerprint f;
  // 2: weights hashed exactly (1 hashed their 6-decimal text, so 1e-7 and 4e-7 were one weight).
  f.text("textfeed mixture 2");
  offsets_.push_back(0);
  for (const Member& m : members_) {
    offsets_.push_back(offsets_.back() + m.source->size());
    f.u64(m.source->fingerprint());
    f.u64(m.source->size());
    f.f64(m.weight == 0 ? 0.0 : m.weight);  // -0 is no weight, as 0
    if (const int s = m.source->stored_image_size(); s >= 0) stored_ = s;
  }
  fingerprint_ = f.value();
}

std::pair<size_t, size_t> MixtureSource::locate(size_t i) const {
  const size_t m = static_cast<size_t>(std::upper_bound(offsets_.begin(), offsets_.end(), i) -
                                       offsets_.begin()) -
                   1;
  return {m, i - offsets_[m]};
}

Status MixtureSource::read(size_t i, SampleRead& out) const {
  const auto [m, j] = locate(i);
  return members_[m].source->read(j, out);
}

std::string MixtureSource::name(size_t i) const {
  const auto [m, j] = locate(i);
  return members_[m].label + ": " + members_[m].source->name(j);
}

std::string MixtureSource::describe() const {
  std::string s = "mixture of " + std::to_string(members_.size()) + " sources (" +
                  std::to_string(size()) + " samples):";
  for (const Member& m : members_) {
    s += " [" + m.source->describe();
    if (m.weight > 0) s += ", weight " + std::to_string(m.weight);
    s += "]";
  }
  return s;
}

std::vector<SourcePart> MixtureSource::parts() const {
  std::vector<SourcePart> parts;
  for (const Member& m : members_) parts.push_back({m.source->size(), m.weight, m.label});
  return parts;
}

Result<std::shared_ptr<const SampleSource>> open_sources(const std::vector<SourceSpec>& sources) {
  if (sources.empty()) return Status::invalid_argument("no sources");
  if (sources.size() == 1 && sources[0].weight == 0)
    return SampleSource::open(sources[0].path, sources[0].reader);
  std::vector<MixtureSource::Member> members;
  for (const SourceSpec& s : sources) {
    Result<std::shared_ptr<const SampleSource>> one = SampleSource::open(s.path, s.reader);
    if (!one.has_value()) return one.error();
    members.push_back({std::move(*one), s.path, s.weight});
  }
  TF_ASSIGN_OR_RETURN(std::shared_ptr<const MixtureSource> mixture,
                      MixtureSource::create(std::move(members)));
  return std::shared_ptr<const SampleSource>(std::move(mixture));
}

}  // namespace textfeed::loader
