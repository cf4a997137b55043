// Decode throughput: textfeed's Decoder next to a bare tjDecompress2 loop (what tjbench measures)
// on the same in-memory JPEGs, at full and 1/2 scale; one thread; Mpixel/s of full-size pixels.
//   textfeed_decode_bench DIR [--reps N] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <turbojpeg.h>

#include "loader/decode.h"

namespace {

using textfeed::Image;
using textfeed::loader::Decoder;

struct File {
  std::string name;
  std::vector<uint8_t> bytes;
  int width = 0, height = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
std::pair<double, double> measure(const std::vector<File>& files, int reps, F decode_one) {
  double mpix = 0;
  for (const File& f : files) mpix += f.width * static_cast<double>(f.height) / 1e6;
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const File& f : files) decode_one(f);
    rates.push_back(mpix / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return {*std::min_element(rates.begin(), rates.end()), median(rates)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [--reps N] [--json]\n", argv[0]);
    return 2;
  }
  int reps = 5;
  bool json = false;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    if (!std::strcmp(argv[i], "--json")) json = true;
  }
  std::vector<File> files;
  Decoder dec;
  for (const auto& e : std::filesystem::directory_iterator(argv[1])) {
    const std::string ext = e.path().extension().string();
    if (ext != ".jpg" && ext != ".jpeg") continue;
    File f;
    f.name = e.path().string();
    if (!textfeed::loader::read_file(f.name, f.bytes).ok()) continue;
    auto info = dec.read_info(f.bytes, f.name);
    if (!info.has_value()) continue;
    f.width = info->width;
    f.height = info->height;
    files.push_back(std::move(f));
  }
  if (files.empty()) {
    std::fprintf(stderr, "no JPEG files in %s\n", argv[1]);
    return 1;
  }
  Image out;
  tjhandle tj = tjInitDecompress();
  std::vector<uint8_t> raw;
  auto tj_decode = [&](const File& f, int denom) {
    const int w = (f.width + denom - 1) / denom, h = (f.height + denom - 1) / denom;
    raw.resize(static_cast<size_t>(w) * h * 3);
    tjDecompress2(tj, f.bytes.data(), f.bytes.size(), raw.data(), w, 0, h, TJPF_RGB, 0);
  };
  const char* names[4] = {"textfeed full", "textfeed 1/2", "tjDecompress2 full", "tjDecompress2 1/2"};
  std::pair<double, double> r[4];
  for (int denom : {1, 2}) {  // warm both paths once
    (void)dec.decode(files[0].bytes, files[0].name, denom, out);
    tj_decode(files[0], denom);
  }
  r[0] = measure(files, reps, [&](const File& f) { (void)dec.decode(f.bytes, f.name, 1, out); });
  r[1] = measure(files, reps, [&](const File& f) { (void)dec.decode(f.bytes, f.name, 2, out); });
  r[2] = measure(files, reps, [&](const File& f) { tj_decode(f, 1); });
  r[3] = measure(files, reps, [&](const File& f) { tj_decode(f, 2); });
  tjDestroy(tj);
  if (json) {
    std::printf("{\"dir\": \"%s\", \"files\": %zu, \"reps\": %d", argv[1], files.size(), reps);
    for (int i = 0; i < 4; ++i) std::printf(", \"%s\": {\"min\": %.1f, \"median\": %.1f}", names[i], r[i].first, r[i].second);
    std::printf("}\n");
    return 0;
  }
  std::printf("%s: %zu JPEGs (%dx%d first), %d reps, Mpixel/s of full-size pixels, 1 thread\n", argv[1], files.size(),
              files[0].width, files[0].height, reps);
  for (int i = 0; i < 4; ++i) std::printf("  %-20s min %7.1f  median %7.1f\n", names[i], r[i].first, r[i].second);
  return 0;
}
