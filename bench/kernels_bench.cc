// The per-sample pixel kernels alone, on one core, for a 1024 x 1024 crop: the colour jitter (a
// row of three float planes in L1, 1024 times, all four ops), PIL's vertical pass (3 taps: a 0.9
// shrink; 2 taps: a 1.1 enlargement), the horizontal pass (0.68, as a 3000 px photo resized for a
// 2048 crop), the bilinear step (10 degrees, from a source in the caches and from one in L1), and
// the whole warp of a raw-cache sample (1587 x 2048, height 0.9, 10 degrees). Each kernel runs in
// the build the CPU selects (AVX2 where it has it) and in the baseline build, alternating; the
// inputs are fixed noise and the outputs' checksums are printed, so that two builds of the project
// can be compared byte for byte and in time. Prints min and median ms per call over the rounds
// (each round's time is the least of its calls).
//   textfeed_kernels_bench [--rounds N] [--calls N] [--only NAME]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "augment/colour/color_jitter.h"
#include "augment/geometry/resample.h"
#include "augment/geometry/warp.h"
#include "base/image.h"

namespace {

using namespace textfeed;
using namespace textfeed::augment;

// The most rounds, or calls per round, a run takes.
constexpr int kMaxCount = 1000;

std::vector<uint8_t> noise(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  std::mt19937 rng(seed);
  for (auto& b : v) b = static_cast<uint8_t>(rng() >> 24);
  return v;
}

uint32_t checksum(const void* p, size_t n) {
  uint32_t h = 2166136261u;
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 16777619u;
  return h;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Case {
  std::string name;
  std::function<void()> run;
  std::function<uint32_t()> sum;  // of the output buffer, which the case shares with its baseline
};

// The four ops in one order with factors inside upstage's ranges, on 1024 rows of 1024 pixels.
struct Jitter {
  std::vector<float> start = std::vector<float>(3 * 1024), row = start;
  internal::JitterSteps steps{
      {ColorOp::kHue, ColorOp::kBrightness, ColorOp::kSaturation, ColorOp::kContrast},
      1.2f,
      0.8f,
      23.f,
      1.3f,
      0.6f};
  Jitter() {
    const std::vector<uint8_t> b = noise(start.size(), 1);
    for (size_t i = 0; i < b.size(); ++i) start[i] = b[i];
  }
  // The row jittered 1024 times over (the ops have no data-dependent branch: the cost is that of
  // 1024 fresh rows, without copying them in).
  void run(bool baseline) {
    std::copy(start.begin(), start.end(), row.begin());
    for (int y = 0; y < 1024; ++y) {
      float* r = row.data();
      if (baseline)
        internal::baseline::jitter_row(r, r + 1024, r + 2048, 1024, steps);
      else
        internal::jitter_row(r, r + 1024, r + 2048, 1024, steps);
    }
  }
};

// PIL's vertical pass over `out_rows` rows of 1200 pixels from `in_rows`.
struct Vertical {
  int in_rows, out_rows, bytes = 1200 * 3;
  std::vector<uint8_t> src, out;
  internal::PilTaps taps;
  Vertical(int in, int o)
      : in_rows(in),
        out_rows(o),
        src(noise(static_cast<size_t>(in) * bytes, 2)),
        out(static_cast<size_t>(o) * bytes) {
    internal::pil_taps(in_rows, out_rows, 0, out_rows, false, taps);
  }
  void run(bool baseline) {
    (baseline ? internal::baseline::pil_vertical : internal::pil_vertical)(
        src.data(), bytes, 0, bytes, taps, out.data(), bytes, 0, out_rows, nullptr);
  }
};

// PIL's horizontal pass: 1200 rows of 2550 pixels to 1750.
struct Horizontal {
  int rows = 1200, in_cols = 2550, out_cols = 1750;
  std::vector<uint8_t> src = noise(static_cast<size_t>(rows) * in_cols * 3, 3),
                       out = std::vector<uint8_t>(static_cast<size_t>(rows) * out_cols * 3);
  internal::PilTaps taps;
  Horizontal() { internal::pil_taps(in_cols, out_cols, 0, out_cols, true, taps); }
  void run(bool baseline) {
    (baseline ? internal::baseline::pil_horizontal : internal::pil_horizontal)(
        src.data(), in_cols * 3, 0, rows, taps, out.data(), out_cols * 3);
  }
};

// The bilinear step into a 1024 x 1024 crop rotated by 10 degrees, scaled by `zoom` (1: reads a
// new source line every few pixels; 0.1: the source it reads stays in L1).
struct Bilinear {
  int side = 1500;
  std::vector<uint8_t> src = noise(static_cast<size_t>(side) * side * 3, 4),
                       out = std::vector<uint8_t>(1024 * 1024 * 3);
  internal::BilinearJob job{};
  explicit Bilinear(double zoom) {
    const double a = 10 * M_PI / 180, c = std::cos(a) * zoom, s = std::sin(a) * zoom;
    job = {src.data(),
           side * 3,
           side,
           side,
           out.data(),
           1024 * 3,
           1024,
           1024,
           {c, -s, side / 2.0 - (c - s) * 512, s, c, side / 2.0 - (s + c) * 512}};
  }
  void run(bool baseline) {
    if (baseline)
      internal::baseline::bilinear_rows(job, 0, 1024);
    else
      internal::bilinear_warp(job);
  }
};

// warp_to_crop of a raw-cache sample: 1587 x 2048 at training resolution, height 0.9, 10 degrees,
// the crop in the middle. The build the CPU selects only (the warp has no baseline entry point).
struct Warp {
  int w = 1587, h = 2048;
  std::vector<uint8_t> src = noise(static_cast<size_t>(w) * h * 3, 5),
                       out = std::vector<uint8_t>(1024 * 1024 * 3);
  double m[6];
  WarpScratch scratch;
  Warp() {
    const double a = 10 * M_PI / 180, c = std::cos(a), s = std::sin(a), sy = 0.9;
    const double m0[6] = {c, -s * sy, 0, s, c * sy, 0};
    std::copy(m0, m0 + 6, m);
    m[2] = 512 - (m[0] * w / 2 + m[1] * h / 2);
    m[5] = 512 - (m[3] * w / 2 + m[4] * h / 2);
  }
  void run() {
    const ImageView sv{src.data(), h, w, 3, static_cast<ptrdiff_t>(w) * 3, DType::kU8};
    const MutableImageView ov{out.data(), 1024, 1024, 3, 1024 * 3, DType::kU8};
    if (!warp_to_crop(ov, sv, m, 1.0, scratch).ok()) {
      std::fprintf(stderr, "warp failed\n");
      std::exit(1);
    }
  }
};

// The command line: --rounds, --calls, --only.
struct Args {
  int rounds = 7, calls = 5;
  std::string only;  // run the kernels whose names start with it
};

// Parses argv into `a`; false (after printing why) for anything else.
bool parse_args(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if ((s == "--rounds" || s == "--calls" || s == "--only") && i + 1 < argc) {
      const char* v = argv[++i];
      if (s == "--only") {
        a.only = v;
        continue;
      }
      const int n = std::atoi(v);
      if (n < 1 || n > kMaxCount) {
        std::fprintf(stderr, "%s must be in 1..%d\n", s.c_str(), kMaxCount);
        return false;
      }
      (s == "--rounds" ? a.rounds : a.calls) = n;
    } else {
      std::fprintf(stderr,
                   "usage: textfeed_kernels_bench [--rounds N] [--calls N] [--only NAME]\n");
      return false;
    }
  }
  return true;
}

// The inputs and outputs of every kernel; the cases refer to them.
struct Kernels {
  Jitter jitter;
  Vertical shrink{1400, 1260}, enlarge{1140, 1260};
  Horizontal horizontal;
  Bilinear far{1.0}, near{0.1};
  Warp warp;
};

// Each kernel in the selected build and in the baseline, then the warp; those named `only...`.
std::vector<Case> kernel_cases(Kernels& k, const std::string& only) {
  auto sum_of = [](const auto& v) {
    return [&v] { return checksum(v.data(), v.size() * sizeof(v[0])); };
  };
  std::vector<Case> cases;
  for (const bool base : {false, true}) {
    const std::string b = base ? " baseline" : "";
    cases.push_back({"jitter" + b, [&k, base] { k.jitter.run(base); }, sum_of(k.jitter.row)});
    cases.push_back(
        {"vertical-3tap" + b, [&k, base] { k.shrink.run(base); }, sum_of(k.shrink.out)});
    cases.push_back(
        {"vertical-2tap" + b, [&k, base] { k.enlarge.run(base); }, sum_of(k.enlarge.out)});
    cases.push_back(
        {"horizontal" + b, [&k, base] { k.horizontal.run(base); }, sum_of(k.horizontal.out)});
    cases.push_back({"bilinear" + b, [&k, base] { k.far.run(base); }, sum_of(k.far.out)});
    cases.push_back({"bilinear-l1" + b, [&k, base] { k.near.run(base); }, sum_of(k.near.out)});
  }
  cases.push_back({"warp", [&k] { k.warp.run(); }, sum_of(k.warp.out)});
  std::erase_if(cases, [&](const Case& c) { return !only.empty() && c.name.rfind(only, 0) != 0; });
  return cases;
}

// Each case's time per round (the least of its calls, in ms) and its output's checksum.
struct Timings {
  std::vector<std::vector<double>> ms;
  std::vector<uint32_t> sums;
};

Timings run_rounds(const std::vector<Case>& cases, const Args& a) {
  Timings t{std::vector<std::vector<double>>(cases.size()), std::vector<uint32_t>(cases.size())};
  for (int r = 0; r < a.rounds; ++r)
    for (size_t k = 0; k < cases.size(); ++k) {
      double best = 1e300;
      for (int c = 0; c < a.calls; ++c) {
        const auto t0 = std::chrono::steady_clock::now();
        cases[k].run();
        best = std::min(best, ms_since(t0));
      }
      t.ms[k].push_back(best);
      t.sums[k] = cases[k].sum();  // now: a build and its baseline write the same buffer
    }
  return t;
}

void print_timings(const std::vector<Case>& cases, Timings& t) {
  std::printf("%-22s %9s %9s  %s\n", "kernel (1024x1024 crop)", "min ms", "median ms", "checksum");
  for (size_t k = 0; k < cases.size(); ++k) {
    std::sort(t.ms[k].begin(), t.ms[k].end());
    std::printf("%-22s %9.3f %9.3f  %08x\n", cases[k].name.c_str(), t.ms[k].front(),
                t.ms[k][t.ms[k].size() / 2], t.sums[k]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse_args(argc, argv, args)) return 2;
  Kernels kernels;
  const std::vector<Case> cases = kernel_cases(kernels, args.only);
  if (cases.empty()) {
    std::fprintf(stderr, "no kernel named %s...\n", args.only.c_str());
    return 2;
  }
  Timings timings = run_rounds(cases, args);
  print_timings(cases, timings);
  return 0;
}
