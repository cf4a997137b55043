// One word into a SampleRecord under PolyPolicy, and the image pairing of the folder layouts.
#include "loader/detail/words.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <opencv2/imgproc.hpp>

namespace textfeed::loader::internal {

Quad min_area_rect_quad(std::span<const float> xy) {
  std::vector<cv::Point2f> pts;
  pts.reserve(xy.size() / 2);
  for (size_t i = 0; i + 1 < xy.size(); i += 2) pts.emplace_back(xy[i], xy[i + 1]);
  cv::Point2f c[4];
  cv::minAreaRect(pts).points(c);
  double area2 = 0;
  for (int i = 0; i < 4; ++i) area2 += c[i].x * c[(i + 1) % 4].y - c[(i + 1) % 4].x * c[i].y;
  if (area2 < 0) std::reverse(c, c + 4);  // y-down clockwise has a positive shoelace sum
  int first = 0;
  for (int i = 1; i < 4; ++i)
    if (c[i].x + c[i].y < c[first].x + c[first].y) first = i;
  Quad q;
  for (int i = 0; i < 4; ++i) {
    q.xy[2 * i] = c[(first + i) % 4].x;
    q.xy[2 * i + 1] = c[(first + i) % 4].y;
  }
  return q;
}

std::string add_polygon_word(SampleRecord& rec, std::span<const float> xy, unsigned char label,
                             std::string_view text, int line, const ReaderOptions& o) {
  const size_t n = xy.size() / 2;
  rec.poly_xy.insert(rec.poly_xy.end(), xy.begin(), xy.end());
  rec.poly_points.push_back(static_cast<uint32_t>(n));
  rec.poly_labels.push_back(label);
  Quad q;
  if (n == 4) {
    std::copy(xy.begin(), xy.end(), q.xy.begin());
  } else {
    if (o.poly_policy == PolyPolicy::kSkip)
      return std::to_string(n) + " points (not 4): left out of the EAST quads as background (poly policy skip); "
             "kept as a polygon";
    q = min_area_rect_quad(xy);
    if (o.poly_policy == PolyPolicy::kMaskIgnore) label = kLabelIgnored;
  }
  rec.quads.push_back(q);
  rec.labels.push_back(label);
  rec.texts.emplace_back(text);
  rec.lines.push_back(line);
  return {};
}

bool is_image_extension(std::string ext) {
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp" || ext == ".webp" ||
         ext == ".tif" || ext == ".tiff";
}

std::string rel_path(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

void report_odd_images(const std::vector<NonRegularEntry>& odd_images, const std::string& images_dir,
                       std::vector<BadRecord>& bad) {
  for (const NonRegularEntry& e : odd_images)
    if (is_image_extension(std::filesystem::path(e.name).extension().string()))
      bad.push_back({rel_path(images_dir, e.name), 0, "is " + e.kind + ", not a regular file; left out"});
}

StemMap index_images(const std::vector<std::string>& image_files, const std::string& images_dir,
                     std::vector<BadRecord>& bad) {
  StemMap by_stem;
  for (const std::string& name : image_files) {
    const std::filesystem::path p(name);
    if (!is_image_extension(p.extension().string())) continue;
    auto [it, inserted] = by_stem.emplace(p.stem().string(), name);
    if (!inserted)
      bad.push_back({rel_path(images_dir, name), 0,
                     "another image has the stem '" + it->first + "' (kept " + it->second + ")"});
  }
  return by_stem;
}

}  // namespace textfeed::loader::internal
