// textfeed show: PNGs of augmented samples with their targets drawn over them, so a person can see
// that the score map, the geometry and the ROI/ignored mask (or db's four maps) sit on the words.
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
#include "base/printable.h"
#include "base/quad.h"
#include "loader/pipeline/pipeline.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/spec_flags.h"

namespace textfeed::tools {
namespace {

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

// A map as grey levels: lo -> black, hi -> white.
cv::Mat grey_panel(const std::vector<float>& map, int c, float lo, float hi) {
  cv::Mat grey(c, c, CV_8UC1);
  for (int i = 0; i < c * c; ++i)
    grey.data[i] =
        cv::saturate_cast<uint8_t>((map[static_cast<size_t>(i)] - lo) / (hi - lo) * 255.f);
  cv::Mat panel;
  cv::cvtColor(grey, panel, cv::COLOR_GRAY2BGR);
  return panel;
}

// ------------------------------------------------------------------ titles and legend

// The colours drawn over the samples (BGR), named once so that the legend cannot disagree.
const cv::Scalar kGreen(0, 255, 0), kRed(0, 0, 255), kBlue(255, 80, 0), kYellow(0, 230, 255);
const cv::Scalar kBand(32, 32, 32), kInk(235, 235, 235);
constexpr int kFace = cv::FONT_HERSHEY_SIMPLEX;
// A small crop still gets a legend that reads: the picture is widened to this, never the crop.
constexpr int kMinWidthPx = 480;

// One size of text for a picture whose panels are `panel_px` wide (scale panel_px / 1000, within
// [0.45, 1]): the labels grow with the crop, and stay legible on a small one.
struct Font {
  explicit Font(int panel_px)
      : scale(std::clamp(panel_px / 1000.0, 0.45, 1.0)), thickness(scale >= 0.8 ? 2 : 1) {
    int baseline = 0;
    const cv::Size size = cv::getTextSize("Ag", kFace, scale, thickness, &baseline);
    text_h = size.height;
    pad = std::max(4, text_h / 2);
    line_px = text_h + baseline + 2 * pad;
  }
  double scale;
  int thickness, text_h = 0, pad = 0, line_px = 0;
};

// `text` with its top-left corner at (x, top + pad); shrunk to fit `max_w` px if it would not.
void put_text(cv::Mat& canvas, const std::string& text, int x, int top, int max_w, const Font& f) {
  int baseline = 0;
  const int w = cv::getTextSize(text, kFace, f.scale, f.thickness, &baseline).width;
  const double scale = w > max_w && max_w > 0 ? f.scale * max_w / w : f.scale;
  cv::putText(canvas, text, {x, top + f.pad + f.text_h}, kFace, scale, kInk, f.thickness,
              cv::LINE_AA);
}

// What a legend entry's swatch looks like: the colour as an area, as an outline, or no swatch.
enum class Swatch { kFill, kOutline, kNone };

struct LegendEntry {
  cv::Scalar colour;
  Swatch swatch;
  std::string text;
};

struct Panel {
  std::string title;
  cv::Mat bgr;
};

// The band under the panels, `width` px: `lines` of text (the sample), then each entry as its
// swatch and meaning, left to right, wrapped into rows.
cv::Mat legend_band(int width, const std::vector<std::string>& lines,
                    const std::vector<LegendEntry>& entries, const Font& f) {
  const int box = f.text_h + f.pad;
  std::vector<cv::Point> at;  // each entry's top-left
  int x = f.pad, row = static_cast<int>(lines.size());
  for (const LegendEntry& e : entries) {
    int baseline = 0;
    const int w = (e.swatch == Swatch::kNone ? 0 : box + f.pad) +
                  cv::getTextSize(e.text, kFace, f.scale, f.thickness, &baseline).width;
    if (x > f.pad && x + w > width - f.pad) {  // a new row, unless the entry is alone on it
      x = f.pad;
      ++row;
    }
    at.emplace_back(x, f.pad + row * f.line_px);
    x += w + 3 * f.pad;
  }
  const int rows = row + (entries.empty() ? 0 : 1);
  cv::Mat band(2 * f.pad + rows * f.line_px, width, CV_8UC3, kBand);
  for (size_t i = 0; i < lines.size(); ++i)
    put_text(band, lines[i], f.pad, f.pad + static_cast<int>(i) * f.line_px, width - 2 * f.pad, f);
  for (size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& e = entries[i];
    int tx = at[i].x;
    if (e.swatch != Swatch::kNone) {
      const cv::Rect square(tx, at[i].y + (f.line_px - box) / 2, box, box);
      cv::rectangle(band, square, e.colour, e.swatch == Swatch::kFill ? cv::FILLED : 2,
                    cv::LINE_AA);
      tx += box + f.pad;
    }
    put_text(band, e.text, tx, at[i].y, width - tx - f.pad, f);
  }
  return band;
}

// The PNG: the panels (all of one size) in rows of `cols`, each under its title, then the legend
// band; at least kMinWidthPx wide.
cv::Mat compose(const std::vector<Panel>& panels, size_t cols,
                const std::vector<std::string>& lines, const std::vector<LegendEntry>& legend) {
  const int c = panels.front().bgr.cols;
  const int width = std::max(kMinWidthPx, static_cast<int>(cols) * c);
  const Font f(std::max(kMinWidthPx, c));
  std::vector<cv::Mat> rows;
  for (size_t i = 0; i < panels.size(); i += cols) {
    const size_t end = std::min(panels.size(), i + cols);
    // A row: the titles' strip, then the panels; the last title may run on past a narrow panel.
    cv::Mat row(f.line_px + c, width, CV_8UC3, kBand);
    for (size_t k = i; k < end; ++k) {
      const int x = static_cast<int>(k - i) * c;
      const int room = (k + 1 == end ? width - x : c) - 2 * f.pad;
      put_text(row, panels[k].title, x + f.pad, 0, room, f);
      panels[k].bgr.copyTo(row(cv::Rect(x, f.line_px, c, c)));
    }
    rows.push_back(row);
  }
  rows.push_back(legend_band(width, lines, legend, f));
  cv::Mat out;
  cv::vconcat(rows, out);
  return out;
}

// "3 words in the crop (2 legible), 8 in the image": the crop's count is what the targets see.
std::string word_counts(int in_crop, int legible, size_t in_image) {
  return std::to_string(in_crop) + " word" + (in_crop == 1 ? "" : "s") + " in the crop (" +
         std::to_string(legible) + " legible), " + std::to_string(in_image) + " in the image";
}

// The legend's first line: "sample 0 (images/img_1.jpg): 3 words in the crop ...".
std::string sample_line(int i, const std::string& name, const std::string& counts) {
  return "sample " + std::to_string(i) + " (" + printable(name) + "): " + counts;
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

// Encoded here and written as a fresh file: never through a symlink planted at the name.
void write_png(const cv::Mat& bgr, const std::string& file) {
  std::vector<uint8_t> png;
  if (!cv::imencode(".png", bgr, png)) fail("show", "cannot encode " + file);
  const Status written = write_file_atomically(
      file, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()), 0644, true,
      /*durable=*/false);
  if (!written.ok()) fail("show", written.to_string());
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
  if (east == nullptr)
    fail("show",
         "show draws the EAST and DB families, not profile " +
             std::string(augment::profile_name(o.profile)),
         2);
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
      "shrink mask in grey. Each panel has a title and each PNG ends in a legend of the colours; "
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
