// Sampler: epoch orders (concatenated or weighted sources, elastic resume) and DDP sharding.
#include "loader/sources/sampler.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "base/rng.h"

namespace textfeed::loader {

namespace {
// The epoch's permutation draws from a stream no sample uses (sample streams are draws, below
// 2^61), source s's permutations from kSourceStream - s.
constexpr uint64_t kPermutationStream = ~uint64_t{0};
constexpr uint64_t kSourceStream = ~uint64_t{0} - 1;

void shuffle(std::span<uint64_t> v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(static_cast<uint32_t>(i))]);
}

// Largest-remainder rounding of total * w_s / sum(w): the quotas sum to `total` exactly.
std::vector<uint64_t> quotas_of(const std::vector<double>& weights, uint64_t total) {
  long double sum = 0;
  for (double w : weights) sum += w;
  std::vector<uint64_t> q(weights.size());
  std::vector<std::pair<long double, size_t>> rest(weights.size());
  uint64_t given = 0;
  for (size_t s = 0; s < weights.size(); ++s) {
    const long double exact = static_cast<long double>(total) * weights[s] / sum;
    q[s] = std::min<uint64_t>(static_cast<uint64_t>(exact), total);
    given += q[s];
    rest[s] = {exact - static_cast<long double>(q[s]), s};
  }
  std::stable_sort(rest.begin(), rest.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < total && k < rest.size(); ++k, ++given) ++q[rest[k].second];
  return q;
}

std::string str(uint64_t v) { return std::to_string(v); }
}  // namespace

Result<Sampler> Sampler::create(std::vector<size_t> sizes, std::vector<double> weights,
                                const SamplerOptions& o) {
  TF_RETURN_IF_ERROR(validate(o));
  if (sizes.empty()) return Status::invalid_argument("sampler: no sources");
  if (!weights.empty() && weights.size() != sizes.size())
    return Status::invalid_argument("sampler: " + str(weights.size()) + " weights for " +
                                    str(sizes.size()) + " sources");
  Sampler s;
  s.offsets_.push_back(0);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0)
      return Status::invalid_argument("sampler: source " + str(i) + " has no samples");
    if (sizes[i] > UINT32_MAX - s.offsets_.back())
      return Status::invalid_argument("sampler: more than 2^32 - 1 samples");
    s.offsets_.push_back(s.offsets_.back() + sizes[i]);
  }
  s.sizes_ = std::move(sizes);
  s.options_ = o;
  s.epoch_length_ = s.dataset_size();
  if (!weights.empty()) {
    for (double w : weights)
      if (!(w > 0 && w <= kMaxWeight))
        return Status::invalid_argument("sampler: a weight must be in (0, 1e9]");
    if (o.epoch_size != 0) s.epoch_length_ = o.epoch_size;
    s.quotas_ = quotas_of(weights, s.epoch_length_);
  } else if (o.epoch_size != 0) {
    return Status::invalid_argument("sampler: epoch_size applies to weighted sources only");
  }
  if (s.samples_per_rank() == 0 && o.drop_last)
    return Status::invalid_argument("sampler: " + str(s.epoch_length_) +
                                    " samples cannot give every one of " + str(o.world_size) +
                                    " ranks a sample with drop_last");
  if (!o.resume.stages.empty()) {
    std::vector<uint64_t> order = s.full_order(o.resume.epoch);
    TF_RETURN_IF_ERROR(s.apply_resume(order));
    s.resumed_ = std::make_shared<const std::vector<uint64_t>>(std::move(order));
  }
  return s;
}

size_t Sampler::per_rank(size_t length) const {
  const size_t w = static_cast<size_t>(options_.world_size), r = static_cast<size_t>(options_.rank);
  if (options_.drop_last) return length / w;
  if (options_.pad) return (length + w - 1) / w;
  return r < length ? (length - r + w - 1) / w : 0;  // positions r, r + w, ... below length
}

size_t Sampler::batches(size_t length) const {
  const size_t b = static_cast<size_t>(options_.batch_size), n = per_rank(length);
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

size_t Sampler::batches_in_epoch(uint64_t epoch) const {
  return resumed_ && epoch == options_.resume.epoch ? batches(resumed_->size())
                                                    : batches_per_epoch();
}

EpochLengths Sampler::epoch_lengths() const {
  EpochLengths e{batches_per_epoch()};
  if (resumed_) e = {batches_per_epoch(), true, options_.resume.epoch, batches(resumed_->size())};
  return e;
}

size_t Sampler::padded_samples() const {
  const size_t total = total_samples();
  return total > epoch_length_ ? total - epoch_length_ : 0;
}

std::vector<uint64_t> Sampler::full_order(uint64_t epoch) const {
  std::vector<uint64_t> order;
  order.reserve(epoch_length_);
  if (quotas_.empty()) {
    for (size_t i = 0; i < epoch_length_; ++i) order.push_back(i);
  } else {
    std::vector<uint64_t> perm;
    for (size_t s = 0; s < sizes_.size(); ++s) {
      Rng rng(options_.seed, epoch, kSourceStream - s);
      const uint64_t n = sizes_[s];
      for (uint64_t copy = 0; copy * n < quotas_[s]; ++copy) {
        perm.resize(n);
        std::iota(perm.begin(), perm.end(), uint64_t{offsets_[s]} | (copy << 32));
        if (options_.shuffle) shuffle(perm, rng);
        const uint64_t take = std::min(n, quotas_[s] - copy * n);
        order.insert(order.end(), perm.begin(), perm.begin() + static_cast<ptrdiff_t>(take));
      }
    }
  }
  if (options_.shuffle) {
    Rng rng(options_.seed, epoch, kPermutationStream);
    shuffle(order, rng);
  }
  return order;
}

// Removes from `order` what each stage of the resume delivered, stage after stage.
Status Sampler::apply_resume(std::vector<uint64_t>& order) const {
  for (size_t i = 0; i < options_.resume.stages.size(); ++i) {
    const ResumeStage& st = options_.resume.stages[i];
    const size_t length = order.size(), w = static_cast<size_t>(st.world_size),
                 b = static_cast<size_t>(st.batch_size);
    if (length == 0) break;
    const size_t per = options_.drop_last ? length / w : (length + w - 1) / w;
    const size_t nb = options_.drop_last ? per / b : (per + b - 1) / b;
    std::vector<bool> delivered(length);
    for (size_t r = 0; r < w; ++r) {
      const uint64_t k = st.batches.size() == 1 ? st.batches[0] : st.batches[r];
      if (k > nb)
        return Status::invalid_argument(
            "resume stage " + str(i) + ": rank " + str(r) + " delivered " + str(k) +
            " batches of an epoch that gives each of its " + str(w) + " ranks " + str(nb) +
            " (of " + str(b) + " samples from " + str(length) + ")");
      const size_t d = std::min<size_t>(static_cast<size_t>(k) * b, per);
      for (size_t j = 0; j < d; ++j) delivered[(j * w + r) % length] = true;
    }
    size_t kept = 0;
    for (size_t p = 0; p < length; ++p)
      if (!delivered[p]) order[kept++] = order[p];
    order.resize(kept);
  }
  return Status();
}

std::vector<uint64_t> Sampler::epoch_order(uint64_t epoch) const {
  if (resumed_ && epoch == options_.resume.epoch) return *resumed_;
  return full_order(epoch);
}

Status Sampler::batch_indices(std::span<const uint64_t> order, size_t batch,
                              std::vector<uint32_t>& out, std::vector<uint64_t>* draws) const {
  const size_t nb = batches(order.size());
  if (batch >= nb)
    return Status::invalid_argument("sampler: batch " + str(batch) + " of an epoch with " +
                                    str(nb) + " batches");
  const size_t b = static_cast<size_t>(options_.batch_size), per = per_rank(order.size());
  const size_t first = batch * b;
  const size_t count = std::min(b, per - first);
  out.resize(count);
  if (draws) draws->resize(count);
  const size_t w = static_cast<size_t>(options_.world_size), r = static_cast<size_t>(options_.rank);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t d = order[((first + i) * w + r) % order.size()];
    out[i] = draw_index(d);
    if (draws) (*draws)[i] = d;
  }
  return Status();
}

std::pair<uint32_t, uint32_t> Sampler::locate(uint32_t index) const {
  const auto it = std::upper_bound(offsets_.begin(), offsets_.end(), size_t{index});
  const size_t s = static_cast<size_t>(it - offsets_.begin()) - 1;
  return {static_cast<uint32_t>(s), static_cast<uint32_t>(index - offsets_[s])};
}

}  // namespace textfeed::loader
