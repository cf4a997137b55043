// make_targets time on one core: ~150 words on a 1024 crop at map 0.5 (upstage) and ~15 words on
// a 512 crop at map 0.25 (sakura), about a tenth of them ignored, preallocated outputs and scratch
// reused as in a worker; and make_db_targets on a 640 crop with 15 words (quads and curved 20-point
// polygons, PaddleOCR's defaults). Prints min and median microseconds per call over the repeats.
//   textfeed_targets_bench [--reps N] [--only east|db]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "augment/db_targets.h"
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

// A word bent along an arc: `n` / 2 points on the outer arc, then as many on the inner one,
// back; radius 150..450 px, arc length 60..260 px, height 12..50 px.
void curved_word(std::mt19937& rng, int crop, int n, std::vector<double>& xy) {
  std::uniform_real_distribution<double> u(0, 1);
  const double cx = u(rng) * crop, cy = u(rng) * crop, r = 150 + 300 * u(rng), len = 60 + 200 * u(rng),
               h = 12 + 38 * u(rng), a0 = u(rng) * 2 * M_PI, span = len / r;
  const int half = n / 2;
  for (int side = 0; side < 2; ++side)
    for (int i = 0; i < half; ++i) {
      const double t = a0 + span * (side == 0 ? i : half - 1 - i) / (half - 1);
      const double rad = side == 0 ? r : r - h;
      xy.push_back(cx + rad * std::cos(t) - r * std::cos(a0 + span / 2));
      xy.push_back(cy + rad * std::sin(t) - r * std::sin(a0 + span / 2));
    }
}

void run_db_case(int words, int crop, int reps) {
  std::vector<float> planes(4 * static_cast<size_t>(crop) * crop);
  auto view = [&](int k) {
    return MutableImageView{reinterpret_cast<uint8_t*>(planes.data() + static_cast<size_t>(k) * crop * crop),
                            crop, crop, 1, static_cast<ptrdiff_t>(crop * sizeof(float)), DType::kF32};
  };
  const DbTargetViews out{view(0), view(1), view(2), view(3)};
  DbScratch scratch;
  std::vector<double> xy, quad;
  std::vector<uint32_t> ends;
  std::vector<unsigned char> labels, one_label, ignore(static_cast<size_t>(words));
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) {
    std::mt19937 rng(2000u + static_cast<unsigned>(r % 16));
    xy.clear(), ends.clear(), labels.clear();
    for (int w = 0; w < words; ++w) {
      if (w % 2 == 0) {
        random_words(1, crop, static_cast<unsigned>(rng()), quad, one_label);
        xy.insert(xy.end(), quad.begin(), quad.end());
        labels.push_back(one_label[0]);
      } else {
        curved_word(rng, crop, 20, xy);
        labels.push_back(rng() % 10 == 0 ? 0 : 1);
      }
      ends.push_back(static_cast<uint32_t>(xy.size() / 2));
    }
    const PolygonsView polys{xy, ends};
    const auto t0 = std::chrono::steady_clock::now();
    const textfeed::Status st = make_db_targets(out, polys, labels, DbTargetOptions{}, scratch, ignore);
    const auto t1 = std::chrono::steady_clock::now();
    if (!st.ok()) {
      std::fprintf(stderr, "db: %s\n", st.to_string().c_str());
      std::exit(1);
    }
    if (r >= 4) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  std::printf("%-8s %4d words, crop %4d, 4 maps : min %7.1f us  median %7.1f us  (%zu reps)\n", "db",
              words, crop, us.front(), us[us.size() / 2], us.size());
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 200;
  const char* only = "";
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::max(8, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
  if (std::strcmp(only, "db") != 0) {
    run_case("upstage", Profile::kUpstage, 150, reps);
    run_case("sakura", Profile::kSakura, 15, reps);
  }
  if (std::strcmp(only, "east") != 0) run_db_case(15, 640, reps);
  return 0;
}
