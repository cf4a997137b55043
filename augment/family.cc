// The family registry's lookups and the stage times.
#include "augment/family.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace textfeed::augment {

void StageTimes::add(const StageTimes& o) {
  read += o.read;
  decode += o.decode;
  plan += o.plan;
  warp += o.warp;
  photometric += o.photometric;
  targets += o.targets;
  samples += o.samples;
}

std::array<double, kNumStages> StageTimes::ms_per_sample() const {
  const double n = samples > 0 ? static_cast<double>(samples) : 1.0;
  return {read * 1e3 / n, decode * 1e3 / n,      plan * 1e3 / n,
          warp * 1e3 / n, photometric * 1e3 / n, targets * 1e3 / n};
}

const Family& family_of(Profile profile) {
  for (const Family* f : families())
    if (f->trains(profile)) return *f;
  std::fprintf(stderr, "textfeed: no detector family trains profile %d\n",
               static_cast<int>(profile));
  std::abort();
}

Status check_compact_rows(Profile profile) {
  if (family_of(profile).compact_rows()) return Status();
  std::string can;
  for (const ProfileEntry& e : profile_entries())
    if (family_of(e.profile).compact_rows()) can += (can.empty() ? "" : ", ") + std::string(e.name);
  return Status::invalid_argument(
      "the compact payload is for the profiles whose family has "
      "compact rows (" +
      can + "), not " + std::string(profile_name(profile)));
}

}  // namespace textfeed::augment
