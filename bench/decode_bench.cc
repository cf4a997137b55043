// Decode throughput: textfeed's Decoder next to a bare tjDecompress2 loop (what tjbench measures)
// on the same in-memory JPEGs, at full and 1/2 scale; one thread; Mpixel/s of full-size pixels.
// --windows adds what a window costs against the whole image at the same scale (the rows above a
// window are still entropy-decoded: the figure a restart-marker cache would have to beat).
// --no-restart-cuts decodes the windows of JPEGs with restart markers from the whole file instead
// of from the part under the window (loader/decode/detail/jpeg_restart.h).
//   textfeed_decode_bench DIR [--reps N] [--json] [--windows] [--no-restart-cuts]
#include <turbojpeg.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "base/image.h"
#include "loader/decode/decode.h"

namespace {

using textfeed::Image;
using textfeed::loader::Decoder;

struct File {
  std::string name;
  std::vector<uint8_t> bytes;
  int width = 0, height = 0;
};

// Throughput over reps: best (the fastest rep, as tjbench reports) and median, in Mpixel/s.
struct Rate {
  double best = 0, median = 0;
};

// One pass of `decode_one` over every file, in seconds; a failed decode ends the program (a
// benchmark that silently skips work reports nonsense).
template <class F>
double one_pass(const std::vector<File>& files, F decode_one) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const File& f : files) {
    if (!decode_one(f)) {
      std::fprintf(stderr, "decode failed: %s\n", f.name.c_str());
      std::exit(1);
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Rate summarize(std::vector<double> seconds, double mpix) {
  std::sort(seconds.begin(), seconds.end());
  return {mpix / seconds.front(), mpix / seconds[seconds.size() / 2]};
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

int usage(const char* argv0) {
  std::fprintf(
      stderr,
      "usage: %s DIR [--reps N] [--json] [--windows] [--no-restart-cuts]\n"
      "  DIR     folder of JPEG files (*.jpg, *.jpeg), all loaded into memory first\n"
      "  --reps  passes over all files per measurement (default 5)\n"
      "  --json  one JSON object on stdout instead of a table\n"
      "  --windows  also time windows of each image against its whole decode (table only)\n"
      "  --no-restart-cuts  windows of JPEGs with restart markers from the whole file, not the "
      "part\n",
      argv0);
  return 2;
}

struct Args {
  const char* dir = nullptr;
  int reps = 5;
  bool json = false;
  bool windows = false;
  bool restart_cuts = true;  // --no-restart-cuts: windows decoded from the whole file
};

// False on a usage error.
bool parse_args(int argc, char** argv, Args* args) {
  if (argc < 2 || argv[1][0] == '-') return false;
  args->dir = argv[1];
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      args->reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--json")) {
      args->json = true;
    } else if (!std::strcmp(argv[i], "--windows")) {
      args->windows = true;
    } else if (!std::strcmp(argv[i], "--no-restart-cuts")) {
      args->restart_cuts = false;
    } else {
      return false;
    }
  }
  return true;
}

// The *.jpg and *.jpeg files of `dir`, sorted; false (said on stderr) when it cannot be listed.
bool list_jpegs(const char* dir, std::vector<std::filesystem::path>* paths) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".jpg" || ext == ".jpeg") paths->push_back(e.path());
  }
  if (ec) {
    std::fprintf(stderr, "cannot list %s: %s\n", dir, ec.message().c_str());
    return false;
  }
  std::sort(paths->begin(), paths->end());
  return true;
}

// Each path's bytes and size; a file that cannot be read or is not a JPEG is said and skipped.
std::vector<File> load_files(const std::vector<std::filesystem::path>& paths, Decoder& dec) {
  std::vector<File> files;
  for (const auto& p : paths) {
    File f;
    f.name = p.string();
    if (auto s = textfeed::loader::read_file(f.name, f.bytes); !s.ok()) {
      std::fprintf(stderr, "skipping %s\n", s.to_string().c_str());
      continue;
    }
    auto info = dec.read_info(f.bytes, f.name);
    if (!info.has_value()) {
      std::fprintf(stderr, "skipping %s\n", info.error().to_string().c_str());
      continue;
    }
    f.width = info->width;
    f.height = info->height;
    files.push_back(std::move(f));
  }
  return files;
}

constexpr int kVariants = 4;
const char* const kKeys[kVariants] = {"textfeed_full", "textfeed_half", "tjdecompress2_full",
                                      "tjdecompress2_half"};

// The four variants of kKeys over `files`: textfeed's Decoder and a bare tjDecompress2 loop, at
// full and 1/2 scale. False (said on stderr) when a warm-up decode fails.
bool measure(const std::vector<File>& files, Decoder& dec, int reps, double total_mpix,
             Rate r[kVariants]) {
  Image out;
  tjhandle tj = tjInitDecompress();
  std::vector<uint8_t> raw;
  // The same flags the Decoder uses, so the two loops do the same work.
  auto tj_decode = [&](const File& f, int denom) {
    const int w = (f.width + denom - 1) / denom, h = (f.height + denom - 1) / denom;
    raw.resize(static_cast<size_t>(w) * h * 3);
    return tjDecompress2(tj, f.bytes.data(), f.bytes.size(), raw.data(), w, 0, h, TJPF_RGB,
                         TJFLAG_STOPONWARNING) == 0;
  };
  auto tf_decode = [&](const File& f, int denom) {
    return dec.decode(f.bytes, f.name, denom, out).ok();
  };
  for (const File& f : files) {  // warm up both paths and grow the output buffers once
    for (int denom : {1, 2}) {
      if (!tf_decode(f, denom) || !tj_decode(f, denom)) {
        std::fprintf(stderr, "decode failed: %s\n", f.name.c_str());
        return false;
      }
    }
  }
  // The four variants take turns within each rep, so a change in machine load during the run
  // lands on all of them alike.
  std::vector<double> seconds[kVariants];
  for (int rep = 0; rep < reps; ++rep) {
    seconds[0].push_back(one_pass(files, [&](const File& f) { return tf_decode(f, 1); }));
    seconds[1].push_back(one_pass(files, [&](const File& f) { return tf_decode(f, 2); }));
    seconds[2].push_back(one_pass(files, [&](const File& f) { return tj_decode(f, 1); }));
    seconds[3].push_back(one_pass(files, [&](const File& f) { return tj_decode(f, 2); }));
  }
  for (int i = 0; i < kVariants; ++i) r[i] = summarize(seconds[i], total_mpix);
  tjDestroy(tj);
  return true;
}

void print_json(const Args& args, size_t files, double total_mpix, const Rate r[kVariants]) {
  std::printf("{\"dir\": %s, \"files\": %zu, \"mpix_per_pass\": %.3f, \"reps\": %d",
              json_string(args.dir).c_str(), files, total_mpix, args.reps);
  for (int i = 0; i < kVariants; ++i)
    std::printf(", \"%s\": {\"best_mpix_s\": %.1f, \"median_mpix_s\": %.1f}", kKeys[i], r[i].best,
                r[i].median);
  // textfeed's median rate over the bare loop's: 1.0 means the Decoder adds nothing.
  std::printf(", \"vs_tj_full\": %.3f, \"vs_tj_half\": %.3f}\n", r[0].median / r[2].median,
              r[1].median / r[3].median);
}

void print_table(const Args& args, const std::vector<File>& files, double total_mpix,
                 const Rate r[kVariants]) {
  std::printf("%s: %zu JPEGs, %.1f Mpixel per pass (first %dx%d), %d reps, 1 thread\n", args.dir,
              files.size(), total_mpix, files[0].width, files[0].height, args.reps);
  std::printf("  Mpixel/s of full-size pixels      best    median\n");
  for (int i = 0; i < kVariants; ++i)
    std::printf("  %-30s %8.1f  %8.1f\n", kKeys[i], r[i].best, r[i].median);
  std::printf("  textfeed / tjDecompress2 (median): full %.3f, 1/2 %.3f\n",
              r[0].median / r[2].median, r[1].median / r[3].median);
}

// A window as fractions of the image: [x0, x1) x [y0, y1).
struct WindowShape {
  const char* name;
  double x0, y0, x1, y1;
};
constexpr WindowShape kWindows[] = {
    {"top half", 0, 0, 1, 0.5},
    {"bottom half", 0, 0.5, 1, 1},
    {"middle third", 0, 1. / 3, 1, 2. / 3},
    {"bottom third", 0, 2. / 3, 1, 1},
    {"centre 1/3 x 1/3", 1. / 3, 1. / 3, 2. / 3, 2. / 3},
    // What upstage's 1024 crops read of a 1587x2048 page at training resolution (about 1186^2).
    {"crop 3/4 x 0.58", 1. / 8, 0.21, 7. / 8, 0.79},
};

// Each window shape at full and 1/2 scale: the median time of its decode over every file, as a
// fraction of the whole image's decode at that scale, turn by turn within each rep.
bool measure_windows(const std::vector<File>& files, Decoder& dec, int reps) {
  Image out;
  std::printf("  windows (time / whole image at the same scale, median of %d reps):\n", reps);
  for (int eighths : {8, 4}) {
    for (const WindowShape& wsh : kWindows) {
      std::vector<double> ratio, ms;
      for (int rep = 0; rep < reps; ++rep) {
        const double whole = one_pass(files, [&](const File& f) {
          return dec.decode_eighths(f.bytes, f.name, eighths, out).ok();
        });
        const double part = one_pass(files, [&](const File& f) {
          const int w = (f.width * eighths + 7) / 8, h = (f.height * eighths + 7) / 8;
          return dec
              .decode_window(f.bytes, f.name, eighths, static_cast<int>(wsh.x0 * w),
                             static_cast<int>(wsh.y0 * h), static_cast<int>(wsh.x1 * w),
                             static_cast<int>(wsh.y1 * h), out)
              .has_value();
        });
        ratio.push_back(part / whole);
        ms.push_back(1e3 * part / static_cast<double>(files.size()));
      }
      std::sort(ratio.begin(), ratio.end());
      std::sort(ms.begin(), ms.end());
      std::printf(
          "    %s %-18s rows %3.0f%%  pixels %3.0f%%  time %5.1f%%  ms per file %5.2f min %5.2f "
          "median\n",
          eighths == 8 ? "full" : "1/2 ", wsh.name, 100 * (wsh.y1 - wsh.y0),
          100 * (wsh.y1 - wsh.y0) * (wsh.x1 - wsh.x0), 100 * ratio[ratio.size() / 2], ms.front(),
          ms[ms.size() / 2]);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse_args(argc, argv, &args)) return usage(argv[0]);
  std::vector<std::filesystem::path> paths;
  if (!list_jpegs(args.dir, &paths)) return 1;
  Decoder dec(textfeed::loader::DecodeOptions{.restart_cuts = args.restart_cuts});
  const std::vector<File> files = load_files(paths, dec);
  if (files.empty()) {
    std::fprintf(stderr, "no JPEG files in %s\n", args.dir);
    return 1;
  }
  double total_mpix = 0;
  for (const File& f : files) total_mpix += f.width * static_cast<double>(f.height) / 1e6;
  Rate r[kVariants];
  if (!measure(files, dec, args.reps, total_mpix, r)) return 1;
  if (args.json) {
    print_json(args, files.size(), total_mpix, r);
  } else {
    print_table(args, files, total_mpix, r);
    if (args.windows && !measure_windows(files, dec, args.reps)) return 1;
  }
  return 0;
}
