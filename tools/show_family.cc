// `textfeed show` for a family without its own picture (psenet, panet, fcenet, textsnake, and any
// new one): the image with its words after the chain and each target tensor's channels in grey,
// laid out from the family's builder (augment/target_builder.h) alone.
#include "tools/show_family.h"

#include <algorithm>
#include <cstdio>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "augment/target_builder.h"
#include "base/printable.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/show_draw.h"

namespace textfeed::tools::show {
namespace {

// Any other family's outputs, laid out from its builder's tensors (augment/target_builder.h):
// the image and every tensor as raw bytes of its dtype.
struct FamilyPlanes {
  FamilyPlanes(int crop, std::vector<augment::TargetTensor> t) : c(crop), tensors(std::move(t)) {
    image.resize(static_cast<size_t>(3) * c * c);
    for (const augment::TargetTensor& d : tensors) {
      const size_t elem = d.dtype == DType::kF32 ? 4 : 1;
      bytes.emplace_back(elem * d.channels * d.side * d.side);
      views.push_back(MutableImageView{bytes.back().data(), d.channels * d.side, d.side, 1,
                                       static_cast<ptrdiff_t>(elem * d.side), d.dtype});
    }
  }
  loader::SampleOutputs outputs() {
    return {MutableImageView{reinterpret_cast<uint8_t*>(image.data()), 3 * c, c, 1,
                             static_cast<ptrdiff_t>(c) * 4, DType::kF32},
            views};
  }
  // Channel `k` of tensor `t` as grey levels from its own minimum (black) to maximum (white),
  // scaled to the crop's size (nearest); `range` gets "min .. max".
  cv::Mat channel_panel(size_t t, int k, std::string& range) const {
    const augment::TargetTensor& d = tensors[t];
    const size_t plane = static_cast<size_t>(d.side) * d.side;
    std::vector<float> v(plane);
    for (size_t i = 0; i < plane; ++i)
      v[i] = d.dtype == DType::kF32 ? reinterpret_cast<const float*>(bytes[t].data())[k * plane + i]
                                    : static_cast<float>(bytes[t][k * plane + i]);
    const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
    char text[64];
    std::snprintf(text, sizeof text, "%.3g .. %.3g", *lo_it, *hi_it);
    range = text;
    // A constant channel: above 0 white, else black (a mask of ones reads as all valid).
    float lo = *lo_it, hi = *hi_it;
    if (hi <= lo) {
      lo = std::min(lo, 0.f);
      hi = lo < *hi_it ? *hi_it : lo + 1;
    }
    cv::Mat panel = grey_panel(v, d.side, lo, hi);
    cv::resize(panel, panel, cv::Size(c, c), 0, 0, cv::INTER_NEAREST);
    return panel;
  }

  const int c;
  std::vector<augment::TargetTensor> tensors;
  std::vector<float> image;
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<MutableImageView> views;
};

// The channels drawn of a tensor of `channels`: all of up to 3; else the first three (FCENet's
// text region, centre region and mask) or, up to 8, the first and the last (PSENet's largest and
// smallest kernels).
std::vector<int> shown_channels(int channels) {
  if (channels <= 3) {
    std::vector<int> all(static_cast<size_t>(channels));
    for (int k = 0; k < channels; ++k) all[static_cast<size_t>(k)] = k;
    return all;
  }
  return channels <= 8 ? std::vector<int>{0, channels - 1} : std::vector<int>{0, 1, 2};
}

// One sample of a family without its own drawing: the image with the words after the chain (blue;
// ignored red), then each tensor's shown channels in grey, titled "name[k] (min .. max)".
cv::Mat family_picture(const FamilyPlanes& p, const augment::AugmentOptions& o,
                       const SampleMeta& words, const std::string& summary) {
  cv::Mat image = to_bgr(p.image, p.c, o);
  size_t at = 0;
  for (size_t w = 0; w < words.points.size(); ++w) {
    std::vector<cv::Point> poly;
    for (uint32_t k = 0; k < words.points[w]; ++k, ++at)
      poly.emplace_back(static_cast<int>(std::lround(words.xy[2 * at])),
                        static_cast<int>(std::lround(words.xy[2 * at + 1])));
    cv::polylines(image, poly, true, words.ignore[w] ? kRed : kBlue, 2, cv::LINE_AA);
  }
  std::vector<Panel> panels = {{"image, polygons", image}};
  for (size_t t = 0; t < p.tensors.size(); ++t)
    for (int k : shown_channels(p.tensors[t].channels)) {
      std::string range;
      cv::Mat panel = p.channel_panel(t, k, range);
      panels.push_back(
          {std::string(p.tensors[t].name) + "[" + std::to_string(k) + "] (" + range + ")",
           std::move(panel)});
    }
  const std::vector<LegendEntry> legend = {
      {kBlue, Swatch::kOutline, "word"},
      {kRed, Swatch::kOutline, "ignored word"},
      {kInk, Swatch::kNone, "maps: black = the channel's minimum, white = its maximum"}};
  return compose(panels, 3, {summary}, legend);
}

}  // namespace

void run_family(const FamilyShow& a, const augment::AugmentOptions& o,
                const loader::SampleSource& source, loader::SampleProducer& producer, int n) {
  FamilyPlanes planes(o.crop_size, augment::make_target_builder(o)->tensors(o.crop_size));
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    SampleMeta words;
    if (Status s =
            producer.produce(static_cast<uint32_t>(i), a.seed, a.epoch, planes.outputs(), &words);
        !s.ok()) {
      std::fprintf(stderr, "show: sample %d: %s\n", i, printable(s.to_string()).c_str());
      ++failed;
      continue;
    }
    const int legible = static_cast<int>(std::count(words.ignore.begin(), words.ignore.end(), 0));
    const std::string counts = std::to_string(words.points.size()) + " words after the chain (" +
                               std::to_string(legible) + " legible)";
    const std::string file = a.file(i);
    write_png(family_picture(planes, o, words, sample_line(i, source.name(i), counts)), file);
    std::printf("%s: %s, %s\n", printable(file).c_str(), printable(source.name(i)).c_str(),
                counts.c_str());
  }
  if (failed)
    fail("show", std::to_string(failed) + " of " + std::to_string(n) +
                     " samples could not be drawn (see above)");
}

}  // namespace textfeed::tools::show
