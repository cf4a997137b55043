// What the pictures of `textfeed show` share (tools/show_command.cc, tools/show_family.cc): the
// crop back to colours, maps as grey panels, panels under titles with a legend band, and the PNG
// written as a fresh file.
#pragma once

#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "augment/profile.h"

namespace textfeed::tools::show {

// The colours drawn over the samples (BGR), named once so that the legend cannot disagree.
inline const cv::Scalar kGreen(0, 255, 0), kRed(0, 0, 255), kBlue(255, 80, 0), kYellow(0, 230, 255);
inline const cv::Scalar kBand(32, 32, 32), kInk(235, 235, 235);

// Back to pixels: x = (v * std + mean) * 255, as BGR for the PNG (planes in the options' order).
cv::Mat to_bgr(const std::vector<float>& image, int c, const augment::AugmentOptions& o);

// A c x c map as grey levels: lo -> black, hi -> white.
cv::Mat grey_panel(const std::vector<float>& map, int c, float lo, float hi);

// How a legend entry shows its colour.
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

// The PNG: the panels (all of one size) in rows of `cols`, each under its title, then a legend
// band of `lines` and `legend`; at least 480 px wide.
cv::Mat compose(const std::vector<Panel>& panels, size_t cols,
                const std::vector<std::string>& lines, const std::vector<LegendEntry>& legend);

// The legend's first line: "sample 0 (images/img_1.jpg): 3 words in the crop ...".
std::string sample_line(int i, const std::string& name, const std::string& counts);

// Encodes `bgr` as PNG into `file`, a fresh file (never through a symlink planted at the name);
// exits through fail() if it cannot.
void write_png(const cv::Mat& bgr, const std::string& file);

}  // namespace textfeed::tools::show
