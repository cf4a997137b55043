// One word into a SampleRecord under PolyPolicy, the image pairing of the folder layouts, and the
// image-name checks of the list formats.
#include "loader/readers/detail/words.h"

#include <algorithm>
#include <cctype>
#include <opencv2/imgproc.hpp>

#include "loader/readers/detail/ufo_layout.h"

namespace textfeed::loader::internal {

namespace fs = std::filesystem;

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

bool add_polygon_word(SampleRecord& rec, std::span<const float> xy, unsigned char label,
                      std::string_view text, int line, const ReaderOptions& o) {
  const size_t n = xy.size() / 2;
  rec.poly_xy.insert(rec.poly_xy.end(), xy.begin(), xy.end());
  rec.poly_points.push_back(static_cast<uint32_t>(n));
  rec.poly_labels.push_back(label);
  Quad q;
  if (n == 4) {
    std::copy(xy.begin(), xy.end(), q.xy.begin());
  } else {
    if (o.poly_policy == PolyPolicy::kSkip) return false;
    q = min_area_rect_quad(xy);
    if (o.poly_policy == PolyPolicy::kMaskIgnore) label = kLabelIgnored;
  }
  rec.quads.push_back(q);
  rec.labels.push_back(label);
  rec.texts.emplace_back(text);
  rec.lines.push_back(line);
  return true;
}

bool is_image_extension(std::string ext) {
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp" || ext == ".webp" ||
         ext == ".tif" || ext == ".tiff";
}

std::string rel_path(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

void report_odd_images(const std::vector<NonRegularEntry>& odd_images,
                       const std::string& images_dir, std::vector<BadRecord>& bad) {
  for (const NonRegularEntry& e : odd_images)
    if (is_image_extension(fs::path(e.name).extension().string()))
      bad.push_back(
          {rel_path(images_dir, e.name), 0, "is " + e.kind + ", not a regular file; left out"});
}

StemMap index_images(const std::vector<std::string>& image_files, const std::string& images_dir,
                     std::vector<BadRecord>& bad) {
  StemMap by_stem;
  for (const std::string& name : image_files) {
    const fs::path p(name);
    if (!is_image_extension(p.extension().string())) continue;
    auto [it, inserted] = by_stem.emplace(p.stem().string(), name);
    if (!inserted)
      bad.push_back({rel_path(images_dir, name), 0,
                     "another image has the stem '" + it->first + "' (kept " + it->second + ")"});
  }
  return by_stem;
}

std::string not_an_image_file(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  // Not there, or not statable: the decoder says so when it opens it.
  if (fs::is_regular_file(st) || st.type() == fs::file_type::not_found ||
      st.type() == fs::file_type::none)
    return {};
  const std::string kind = non_regular_kind(st);
  return (kind == "not a regular file" ? "names something other than a regular file"
                                       : "names " + kind) +
         ", not an image file";
}

Result<std::string> ImageNames::claim(const std::string& name) {
  TF_RETURN_IF_ERROR(safe_join(root_.string(), name).status());
  const fs::path normal = fs::path(name).lexically_normal();
  if (!normal.has_filename() || normal.filename() == "." || normal.filename() == "..")
    return Status::invalid_argument("image '" + name + "' names a folder, not an image file");
  if (normal.has_parent_path()) {
    auto [it, fresh] = folder_inside_.try_emplace(normal.parent_path().string(), true);
    if (fresh) it->second = resolves_inside(root_, root_ / normal.parent_path());
    if (!it->second)
      return Status::invalid_argument("image '" + name +
                                      "' lies in a folder that leads outside the dataset root");
  }
  // Lexically a file name, on disk maybe a folder: left out here, not failing at every epoch.
  if (const std::string why = not_an_image_file(root_ / normal); !why.empty())
    return Status::invalid_argument("image '" + name + "' " + why);
  if (!seen_.insert(normal.string()).second)
    return Status::invalid_argument("image '" + name + "' appears twice; the second is left out");
  return normal.string();
}

}  // namespace textfeed::loader::internal
