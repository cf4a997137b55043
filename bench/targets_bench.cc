// make_targets time on one core: ~150 words on a 1024 crop at map 0.5 (upstage) and ~15 words on
// a 512 crop at map 0.25 (sakura), about a tenth of them ignored, preallocated outputs and scratch
// reused as in a worker; and make_db_targets on a 640 crop with 15 words (quads and curved 20-point
// polygons, PaddleOCR's defaults), or on the crops of a file (--db-crops, as bench/db.sh writes
// them), with the default and the exact threshold distances side by side. Prints min and median
// microseconds per call over the repeats.
//   textfeed_targets_bench [--reps N] [--only east|db] [--db-crops FILE]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "augment/db/targets.h"
#include "augment/east/targets.h"
#include "augment/profile.h"
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
  const double cx = u(rng) * crop, cy = u(rng) * crop, r = 150 + 300 * u(rng),
               len = 60 + 200 * u(rng), h = 12 + 38 * u(rng), a0 = u(rng) * 2 * M_PI,
               span = len / r;
  const int half = n / 2;
  for (int side = 0; side < 2; ++side)
    for (int i = 0; i < half; ++i) {
      const double t = a0 + span * (side == 0 ? i : half - 1 - i) / (half - 1);
      const double rad = side == 0 ? r : r - h;
      xy.push_back(cx + rad * std::cos(t) - r * std::cos(a0 + span / 2));
      xy.push_back(cy + rad * std::sin(t) - r * std::sin(a0 + span / 2));
    }
}

// One canvas's polygons for make_db_targets.
struct DbCrop {
  std::vector<double> xy;
  std::vector<uint32_t> ends;
  std::vector<unsigned char> labels;
};

// `count` crops of `words` words: quads and curved 20-point polygons in turn, about a tenth
// ignored.
std::vector<DbCrop> synthetic_db_crops(int count, int words, int crop) {
  std::vector<DbCrop> crops(static_cast<size_t>(count));
  std::vector<double> quad;
  std::vector<unsigned char> one_label;
  for (int c = 0; c < count; ++c) {
    std::mt19937 rng(2000u + static_cast<unsigned>(c));
    DbCrop& d = crops[static_cast<size_t>(c)];
    for (int w = 0; w < words; ++w) {
      if (w % 2 == 0) {
        random_words(1, crop, static_cast<unsigned>(rng()), quad, one_label);
        d.xy.insert(d.xy.end(), quad.begin(), quad.end());
        d.labels.push_back(one_label[0]);
      } else {
        curved_word(rng, crop, 20, d.xy);
        d.labels.push_back(rng() % 10 == 0 ? 0 : 1);
      }
      d.ends.push_back(static_cast<uint32_t>(d.xy.size() / 2));
    }
  }
  return crops;
}

// Crops from a text file, one per line: polygons separated by ';', each "x y x y ..." (px), all
// cared for (bench/db.sh writes the plain-Python baseline's crops so).
std::vector<DbCrop> file_db_crops(const char* path) {
  std::vector<DbCrop> crops;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    DbCrop d;
    std::istringstream polys(line);
    std::string poly;
    while (std::getline(polys, poly, ';')) {
      std::istringstream values(poly);
      double v;
      while (values >> v) d.xy.push_back(v);
      if (d.xy.size() % 2 != 0) {
        std::fprintf(stderr, "%s: an odd number of coordinates in a polygon\n", path);
        std::exit(2);
      }
      d.ends.push_back(static_cast<uint32_t>(d.xy.size() / 2));
      d.labels.push_back(1);
    }
    if (!d.ends.empty()) crops.push_back(std::move(d));
  }
  if (crops.empty()) {
    std::fprintf(stderr, "%s: no crop read\n", path);
    std::exit(2);
  }
  return crops;
}

// make_db_targets on `crops` in turn (reps calls after 4 warm-ups), with the default (fast) and
// the exact threshold distances alternating call by call, so that both see the same machine. The
// maps go to the slots of a batch of 8 in turn, as a worker writes them (a batch is far larger
// than the caches).
void run_db_case(const char* name, const std::vector<DbCrop>& crops, int crop, int reps) {
  constexpr int kSlots = 8;
  const size_t plane = static_cast<size_t>(crop) * crop;
  std::vector<float> planes(kSlots * 4 * plane, 0.f);
  auto views = [&](int call) {
    float* slot = planes.data() + static_cast<size_t>(call % kSlots) * 4 * plane;
    auto view = [&](int k) {
      return MutableImageView{reinterpret_cast<uint8_t*>(slot + k * plane), crop,       crop, 1,
                              static_cast<ptrdiff_t>(crop * sizeof(float)), DType::kF32};
    };
    return DbTargetViews{view(0), view(1), view(2), view(3)};
  };
  DbScratch scratch;
  std::vector<unsigned char> ignore;
  std::vector<double> us[2];
  size_t words = 0;
  for (int r = 0; r < reps + 4; ++r) {
    const DbCrop& d = crops[static_cast<size_t>(r) % crops.size()];
    const PolygonsView polys{d.xy, d.ends};
    ignore.assign(d.labels.size(), 0);
    if (r >= 4) words += d.labels.size();
    for (int exact = 0; exact < 2; ++exact) {
      DbTargetOptions o;
      o.exact_threshold = exact != 0;
      const auto t0 = std::chrono::steady_clock::now();
      const textfeed::Status st =
          make_db_targets(views(2 * r + exact), polys, d.labels, o, scratch, ignore);
      const auto t1 = std::chrono::steady_clock::now();
      if (!st.ok()) {
        std::fprintf(stderr, "db: %s\n", st.to_string().c_str());
        std::exit(1);
      }
      if (r >= 4) us[exact].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
  for (std::vector<double>& v : us) std::sort(v.begin(), v.end());
  std::printf(
      "%-8s %4.1f words, crop %4d, 4 maps : min %7.1f us  median %7.1f us  (%zu reps; exact: "
      "min %7.1f us  median %7.1f us)\n",
      name, static_cast<double>(words) / reps, crop, us[0].front(), us[0][us[0].size() / 2],
      us[0].size(), us[1].front(), us[1][us[1].size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 200;
  const char* only = "";
  const char* db_crops = nullptr;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::max(8, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (std::strcmp(argv[i], "--db-crops") == 0 && i + 1 < argc)
      db_crops = argv[++i];
  if (std::strcmp(only, "db") != 0) {
    run_case("upstage", Profile::kUpstage, 150, reps);
    run_case("sakura", Profile::kSakura, 15, reps);
  }
  if (std::strcmp(only, "east") != 0) {
    if (db_crops != nullptr)
      run_db_case("db", file_db_crops(db_crops), 640, reps);
    else
      run_db_case("db", synthetic_db_crops(16, 15, 640), 640, reps);
  }
  return 0;
}
