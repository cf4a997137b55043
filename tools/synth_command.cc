// textfeed synth: a synthetic scene-text dataset with photo-like pixels, written in both the
// ICDAR-2015 and the UFO format (the same boxes). Same seed, same bytes, whatever --threads.
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "base/printable.h"
#include "loader/pipeline/worker_pool.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/synth_render.h"

namespace textfeed::tools {
namespace {

namespace fs = std::filesystem;

struct SynthArgs {
  std::string profile = "icdar", out;
  int count = 10, quality = 0, threads = 0;  // quality 0: the profile's default
  uint64_t seed = 0;
  bool force = false;
};

// The words of one written image, kept for the UFO file (the pixels are on disk by then).
struct Written {
  int width = 0, height = 0;
  size_t jpeg_bytes = 0;
  std::vector<SynthWord> words;
  std::string error;  // empty when both files were written
};

// Writes `bytes` to `path` as a fresh file (with --force into a used folder, a symlink planted at
// the name is refused, never written through); an empty string on success, else the reason.
std::string write_file(const fs::path& path, const void* bytes, size_t size) {
  const Status s =
      write_file_atomically(path.string(), std::string_view(static_cast<const char*>(bytes), size),
                            0644, /*overwrite=*/true, /*durable=*/false);
  return s.ok() ? std::string() : s.message();
}

// ICDAR-2015 ground truth: UTF-8 BOM, CRLF, "x1,y1,...,x4,y4,text", ### when illegible.
std::string icdar_gt(const std::vector<SynthWord>& words) {
  std::string gt = "\xEF\xBB\xBF";
  for (const SynthWord& w : words) {
    for (const SynthPoint& p : w.quad)
      gt += std::to_string(std::lround(p.x)) + "," + std::to_string(std::lround(p.y)) + ",";
    gt += (w.illegible ? "###" : w.text) + "\r\n";
  }
  return gt;
}

// Renders and writes image i (files img_<i+1>.jpg and gt_img_<i+1>.txt, as ICDAR names them).
// Runs inside a parallel body, so every failure comes back as a value.
Written write_image(const SynthArgs& a, int i) {
  Written out;
  SynthImage im;
  try {
    const SynthProfile profile = a.profile == "receipt" ? SynthProfile::kReceipt
                                 : a.profile == "photo" ? SynthProfile::kPhoto
                                                        : SynthProfile::kIcdar;
    const int quality = a.quality > 0 ? a.quality : (profile == SynthProfile::kPhoto ? 95 : 90);
    im = render_synth_image(profile, a.seed, static_cast<uint64_t>(i), quality);
  } catch (const cv::Exception& ex) {
    out.error = "image " + std::to_string(i + 1) + ": " + ex.what();
    return out;
  }
  const std::string stem = "img_" + std::to_string(i + 1);
  if (im.jpeg.empty()) {
    out.error = stem + ".jpg: JPEG encoding failed";
    return out;
  }
  out.error =
      write_file(fs::path(a.out) / "images" / (stem + ".jpg"), im.jpeg.data(), im.jpeg.size());
  if (!out.error.empty()) return out;
  const std::string gt = icdar_gt(im.words);
  out.error = write_file(fs::path(a.out) / "gt" / ("gt_" + stem + ".txt"), gt.data(), gt.size());
  out.width = im.width;
  out.height = im.height;
  out.jpeg_bytes = im.jpeg.size();
  out.words = std::move(im.words);
  return out;
}

// UFO: the same boxes, with the keys (and key order) of the public ICDAR-2015 conversion.
nlohmann::ordered_json ufo_json(const std::vector<Written>& images) {
  using Json = nlohmann::ordered_json;
  Json ufo;
  ufo["images"] = Json::object();
  for (size_t i = 0; i < images.size(); ++i) {
    Json words = Json::object();
    int k = 0;
    for (const SynthWord& w : images[i].words) {
      Json pts = Json::array();
      for (const SynthPoint& p : w.quad) pts.push_back({std::lround(p.x), std::lround(p.y)});
      char id[16];
      std::snprintf(id, sizeof(id), "%04d", ++k);
      words[id] = {{"transcription", w.illegible ? "###" : w.text},
                   {"points", pts},
                   {"orientation", "Horizontal"},
                   {"language", {"en"}},
                   {"tags", Json::array()},
                   {"confidence", nullptr},
                   {"illegibility", w.illegible}};
    }
    ufo["images"]["img_" + std::to_string(i + 1) + ".jpg"] = {
        {"paragraphs", Json::object()}, {"words", words},
        {"chars", Json::object()},      {"img_w", images[i].width},
        {"img_h", images[i].height},    {"tags", Json::array()},
        {"relations", Json::object()}};
  }
  return ufo;
}

void run(const SynthArgs& a) {
  if (Status s = loader::check_worker_threads(a.threads); !s.ok()) fail("synth", s.message(), 2);
  // "" is no folder: the files would land in the working directory, which no one named.
  if (a.out.empty()) fail("synth", "--out is empty; name the folder to write into", 2);
  std::error_code ec;
  if (fs::exists(a.out, ec) && !fs::is_directory(a.out, ec))
    fail("synth", a.out + " exists and is not a folder", 2);
  if (fs::exists(a.out, ec) && !fs::is_empty(a.out, ec) && !a.force)
    fail("synth", a.out + " is not empty; pass --force to write into it", 2);
  for (const char* sub : {"images", "gt", "ufo"}) {
    fs::create_directories(fs::path(a.out) / sub, ec);
    if (ec)
      fail("synth", "cannot create " + (fs::path(a.out) / sub).string() + ": " + ec.message());
  }
  // OpenCV's own threads are off for the whole command (main's ProcessThreadSettings).
  std::vector<Written> images(static_cast<size_t>(a.count));
  std::atomic<int> done{0};
  std::mutex print;
  const int every = a.profile == "icdar" ? 20 : 2;
  tbb::task_arena arena(loader::resolve_worker_threads(a.threads));
  arena.execute([&] {
    tbb::parallel_for(0, a.count, [&](int i) {
      images[static_cast<size_t>(i)] = write_image(a, i);
      const int d = ++done;
      if (d % every == 0 || d == a.count) {
        std::lock_guard<std::mutex> lock(print);
        std::fprintf(stderr, "synth: %d/%d images\n", d, a.count);
      }
    });
  });
  for (const Written& w : images)
    if (!w.error.empty()) fail("synth", w.error);
  const std::string json = json_text(ufo_json(images), -1) + "\n";
  const std::string err =
      write_file(fs::path(a.out) / "ufo" / "train.json", json.data(), json.size());
  if (!err.empty()) fail("synth", err);
  // What the decoder will face: JPEG bits per pixel (phone photos of receipts: 1.3-2.7).
  double bytes = 0, pixels = 0;
  for (const Written& w : images)
    bytes += static_cast<double>(w.jpeg_bytes), pixels += double(w.width) * w.height;
  std::printf("wrote %d %s images to %s (images/, gt/, ufo/train.json), %.2f bits per pixel\n",
              a.count, a.profile.c_str(), printable(a.out).c_str(),
              pixels > 0 ? 8 * bytes / pixels : 0.0);
}

}  // namespace

void add_synth_command(CLI::App& app) {
  auto a = std::make_shared<SynthArgs>();
  CLI::App* cmd = app.add_subcommand(
      "synth",
      "Write a synthetic scene-text dataset: photo-like JPEGs with drawn words "
      "(OUT/images/img_<i>.jpg), ICDAR-2015 ground truth (OUT/gt/gt_img_<i>.txt) and a UFO json "
      "(OUT/ufo/train.json) describing the same boxes. Same seed, same bytes, whatever --threads.");
  cmd->add_option("--profile", a->profile,
                  "icdar: 1280x720 scenes, 5-20 words each turned within +-15 deg, ~15% "
                  "illegible (###); receipt: ~3000x4000 portrait pages, 60-150 words in text "
                  "lines, slightly turned and in perspective, ~5% illegible; photo: the receipt "
                  "pages photographed on a textured surface, with paper grain and strong sensor "
                  "noise, JPEG entropy as real phone photos have it (about 2.5 bits per pixel at "
                  "quality 95) (default icdar)")
      ->check(CLI::IsMember({"icdar", "receipt", "photo"}));
  cmd->add_option("--count", a->count, "number of images to write (default 10)")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--seed", a->seed,
                  "seed of the random streams; img_<n> (numbered from 1, as in ICDAR-2015) draws "
                  "from Rng(seed, 0, n - 1) (default 0)")
      ->check(unsigned_64());
  cmd->add_option("--out", a->out,
                  "output folder; images/, gt/ and ufo/ are created in it (must be empty or "
                  "absent unless --force)")
      ->required();
  cmd->add_option("--quality", a->quality, "JPEG quality, 1-100 (default 90; photo: 95)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--threads", a->threads,
                  "images rendered in parallel, at most " +
                      std::to_string(loader::kMaxWorkerThreads) +
                      "; 0 means one per core (default 0)");
  cmd->add_flag("--force", a->force,
                "write into a non-empty --out, overwriting files of the same names (others "
                "are left as they are)");
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
