// make_targets time on one core: ~150 words on a 1024 crop at map 0.5 (upstage) and ~15 words on
// a 512 crop at map 0.25 (sakura), about a tenth of them ignored, preallocated outputs and scratch
// reused as in a worker. Prints min and median microseconds per call over the repeats.
//   textfeed_targets_bench [--reps N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "augment/profile.h"
#include "augment/targets.h"
#include "base/image.h"

namespace {

using textfeed::DType;
using textfeed::MutableImageView;
using namespace textfeed::augment;

// Word-like rotated rectangles: width 20..220 px, height 10..50 px, angle within +-15 degrees,
// centres anywhere in the crop (some words are cut by its border).
void random_words(int n, int crop, unsigned seed, std::vector<double>& vertices,
                  std::vector<unsigned char>& labels) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  vertices.clear();
  labels.clear();
  for (int b = 0; b < n; ++b) {
    const double cx = u(rng) * crop, cy = u(rng) * crop, w = 20 + 200 * u(rng),
                 h = 10 + 40 * u(rng);
    const double t = (u(rng) - 0.5) * (30.0 / 180.0 * M_PI), c = std::cos(t), s = std::sin(t);
    const double px[4] = {-w / 2, w / 2, w / 2, -w / 2}, py[4] = {-h / 2, -h / 2, h / 2, h / 2};
    for (int i = 0; i < 4; ++i) {
      vertices.push_back(cx + c * px[i] - s * py[i]);
      vertices.push_back(cy + s * px[i] + c * py[i]);
    }
    labels.push_back(u(rng) < 0.1 ? 0 : 1);
  }
}

void run_case(const char* name, Profile profile, int words, int reps) {
  const AugmentOptions o = profile_defaults(profile);
  const int m = o.map_size();
  std::vector<float> score(static_cast<size_t>(m) * m), geo(5 * score.size()), mask(score.size());
  auto view = [m](std::vector<float>& b, int h) {
    return MutableImageView{reinterpret_cast<uint8_t*>(b.data()),      h,          m, 1,
                            static_cast<ptrdiff_t>(m * sizeof(float)), DType::kF32};
  };
  const TargetViews out{view(score, m), view(geo, 5 * m), view(mask, m)};
  TargetScratch scratch;
  std::vector<double> vertices;
  std::vector<unsigned char> labels;
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) {
    random_words(words, o.crop_size, 1000u + static_cast<unsigned>(r % 16), vertices, labels);
    const auto t0 = std::chrono::steady_clock::now();
    const textfeed::Status st = make_targets(out, vertices, labels, o.crop_size, o, scratch);
    const auto t1 = std::chrono::steady_clock::now();
    if (!st.ok()) {
      std::fprintf(stderr, "%s: %s\n", name, st.to_string().c_str());
      std::exit(1);
    }
    if (r >= 4)
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());  // 4 warm-ups
  }
  std::sort(us.begin(), us.end());
  std::printf("%-8s %4d words, crop %4d, map %3d: min %7.1f us  median %7.1f us  (%zu reps)\n",
              name, words, o.crop_size, m, us.front(), us[us.size() / 2], us.size());
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 200;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::max(8, std::atoi(argv[++i]));
  run_case("upstage", Profile::kUpstage, 150, reps);
  run_case("sakura", Profile::kSakura, 15, reps);
  return 0;
}
