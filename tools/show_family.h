// `textfeed show` for the families without a picture of their own (show_family.cc).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "augment/profile.h"
#include "loader/pipeline/producer.h"

namespace textfeed::tools::show {

// Where and what to draw: sample_<i>.png in `out`, with the augmentation of (seed, epoch).
struct FamilyShow {
  std::string out;
  uint64_t seed = 0, epoch = 0;
  std::string file(int i) const {
    return (std::filesystem::path(out) / ("sample_" + std::to_string(i) + ".png")).string();
  }
};

// Draws samples 0..n-1 of `source` through `producer` (the profile's chain): one PNG each, a line
// on stdout each; exits through fail() if any could not be drawn (after drawing the others).
void run_family(const FamilyShow& a, const augment::AugmentOptions& o,
                const loader::SampleSource& source, loader::SampleProducer& producer, int n);

}  // namespace textfeed::tools::show
