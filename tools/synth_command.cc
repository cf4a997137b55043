// textfeed synth: a synthetic scene-text dataset with photo-like pixels, written in both the
// ICDAR-2015 and the UFO format (the same boxes). Same seed, same bytes.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/rng.h"
#include "tools/commands.h"

namespace textfeed::tools {
namespace {

namespace fs = std::filesystem;

struct SynthArgs {
  std::string profile = "icdar", out;
  int count = 10, quality = 90, threads = 0;
  uint64_t seed = 0;
  bool force = false;
};

struct Word {
  std::array<cv::Point2f, 4> quad;  // clockwise from the word's top-left
  std::string text;
  bool illegible = false;
};

struct SynthImage {
  std::vector<uint8_t> jpeg;
  int width = 0, height = 0;
  std::vector<Word> words;
};

std::string random_text(Rng& rng) {
  static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  if (rng.uniform() < 0.1) {  // prices with a comma exercise the readers' comma rule
    return "$" + std::to_string(1 + rng.below(99)) + "," + std::to_string(10 + rng.below(90));
  }
  std::string s(3 + rng.below(8), ' ');
  for (char& ch : s) ch = kChars[rng.below(sizeof(kChars) - 1)];
  return s;
}

// Smooth colour field: a few coloured blobs on a gradient, drawn small and scaled up, plus noise.
cv::Mat background(Rng& rng, int w, int h) {
  const int sw = std::max(8, w / 16), sh = std::max(8, h / 16);
  cv::Mat small(sh, sw, CV_8UC3);
  cv::Vec3f c0(rng.uniform(60, 230), rng.uniform(60, 230), rng.uniform(60, 230));
  cv::Vec3f c1(rng.uniform(60, 230), rng.uniform(60, 230), rng.uniform(60, 230));
  for (int y = 0; y < sh; ++y)
    for (int x = 0; x < sw; ++x) {
      const float t = (x + y) / float(sw + sh);
      const cv::Vec3f c = c0 * (1 - t) + c1 * t;
      small.at<cv::Vec3b>(y, x) = cv::Vec3b(cv::saturate_cast<uint8_t>(c[0]), cv::saturate_cast<uint8_t>(c[1]),
                                            cv::saturate_cast<uint8_t>(c[2]));
    }
  for (int b = 0, n = 3 + static_cast<int>(rng.below(5)); b < n; ++b)
    cv::circle(small, cv::Point(rng.below(sw), rng.below(sh)), 2 + rng.below(std::max(3, sw / 4)),
               cv::Scalar(rng.below(256), rng.below(256), rng.below(256)), cv::FILLED, cv::LINE_AA);
  cv::GaussianBlur(small, small, cv::Size(0, 0), 2.0);
  cv::Mat img;
  cv::resize(small, img, cv::Size(w, h), 0, 0, cv::INTER_CUBIC);
  cv::Mat noise(h, w, CV_8UC3);
  cv::RNG cvrng(rng.next_u32() | (uint64_t{rng.next_u32()} << 32));
  cvrng.fill(noise, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(6));
  img += noise;  // saturating; cheap film grain
  img -= cv::Scalar::all(3);
  return img;
}

// Draws `text` into `img` as a word of height `px`, rotated by `deg` about its centre `at`.
Word draw_word(cv::Mat& img, Rng& rng, const std::string& text, cv::Point2f at, float px, float deg) {
  const int font = cv::FONT_HERSHEY_SIMPLEX;
  const double scale = px / 22.0;
  const int thick = std::max(1, static_cast<int>(px / 12));
  int base = 0;
  const cv::Size ts = cv::getTextSize(text, font, scale, thick, &base);
  const int pad = thick + 1;
  cv::Mat patch(ts.height + base + 2 * pad, ts.width + 2 * pad, CV_8U, cv::Scalar(0));
  cv::putText(patch, text, cv::Point(pad, pad + ts.height), font, scale, cv::Scalar(255), thick, cv::LINE_AA);
  const cv::Point2f pc(patch.cols / 2.f, patch.rows / 2.f);
  cv::Mat m = cv::getRotationMatrix2D(pc, -deg, 1.0);  // OpenCV's positive angle is counter-clockwise
  m.at<double>(0, 2) += at.x - pc.x;
  m.at<double>(1, 2) += at.y - pc.y;
  Word w;
  w.text = text;
  const cv::Point2f corners[4] = {{0, 0}, {float(patch.cols), 0}, {float(patch.cols), float(patch.rows)}, {0, float(patch.rows)}};
  for (int i = 0; i < 4; ++i)
    w.quad[i] = cv::Point2f(float(m.at<double>(0, 0) * corners[i].x + m.at<double>(0, 1) * corners[i].y + m.at<double>(0, 2)),
                            float(m.at<double>(1, 0) * corners[i].x + m.at<double>(1, 1) * corners[i].y + m.at<double>(1, 2)));
  cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(w.quad.begin(), w.quad.end())) & cv::Rect(0, 0, img.cols, img.rows);
  if (box.empty()) return w;
  m.at<double>(0, 2) -= box.x;
  m.at<double>(1, 2) -= box.y;
  cv::Mat mask;
  cv::warpAffine(patch, mask, m, box.size(), cv::INTER_LINEAR);
  const cv::Vec3b ink = rng.uniform() < 0.5 ? cv::Vec3b(20 + rng.below(40), 20 + rng.below(40), 20 + rng.below(40))
                                            : cv::Vec3b(215 + rng.below(40), 215 + rng.below(40), 215 + rng.below(40));
  cv::Mat roi = img(box);
  for (int y = 0; y < box.height; ++y)
    for (int x = 0; x < box.width; ++x) {
      const int a = mask.at<uint8_t>(y, x);
      if (!a) continue;
      cv::Vec3b& p = roi.at<cv::Vec3b>(y, x);
      for (int k = 0; k < 3; ++k) p[k] = static_cast<uint8_t>((p[k] * (255 - a) + ink[k] * a) / 255);
    }
  return w;
}

SynthImage make_image(const SynthArgs& a, uint64_t i) {
  Rng rng(a.seed, 0, i);
  SynthImage out;
  const bool receipt = a.profile == "receipt";
  out.width = receipt ? 2900 + static_cast<int>(rng.below(201)) : 1280;
  out.height = receipt ? 3900 + static_cast<int>(rng.below(201)) : 720;
  cv::Mat img = background(rng, out.width, out.height);
  const double illegible_rate = receipt ? 0.05 : 0.15;
  if (!receipt) {
    const int n = 5 + static_cast<int>(rng.below(16));
    for (int k = 0; k < n; ++k) {
      const float px = static_cast<float>(rng.uniform(14, 60));
      const cv::Point2f at(static_cast<float>(rng.uniform(80, out.width - 80)), static_cast<float>(rng.uniform(40, out.height - 40)));
      Word w = draw_word(img, rng, random_text(rng), at, px, static_cast<float>(rng.uniform(-15, 15)));
      w.illegible = rng.uniform() < illegible_rate;
      out.words.push_back(std::move(w));
    }
  } else {
    const int target = 60 + static_cast<int>(rng.below(91));
    const float page_deg = static_cast<float>(rng.uniform(-3, 3));
    float y = static_cast<float>(rng.uniform(150, 300));
    while (static_cast<int>(out.words.size()) < target && y < out.height - 150) {
      const float px = static_cast<float>(rng.uniform(28, 70));
      float x = static_cast<float>(rng.uniform(150, 400));
      for (int k = 0, per_line = 1 + static_cast<int>(rng.below(5)); k < per_line; ++k) {
        const std::string text = random_text(rng);
        const float approx_w = px * 0.6f * text.size();
        if (x + approx_w > out.width - 150) break;
        Word w = draw_word(img, rng, text, {x + approx_w / 2, y}, px, page_deg + static_cast<float>(rng.uniform(-1, 1)));
        w.illegible = rng.uniform() < illegible_rate;
        out.words.push_back(std::move(w));
        x += approx_w + px * static_cast<float>(rng.uniform(0.8, 2.5));
      }
      y += px * static_cast<float>(rng.uniform(1.6, 2.6));
    }
    // Slight perspective: move the page corners by up to 2% of the side.
    const cv::Point2f src[4] = {{0, 0}, {float(out.width), 0}, {float(out.width), float(out.height)}, {0, float(out.height)}};
    cv::Point2f dst[4];
    for (int k = 0; k < 4; ++k)
      dst[k] = src[k] + cv::Point2f(static_cast<float>(rng.uniform(-0.02, 0.02) * out.width),
                                    static_cast<float>(rng.uniform(-0.02, 0.02) * out.height));
    const cv::Mat hm = cv::getPerspectiveTransform(src, dst);
    cv::Mat warped;
    cv::warpPerspective(img, warped, hm, img.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
    img = warped;
    for (Word& w : out.words) {
      std::vector<cv::Point2f> q(w.quad.begin(), w.quad.end()), r;
      cv::perspectiveTransform(q, r, hm);
      std::copy(r.begin(), r.end(), w.quad.begin());
    }
  }
  cv::Mat bgr;
  cv::cvtColor(img, bgr, cv::COLOR_RGB2BGR);
  cv::imencode(".jpg", bgr, out.jpeg, {cv::IMWRITE_JPEG_QUALITY, a.quality});
  return out;
}

void run(const SynthArgs& a) {
  if (a.count < 1) fail("synth", "--count must be >= 1", 2);
  std::error_code ec;
  if (fs::exists(a.out) && !fs::is_empty(a.out, ec) && !a.force)
    fail("synth", a.out + " is not empty; pass --force to write into it", 2);
  for (const char* sub : {"images", "gt", "ufo"}) fs::create_directories(fs::path(a.out) / sub, ec);
  if (ec) fail("synth", "cannot create " + a.out + ": " + ec.message());
  std::vector<SynthImage> images(a.count);
  std::atomic<int> done{0};
  std::mutex print;
  tbb::task_arena arena(a.threads > 0 ? a.threads : tbb::this_task_arena::max_concurrency());
  arena.execute([&] {
    tbb::parallel_for(0, a.count, [&](int i) {
      SynthImage im = make_image(a, static_cast<uint64_t>(i));
      const std::string stem = "img_" + std::to_string(i + 1);
      std::ofstream(fs::path(a.out) / "images" / (stem + ".jpg"), std::ios::binary)
          .write(reinterpret_cast<const char*>(im.jpeg.data()), static_cast<std::streamsize>(im.jpeg.size()));
      std::string gt = "\xEF\xBB\xBF";
      for (const Word& w : im.words) {
        for (const auto& p : w.quad) gt += std::to_string(std::lround(p.x)) + "," + std::to_string(std::lround(p.y)) + ",";
        gt += (w.illegible ? "###" : w.text) + "\r\n";
      }
      std::ofstream(fs::path(a.out) / "gt" / ("gt_" + stem + ".txt"), std::ios::binary) << gt;
      im.jpeg.clear();
      im.jpeg.shrink_to_fit();
      images[i] = std::move(im);
      const int d = ++done;
      if (d % 10 == 0 || d == a.count) {
        std::lock_guard<std::mutex> lock(print);
        std::fprintf(stderr, "synth: %d/%d images\n", d, a.count);
      }
    });
  });
  nlohmann::ordered_json ufo;
  ufo["images"] = nlohmann::ordered_json::object();
  for (int i = 0; i < a.count; ++i) {
    nlohmann::ordered_json words = nlohmann::ordered_json::object();
    int k = 0;
    for (const Word& w : images[i].words) {
      nlohmann::ordered_json pts = nlohmann::ordered_json::array();
      for (const auto& p : w.quad) pts.push_back({std::lround(p.x), std::lround(p.y)});
      char id[16];
      std::snprintf(id, sizeof(id), "%04d", ++k);
      words[id] = {{"points", pts}, {"transcription", w.illegible ? "" : w.text}, {"illegibility", w.illegible},
                   {"orientation", "Horizontal"}, {"language", {"en"}}, {"tags", nlohmann::json::array()},
                   {"confidence", nullptr}};
    }
    ufo["images"]["img_" + std::to_string(i + 1) + ".jpg"] = {
        {"img_w", images[i].width}, {"img_h", images[i].height}, {"words", words}};
  }
  std::ofstream(fs::path(a.out) / "ufo" / "train.json") << ufo.dump() << "\n";
  std::printf("wrote %d %s images to %s (images/, gt/, ufo/train.json)\n", a.count, a.profile.c_str(), a.out.c_str());
}

}  // namespace

void add_synth_command(CLI::App& app) {
  auto a = std::make_shared<SynthArgs>();
  CLI::App* cmd = app.add_subcommand(
      "synth", "Write a synthetic scene-text dataset: JPEGs with drawn words, ICDAR-2015 gt files and a UFO json "
               "describing the same boxes. Same seed, same bytes.");
  cmd->add_option("--profile", a->profile, "icdar: 1280x720, 5-20 words rotated up to 15 deg, ~15% ###; receipt: "
                                           "~3000x4000 pages, 60-150 words in lines, slight perspective, ~5% illegible")
      ->check(CLI::IsMember({"icdar", "receipt"}));
  cmd->add_option("--count", a->count, "number of images (default 10)")->check(CLI::Range(1, 10000000));
  cmd->add_option("--seed", a->seed, "random seed (default 0)");
  cmd->add_option("--out", a->out, "output folder (images/, gt/, ufo/ are created)")->required();
  cmd->add_option("--quality", a->quality, "JPEG quality (default 90)")->check(CLI::Range(1, 100));
  cmd->add_option("--threads", a->threads, "worker threads (default: all cores)")->check(CLI::Range(0, 1024));
  cmd->add_flag("--force", a->force, "write into a non-empty --out");
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
