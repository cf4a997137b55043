// textfeed show: PNGs of augmented samples with their targets drawn over them, so a person can see
// that the score map, the geometry and the ROI/ignored mask (or db's four maps, or another
// family's target tensors) sit on the words.
// Each PNG explains itself: every panel has a title above it, and a legend band below says what
// each colour is and how many words the crop holds.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "augment/db/chain.h"
#include "augment/east/chain.h"
#include "augment/geometry/polygon.h"
#include "augment/target_builder.h"
#include "base/printable.h"
#include "base/quad.h"
#include "loader/pipeline/pipeline.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/show_draw.h"
#include "tools/show_family.h"
#include "tools/spec_flags.h"

namespace textfeed::tools {
namespace {

using namespace show;  // NOLINT: the drawing primitives of this command

struct ShowArgs {
  std::string dataset, out;
  int count = 4;
  uint64_t seed = 0, epoch = 0;
  SpecFlags spec;
};

// One sample's outputs as the producer writes them, reused from sample to sample: the normalized
// image (3 planes of c x c) and EAST's maps (score, 5 geometry channels, mask; m x m each),
// float32.
struct Planes {
  Planes(int crop, int map)
      : c(crop), m(map), image(3 * c * c), score(m * m), geo(5 * m * m), mask(m * m) {}
  Planes(const Planes&) = delete;  // `maps` points into the vectors
  Planes& operator=(const Planes&) = delete;

  loader::SampleOutputs outputs() { return {view(image, 3 * c, c), maps}; }

  const int c, m;
  std::vector<float> image, score, geo, mask;
  const MutableImageView maps[3] = {view(score, m, m), view(geo, 5 * m, m),
                                    view(mask, m, m)};  // EAST's

 private:
  static MutableImageView view(std::vector<float>& b, int h, int w) {
    return MutableImageView{reinterpret_cast<uint8_t*>(b.data()), h,          w, 1,
                            static_cast<ptrdiff_t>(w) * 4,        DType::kF32};
  }
};

// The db profile's outputs: the image and its four maps (threshold map and mask, shrink map and
// mask), c x c float32 each.
struct DbPlanes {
  explicit DbPlanes(int crop) : c(crop), image(3 * c * c) {
    for (int k = 0; k < 4; ++k)
      maps[k].resize(static_cast<size_t>(c) * c), views[k] = view(maps[k], c, c);
  }
  loader::SampleOutputs outputs() { return {view(image, 3 * c, c), views}; }

  const int c;
  std::vector<float> image;
  std::vector<float> maps[4];
  MutableImageView views[4];

 private:
  static MutableImageView view(std::vector<float>& b, int h, int w) {
    return MutableImageView{reinterpret_cast<uint8_t*>(b.data()), h,          w, 1,
                            static_cast<ptrdiff_t>(w) * 4,        DType::kF32};
  }
};

// "3 words in the crop (2 legible), 8 in the image": the crop's count is what the targets see.
std::string word_counts(int in_crop, int legible, size_t in_image) {
  return std::to_string(in_crop) + " word" + (in_crop == 1 ? "" : "s") + " in the crop (" +
         std::to_string(legible) + " legible), " + std::to_string(in_image) + " in the image";
}

// One db sample as a 3 x 2 grid: the image with the kept polygons (blue; ignored red) and the
// shrink map (green) and ignored regions (red) shaded over it; then the four maps in grey; the
// legend below, with `summary` as its first line.
cv::Mat db_picture(const DbPlanes& p, const augment::AugmentOptions& o, const augment::DbCrop& crop,
                   const std::string& summary) {
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
      poly.emplace_back(static_cast<int>(std::lround(crop.xy[2 * k])),
                        static_cast<int>(std::lround(crop.xy[2 * k + 1])));
    first = crop.ends[w];
    cv::polylines(image, poly, true, crop.ignore[w] ? kRed : kBlue, 2, cv::LINE_AA);
  }
  const float lo = static_cast<float>(o.thresh_min), hi = static_cast<float>(o.thresh_max);
  char range[96];
  std::snprintf(range, sizeof range,
                "threshold_map: black %.2f, white %.2f; other maps: black 0, white 1", lo, hi);
  const std::vector<Panel> panels = {{"image, polygons", image},
                                     {"shrink map and ignored regions", shaded},
                                     {"threshold_map", grey_panel(p.maps[0], c, lo, hi)},
                                     {"threshold_mask", grey_panel(p.maps[1], c, 0, 1)},
                                     {"shrink_map", grey_panel(p.maps[2], c, 0, 1)},
                                     {"shrink_mask", grey_panel(p.maps[3], c, 0, 1)}};
  const std::vector<LegendEntry> legend = {{kBlue, Swatch::kOutline, "word"},
                                           {kRed, Swatch::kOutline, "ignored word"},
                                           {kGreen, Swatch::kFill, "shrink_map > 0"},
                                           {kRed, Swatch::kFill, "shrink_mask = 0 (ignored)"},
                                           {kInk, Swatch::kNone, range}};
  return compose(panels, 3, {summary}, legend);
}

// Blends the score map (green) and the ignored regions (red) into `bgr`; map pixel (y / g, x / g)
// covers crop pixel (y, x).
void shade_maps(cv::Mat& bgr, const Planes& p, int g, const augment::AugmentOptions& o) {
  const int c = p.c, m = p.m;
  cv::Mat overlay = bgr.clone();
  for (int y = 0; y < c; ++y)
    for (int x = 0; x < c; ++x) {
      const int my = std::min(m - 1, y / g), mx = std::min(m - 1, x / g);
      const float ignore =
          o.mask == augment::MaskKind::kRoi ? 1.f - p.mask[my * m + mx] : p.mask[my * m + mx];
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
      cv::polylines(bgr, box, true, kYellow, 1, cv::LINE_AA);
    }
}

// The plan's word quads in crop pixels: blue, or red for an ignored word.
void draw_word_quads(cv::Mat& bgr, const augment::GeometryPlan& plan) {
  for (size_t w = 0; w < plan.labels.size(); ++w) {
    std::vector<cv::Point> q;
    for (int k = 0; k < 4; ++k)
      q.emplace_back(static_cast<int>(std::lround(plan.vertices[8 * w + 2 * k])),
                     static_cast<int>(std::lround(plan.vertices[8 * w + 2 * k + 1])));
    cv::polylines(bgr, q, true, plan.labels[w] ? kBlue : kRed, 2, cv::LINE_AA);
  }
}

// The plan's words that overlap the c x c crop (any area): the ones its targets can show. A word
// wholly outside still travels in the plan. `legible` counts those of them not ignored.
int words_in_crop(const augment::GeometryPlan& plan, int c, int* legible) {
  int in = 0;
  *legible = 0;
  for (size_t w = 0; w < plan.labels.size(); ++w) {
    const auto corners =
        augment::quad_points(std::span<const double, 8>(plan.vertices.data() + 8 * w, 8));
    const std::vector<augment::Point> hull = augment::convex_hull(corners);
    if (hull.size() < 3 || augment::clipped_area(hull, 0, 0, c, c) <= 0) continue;
    ++in;
    if (plan.labels[w] == kLabelValid) ++*legible;
  }
  return in;
}

// One EAST sample: the crop with its targets over it, under its title, and the legend.
cv::Mat east_picture(cv::Mat crop_bgr, const std::string& summary) {
  const std::vector<LegendEntry> legend = {
      {kGreen, Swatch::kFill, "score map > 0"},
      {kRed, Swatch::kFill, "ignored region (mask)"},
      {kBlue, Swatch::kOutline, "word"},
      {kRed, Swatch::kOutline, "ignored word"},
      {kYellow, Swatch::kOutline, "box decoded from the geometry map"}};
  const std::string title = "crop " + std::to_string(crop_bgr.cols) + " px, targets drawn over it";
  return compose({{title, std::move(crop_bgr)}}, 1, {summary}, legend);
}

// The PNG of sample `i` in the --out folder.
std::string sample_file(const ShowArgs& a, int i) {
  return (std::filesystem::path(a.out) / ("sample_" + std::to_string(i) + ".png")).string();
}

void run_db(const ShowArgs& a, const augment::AugmentOptions& o, const loader::SampleSource& source,
            loader::SampleProducer& producer, const augment::DbChain& chain, int n) {
  DbPlanes planes(o.crop_size);
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    if (Status s = producer.produce(static_cast<uint32_t>(i), a.seed, a.epoch, planes.outputs());
        !s.ok()) {
      std::fprintf(stderr, "show: sample %d: %s\n", i, printable(s.to_string()).c_str());
      ++failed;
      continue;
    }
    const augment::DbGeometryPlan& plan = chain.last_plan();
    const std::string file = sample_file(a, i);
    // db_crop keeps the polygons not wholly outside the crop; `kept` has one flag per image word.
    const int in_crop = static_cast<int>(plan.crop.ends.size());
    const int legible =
        static_cast<int>(std::count(plan.crop.ignore.begin(), plan.crop.ignore.end(), 0));
    const std::string counts = word_counts(in_crop, legible, plan.crop.kept.size());
    write_png(db_picture(planes, o, plan.crop, sample_line(i, source.name(i), counts)), file);
    const PolygonCounts& bad = producer.last_polygons();
    std::printf(
        "%s: %s, %s, flip %d, angle %.2f, resize %.3f, crop (%d, %d, %d, %d)%s%s\n",
        printable(file).c_str(), printable(source.name(i)).c_str(), counts.c_str(),
        plan.draws.flip ? 1 : 0, plan.draws.angle_deg, plan.draws.resize, plan.crop.crop.x,
        plan.crop.crop.y, plan.crop.crop.w, plan.crop.crop.h,
        plan.crop.fallback ? " (whole image)" : "",
        bad.invalid() ? (", " + std::to_string(bad.invalid()) + " invalid polygons").c_str() : "");
  }
  if (failed)
    fail("show", std::to_string(failed) + " of " + std::to_string(n) +
                     " samples could not be drawn (see above)");
}

void run(const ShowArgs& a) {
  const loader::PipelineSpec spec = build_spec("show", a.spec, a.dataset);
  const augment::AugmentOptions& o = spec.augment;
  if (a.out.empty()) fail("show", "--out is empty; name the folder to write into", 2);
  // show draws over the normalized float32 crop (it un-normalizes it to colours).
  if (o.dtype != DType::kF32)
    fail("show", "show draws float32 crops; --dtype (or --set dtype=) uint8 is not for it", 2);
  auto source = loader::SampleSource::open(a.dataset, spec.sources[0].reader);
  if (!source.has_value()) fail("show", source.error().to_string(), 2);
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) fail("show", "cannot create " + a.out + ": " + ec.message());
  loader::SampleProducer producer(*source, o);
  const int n = std::min<int>(a.count, static_cast<int>((*source)->size()));
  // Each family's plan is drawn its own way.
  if (const auto* db = dynamic_cast<const augment::DbChain*>(&producer.chain()))
    return run_db(a, o, **source, producer, *db, n);
  const auto* east = dynamic_cast<const augment::EastChain*>(&producer.chain());
  if (east == nullptr) return show::run_family({a.out, a.seed, a.epoch}, o, **source, producer, n);
  Planes planes(o.crop_size, o.map_size());
  const int g = static_cast<int>(std::lround(1 / o.map_scale));
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    if (Status s = producer.produce(static_cast<uint32_t>(i), a.seed, a.epoch, planes.outputs());
        !s.ok()) {
      std::fprintf(stderr, "show: sample %d: %s\n", i, printable(s.to_string()).c_str());
      ++failed;
      continue;
    }
    cv::Mat bgr = to_bgr(planes.image, planes.c, o);
    shade_maps(bgr, planes, g, o);
    draw_geometry_boxes(bgr, planes, g);
    const augment::GeometryPlan& plan = east->last_plan();
    draw_word_quads(bgr, plan);
    const std::string file = sample_file(a, i);
    int legible = 0;
    const int in_crop = words_in_crop(plan, planes.c, &legible);
    const std::string counts = word_counts(in_crop, legible, plan.labels.size());
    write_png(east_picture(std::move(bgr), sample_line(i, (*source)->name(i), counts)), file);
    std::printf("%s: %s, %s, crop at (%d, %d) after %d tries%s\n", printable(file).c_str(),
                printable((*source)->name(i)).c_str(), counts.c_str(), plan.crop_x, plan.crop_y,
                plan.tries, plan.fallback ? " (fallback)" : "");
  }
  // The others were drawn; the exit status still says that not every sample asked for was.
  if (failed)
    fail("show", std::to_string(failed) + " of " + std::to_string(n) +
                     " samples could not be drawn (see above)");
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto a = std::make_shared<ShowArgs>();
  CLI::App* cmd = app.add_subcommand(
      "show",
      "Write PNGs of augmented samples with their targets drawn on: score map green, ignored "
      "regions red, word quads blue (ignored: red outline), boxes decoded from the geometry map "
      "yellow. Profile db: a grid of the image with its polygons, the shrink map (green) and "
      "ignored regions (red) over it, and the threshold map, threshold mask, shrink map and "
      "shrink mask in grey. Other profiles (psenet, panet, fcenet, textsnake): the image with its "
      "polygons after the chain, and each target tensor's channels in grey (PSENet's largest and "
      "smallest kernels, FCENet's regions and mask per level). Each panel has a title and each PNG "
      "ends in a legend of the colours; "
      "each line printed counts the words in the crop (those the targets see) and in the image.");
  cmd->add_option("--dataset", a->dataset,
                  "dataset folder, UFO .json, cache file or cache manifest")
      ->required();
  add_spec_flags(cmd, a->spec, kReaderFlags | kRecipeFlags);
  cmd->add_option("--count", a->count, "samples to draw (default 4)")->check(CLI::Range(1, 100000));
  cmd->add_option("--seed", a->seed, "augmentation seed (default 0)")->check(unsigned_64());
  cmd->add_option("--epoch", a->epoch, "epoch (default 0)")->check(unsigned_64());
  cmd->add_option("--out", a->out, "folder for sample_<i>.png")->required();
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
