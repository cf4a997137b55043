// The drawing primitives of `textfeed show` (show_draw.h).
#include "tools/show_draw.h"

#include <algorithm>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string_view>

#include "base/printable.h"
#include "tools/commands.h"
#include "tools/output.h"

namespace textfeed::tools::show {
namespace {

// ------------------------------------------------------------------ titles and legend

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

}  // namespace

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

// The legend's first line: "sample 0 (images/img_1.jpg): 3 words in the crop ...".
std::string sample_line(int i, const std::string& name, const std::string& counts) {
  return "sample " + std::to_string(i) + " (" + printable(name) + "): " + counts;
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

}  // namespace textfeed::tools::show
