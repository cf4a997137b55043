// textfeed show: PNGs of augmented samples with their targets drawn over them, so a person can see
// that the score map, the geometry and the ROI/ignored mask (or db's four maps) sit on the words.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/printable.h"
#include "loader/pipeline.h"
#include "tools/commands.h"
#include "tools/spec_flags.h"
#include "tools/output.h"

namespace textfeed::tools {
namespace {

struct ShowArgs {
  std::string dataset, out;
  int count = 4;
  uint64_t seed = 0, epoch = 0;
  SpecFlags spec;
};

// One sample's outputs as the producer writes them, reused from sample to sample: the normalized
// image (3 planes of c x c) and EAST's maps (score, 5 geometry channels, mask; m x m each), float32.
struct Planes {
  Planes(int crop, int map) : c(crop), m(map), image(3 * c * c), score(m * m), geo(5 * m * m), mask(m * m) {}
  Planes(const Planes&) = delete;  // `maps` points into the vectors
  Planes& operator=(const Planes&) = delete;

  loader::SampleOutputs outputs() { return {view(image, 3 * c, c), maps}; }

  const int c, m;
  std::vector<float> image, score, geo, mask;
  const MutableImageView maps[3] = {view(score, m, m), view(geo, 5 * m, m), view(mask, m, m)};  // EAST's

 private:
  static MutableImageView view(std::vector<float>& b, int h, int w) {
    return MutableImageView{reinterpret_cast<uint8_t*>(b.data()), h, w, 1, static_cast<ptrdiff_t>(w) * 4, DType::kF32};
  }
};

// Back to pixels: x = (v * std + mean) * 255, as BGR for the PNG (planes in the options' order).
cv::Mat to_bgr(const std::vector<float>& image, int c, const augment::AugmentOptions& o) {
  const bool bgr_planes = o.channel_order == augment::ChannelOrder::kBgr;
  cv::Mat bgr(c, c, CV_8UC3);
  for (int y = 0; y < c; ++y)
    for (int x = 0; x < c; ++x)
      for (int k = 0; k < 3; ++k)
        bgr.at<cv::Vec3b>(y, x)[bgr_planes ? k : 2 - k] =
            cv::saturate_cast<uint8_t>((image[(k * c + y) * c + x] * o.std[k] + o.mean[k]) * 255.f);
  return bgr;
}

// The db profile's outputs: the image and its four maps (threshold map and mask, shrink map and
// mask), c x c float32 each.
struct DbPlanes {
  explicit DbPlanes(int crop) : c(crop), image(3 * c * c) {
    for (int k = 0; k < 4; ++k) maps[k].resize(static_cast<size_t>(c) * c), views[k] = view(maps[k], c, c);
  }
  loader::SampleOutputs outputs() { return {view(image, 3 * c, c), views}; }

  const int c;
  std::vector<float> image;
  std::vector<float> maps[4];
  MutableImageView views[4];

 private:
  static MutableImageView view(std::vector<float>& b, int h, int w) {
    return MutableImageView{reinterpret_cast<uint8_t*>(b.data()), h, w, 1, static_cast<ptrdiff_t>(w) * 4, DType::kF32};
  }
};

// A map as grey levels: lo -> black, hi -> white, with its name written on it.
cv::Mat grey_panel(const std::vector<float>& map, int c, float lo, float hi, const char* name) {
  cv::Mat grey(c, c, CV_8UC1);
  for (int i = 0; i < c * c; ++i)
    grey.data[i] = cv::saturate_cast<uint8_t>((map[static_cast<size_t>(i)] - lo) / (hi - lo) * 255.f);
  cv::Mat panel;
  cv::cvtColor(grey, panel, cv::COLOR_GRAY2BGR);
  cv::putText(panel, name, {8, 24}, cv::FONT_HERSHEY_SIMPLEX, 0.7, cv::Scalar(0, 200, 255), 2, cv::LINE_AA);
  return panel;
}

// One db sample as a 3 x 2 grid: the image with the kept polygons (blue; ignored red) and the
// shrink map (green) and ignored regions (red) shaded over it; then the four maps in grey.
cv::Mat db_grid(const DbPlanes& p, const augment::AugmentOptions& o, const augment::DbCrop& crop) {
  const int c = p.c;
  cv::Mat image = to_bgr(p.image, c, o);
  cv::Mat shaded = image.clone(), overlay = image.clone();
  for (int i = 0; i < c * c; ++i) {
    cv::Vec3b& px = overlay.at<cv::Vec3b>(i / c, i % c);
    if (p.maps[2][static_cast<size_t>(i)] > 0) px = cv::Vec3b(0, 255, 0);
    if (p.maps[3][static_cast<size_t>(i)] == 0) px = cv::Vec3b(0, 0, 255);
  }
  cv::addWeighted(shaded, 0.6, overlay, 0.4, 0, shaded);
  int32_t first = 0;
  for (size_t w = 0; w < crop.ends.size(); ++w) {
    std::vector<cv::Point> poly;
    for (int32_t k = first; k < crop.ends[w]; ++k)
      poly.emplace_back(static_cast<int>(std::lround(crop.xy[2 * k])), static_cast<int>(std::lround(crop.xy[2 * k + 1])));
    first = crop.ends[w];
    cv::polylines(image, poly, true, crop.ignore[w] ? cv::Scalar(0, 0, 255) : cv::Scalar(255, 80, 0), 2, cv::LINE_AA);
  }
  const float lo = static_cast<float>(o.thresh_min), hi = static_cast<float>(o.thresh_max);
  cv::Mat top, bottom, grid;
  cv::hconcat(std::vector<cv::Mat>{image, shaded, grey_panel(p.maps[0], c, lo, hi, "threshold_map")}, top);
  cv::hconcat(std::vector<cv::Mat>{grey_panel(p.maps[1], c, 0, 1, "threshold_mask"),
                                   grey_panel(p.maps[2], c, 0, 1, "shrink_map"),
                                   grey_panel(p.maps[3], c, 0, 1, "shrink_mask")},
              bottom);
  cv::vconcat(top, bottom, grid);
  return grid;
}

// Blends the score map (green) and the ignored regions (red) into `bgr`; map pixel (y / g, x / g)
// covers crop pixel (y, x).
void shade_maps(cv::Mat& bgr, const Planes& p, int g, const augment::AugmentOptions& o) {
  const int c = p.c, m = p.m;
  cv::Mat overlay = bgr.clone();
  for (int y = 0; y < c; ++y)
    for (int x = 0; x < c; ++x) {
      const int my = std::min(m - 1, y / g), mx = std::min(m - 1, x / g);
      const float ignore = o.mask == augment::MaskKind::kRoi ? 1.f - p.mask[my * m + mx] : p.mask[my * m + mx];
      cv::Vec3b& px = overlay.at<cv::Vec3b>(y, x);
      if (p.score[my * m + mx] > 0) px = cv::Vec3b(0, 255, 0);
      if (ignore > 0) px = cv::Vec3b(0, 0, static_cast<uint8_t>(255 * std::min(1.f, ignore)));
    }
  cv::addWeighted(bgr, 0.6, overlay, 0.4, 0, bgr);
}

// Boxes decoded back from the geometry channels, on a sparse grid of positive pixels (yellow).
void draw_geometry_boxes(cv::Mat& bgr, const Planes& p, int g) {
  const int m = p.m;
  const std::vector<float>& geo = p.geo;
  const int step = std::max(1, m / 64);
  for (int i = 0; i < m; i += step)
    for (int j = 0; j < m; j += step) {
      if (p.score[i * m + j] <= 0) continue;
      const double px = j * g, py = i * g, t = geo[(4 * m + i) * m + j];
      const double d1 = geo[(0 * m + i) * m + j], d2 = geo[(1 * m + i) * m + j];
      const double d3 = geo[(2 * m + i) * m + j], d4 = geo[(3 * m + i) * m + j];
      const double cx[4] = {-d3, d4, d4, -d3}, cy[4] = {-d1, -d1, d2, d2};
      std::vector<cv::Point> box;
      for (int k = 0; k < 4; ++k)  // rotate by -t about the pixel
        box.emplace_back(static_cast<int>(px + std::cos(t) * cx[k] + std::sin(t) * cy[k]),
                         static_cast<int>(py - std::sin(t) * cx[k] + std::cos(t) * cy[k]));
      cv::polylines(bgr, box, true, cv::Scalar(0, 230, 255), 1, cv::LINE_AA);
    }
}

// The plan's word quads in crop pixels: blue, or red for an ignored word.
void draw_word_quads(cv::Mat& bgr, const augment::GeometryPlan& plan) {
  for (size_t w = 0; w < plan.labels.size(); ++w) {
    std::vector<cv::Point> q;
    for (int k = 0; k < 4; ++k)
      q.emplace_back(static_cast<int>(std::lround(plan.vertices[8 * w + 2 * k])),
                     static_cast<int>(std::lround(plan.vertices[8 * w + 2 * k + 1])));
    cv::polylines(bgr, q, true, plan.labels[w] ? cv::Scalar(255, 80, 0) : cv::Scalar(0, 0, 255), 2, cv::LINE_AA);
  }
}

// Encoded here and written as a fresh file: never through a symlink planted at the name.
void write_png(const cv::Mat& bgr, const std::string& file) {
  std::vector<uint8_t> png;
  if (!cv::imencode(".png", bgr, png)) fail("show", "cannot encode " + file);
  const Status written = write_file_atomically(
      file, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()), 0644, true, /*durable=*/false);
  if (!written.ok()) fail("show", written.to_string());
}

// The PNG of sample `i` in the --out folder.
std::string sample_file(const ShowArgs& a, int i) {
  return (std::filesystem::path(a.out) / ("sample_" + std::to_string(i) + ".png")).string();
}

void run_db(const ShowArgs& a, const augment::AugmentOptions& o, const loader::SampleSource& source,
            loader::SampleProducer& producer, int n) {
  DbPlanes planes(o.crop_size);
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    if (Status s = producer.produce(static_cast<uint32_t>(i), a.seed, a.epoch, planes.outputs()); !s.ok()) {
      std::fprintf(stderr, "show: sample %d: %s\n", i, printable(s.to_string()).c_str());
      ++failed;
      continue;
    }
    const augment::DbGeometryPlan& plan = producer.last_db_plan();
    const std::string file = sample_file(a, i);
    write_png(db_grid(planes, o, plan.crop), file);
    const PolygonCounts& bad = producer.last_polygons();
    std::printf("%s: %s, %zu words kept, flip %d, angle %.2f, resize %.3f, crop (%d, %d, %d, %d)%s%s\n",
                printable(file).c_str(), printable(source.name(i)).c_str(), plan.crop.ends.size(),
                plan.draws.flip ? 1 : 0, plan.draws.angle_deg, plan.draws.resize, plan.crop.crop.x, plan.crop.crop.y,
                plan.crop.crop.w, plan.crop.crop.h, plan.crop.fallback ? " (whole image)" : "",
                bad.invalid() ? (", " + std::to_string(bad.invalid()) + " invalid polygons").c_str() : "");
  }
  if (failed) fail("show", std::to_string(failed) + " of " + std::to_string(n) + " samples could not be drawn (see above)");
}

void run(const ShowArgs& a) {
  const loader::PipelineSpec spec = build_spec("show", a.spec, a.dataset);
  const augment::AugmentOptions& o = spec.augment;
  if (a.out.empty()) fail("show", "--out is empty; name the folder to write into", 2);
  // show draws over the normalized float32 crop (it un-normalizes it to colours).
  if (o.dtype != DType::kF32) fail("show", "show draws float32 crops; --dtype (or --set dtype=) uint8 is not for it", 2);
  auto source = loader::SampleSource::open(a.dataset, spec.sources[0].reader);
  if (!source.has_value()) fail("show", source.error().to_string(), 2);
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) fail("show", "cannot create " + a.out + ": " + ec.message());
  loader::SampleProducer producer(*source, o);
  const int n = std::min<int>(a.count, static_cast<int>((*source)->size()));
  if (o.profile == augment::Profile::kDb) return run_db(a, o, **source, producer, n);
  Planes planes(o.crop_size, o.map_size());
  const int g = static_cast<int>(std::lround(1 / o.map_scale));
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    if (Status s = producer.produce(static_cast<uint32_t>(i), a.seed, a.epoch, planes.outputs()); !s.ok()) {
      std::fprintf(stderr, "show: sample %d: %s\n", i, printable(s.to_string()).c_str());
      ++failed;
      continue;
    }
    cv::Mat bgr = to_bgr(planes.image, planes.c, o);
    shade_maps(bgr, planes, g, o);
    draw_geometry_boxes(bgr, planes, g);
    const augment::GeometryPlan& plan = producer.last_plan();
    draw_word_quads(bgr, plan);
    const std::string file = sample_file(a, i);
    write_png(bgr, file);
    std::printf("%s: %s, %zu words, crop at (%d, %d) after %d tries%s\n", printable(file).c_str(),
                printable((*source)->name(i)).c_str(),
                plan.labels.size(), plan.crop_x, plan.crop_y, plan.tries, plan.fallback ? " (fallback)" : "");
  }
  // The others were drawn; the exit status still says that not every sample asked for was.
  if (failed) fail("show", std::to_string(failed) + " of " + std::to_string(n) + " samples could not be drawn (see above)");
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto a = std::make_shared<ShowArgs>();
  CLI::App* cmd = app.add_subcommand(
      "show", "Write PNGs of augmented samples with their targets drawn on: score map green, ignored regions red, "
              "word quads blue (ignored: red outline), boxes decoded from the geometry map yellow. Profile db: a "
              "grid of the image with its polygons, the shrink map (green) and ignored regions (red) over it, "
              "and the threshold map, threshold mask, shrink map and shrink mask in grey.");
  cmd->add_option("--dataset", a->dataset, "dataset folder, UFO .json, cache file or cache manifest")->required();
  add_spec_flags(cmd, a->spec, kReaderFlags | kRecipeFlags);
  cmd->add_option("--count", a->count, "samples to draw (default 4)")->check(CLI::Range(1, 100000));
  cmd->add_option("--seed", a->seed, "augmentation seed (default 0)")->check(unsigned_64());
  cmd->add_option("--epoch", a->epoch, "epoch (default 0)")->check(unsigned_64());
  cmd->add_option("--out", a->out, "folder for sample_<i>.png")->required();
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
