// UFO json reader (TARGETS.md §1.2): words with ignore tags become background, > 4 points follow
// PolyPolicy, hull area < drop_under_area is dropped (filter_vertices).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include <opencv2/imgproc.hpp>
#include <simdjson.h>

#include "augment/polygon.h"
#include "loader/dataset.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

// Clockwise (on screen, y down) starting from the corner nearest the top-left.
Quad min_area_rect_quad(const std::vector<cv::Point2f>& pts) {
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

bool has_ignore_tag(element word, const std::vector<std::string>& ignore_tags) {
  simdjson::dom::array tags;
  if (word["tags"].get_array().get(tags)) return false;  // absent or null: no tags
  for (element t : tags) {
    std::string_view s;
    if (!t.get_string().get(s) &&
        std::find(ignore_tags.begin(), ignore_tags.end(), s) != ignore_tags.end())
      return true;
  }
  return false;
}

// Reads one word into `rec` or explains in `why` why it is bad. Returns false for a word that is
// skipped without being an error (ignore tag, >4 points under kSkip).
bool read_word(element word, const ReaderOptions& o, SampleRecord& rec, int ordinal, std::string* why) {
  if (has_ignore_tag(word, o.ignore_tags)) return false;
  simdjson::dom::array points;
  if (word["points"].get_array().get(points)) {
    *why = "word has no 'points' array";
    return false;
  }
  std::vector<cv::Point2f> pts;
  for (element p : points) {
    simdjson::dom::array xy;
    double v[2];
    size_t k = 0;
    if (p.get_array().get(xy)) {
      *why = "a point is not an [x, y] array";
      return false;
    }
    for (element c : xy) {
      if (k >= 2 || c.get_double().get(v[k])) {
        *why = "a point is not two numbers";
        return false;
      }
      ++k;
    }
    if (k != 2 || !std::isfinite(v[0]) || !std::isfinite(v[1])) {
      *why = "a point is not two finite numbers";
      return false;
    }
    pts.emplace_back(static_cast<float>(v[0]), static_cast<float>(v[1]));
  }
  bool illegible = false;
  if (word["illegibility"].get_bool().get(illegible)) illegible = false;
  unsigned char label = illegible ? kLabelIgnored : kLabelValid;
  Quad q;
  if (pts.size() < 4) {
    *why = "word has " + std::to_string(pts.size()) + " points; at least 4 are needed";
    return false;
  } else if (pts.size() > 4) {
    if (o.poly_policy == PolyPolicy::kSkip) {
      *why = "";  // the reference's behaviour: silently background; counted by the caller
      return false;
    }
    q = min_area_rect_quad(pts);
    if (o.poly_policy == PolyPolicy::kMaskIgnore) label = kLabelIgnored;
  } else {
    for (int i = 0; i < 4; ++i) {
      q.xy[2 * i] = pts[i].x;
      q.xy[2 * i + 1] = pts[i].y;
    }
  }
  const double area = augment::quad_hull_area(q);
  if (area < o.drop_under_area) {
    *why = "hull area " + std::to_string(area) + " is below drop_under_area " + std::to_string(o.drop_under_area);
    return false;
  }
  if (o.ignore_under_area > 0 && area < o.ignore_under_area) label = kLabelIgnored;
  std::string_view text;
  if (word["transcription"].get_string().get(text)) text = {};
  rec.quads.push_back(q);
  rec.labels.push_back(label);
  rec.texts.emplace_back(text);
  rec.lines.push_back(ordinal);
  return true;
}

}  // namespace

Result<Dataset> read_ufo(const std::string& root_in, const std::string& json_path, const ReaderOptions& o) {
  std::error_code ec;
  const fs::path root = fs::absolute(root_in, ec);
  if (!fs::is_directory(root)) return Status::not_found("UFO dataset root " + root.string() + " is not a folder");
  if (!fs::is_regular_file(json_path)) return Status::not_found("UFO file " + json_path + ": no such file");
  const fs::path image_dir = fs::is_directory(root / o.images_dir) ? fs::path(o.images_dir) : fs::path();

  simdjson::padded_string json;
  if (auto err = simdjson::padded_string::load(json_path).get(json))
    return Status::io("cannot read " + json_path + ": " + simdjson::error_message(err));
  std::string_view body(json.data(), json.size());
  size_t bom = 0;
  if (body.size() >= 3 && body.substr(0, 3) == "\xEF\xBB\xBF") bom = 3;
  simdjson::dom::parser parser;
  element doc;
  if (auto err = parser.parse(json.data() + bom, json.size() - bom, false).get(doc))
    return Status::corrupt(json_path + ": not valid JSON: " + simdjson::error_message(err));
  simdjson::dom::object images;
  if (doc["images"].get_object().get(images))
    return Status::corrupt(json_path + ": no top-level object 'images'");

  Dataset ds;
  ds.root = root.string();
  ds.format = DatasetFormat::kUfo;
  const std::string shown = fs::path(json_path).filename().string();
  for (auto [name, info] : images) {
    const std::string image_name(name);
    auto path = safe_join((root / image_dir).string(), image_name);  // names live in images/
    if (!path.has_value()) {
      ds.bad.push_back({shown, 0, path.error().message()});
      continue;
    }
    SampleRecord rec;
    rec.image = (image_dir / fs::path(image_name).lexically_normal()).string();
    rec.annotation = shown;
    int64_t v;
    if (!info["img_w"].get_int64().get(v)) rec.width = static_cast<int>(v);
    if (!info["img_h"].get_int64().get(v)) rec.height = static_cast<int>(v);
    simdjson::dom::object words;
    if (info["words"].get_object().get(words)) {
      ds.bad.push_back({shown, 0, "image '" + image_name + "' has no 'words' object; kept with no words"});
    } else {
      int ordinal = 0;
      for (auto [id, word] : words) {
        std::string why;
        if (!read_word(word, o, rec, ordinal, &why) && !why.empty())
          ds.bad.push_back({shown, ordinal, "image '" + image_name + "' word '" + std::string(id) + "': " + why});
        ++ordinal;
      }
    }
    ds.samples.push_back(std::move(rec));
  }
  std::sort(ds.samples.begin(), ds.samples.end(),
            [](const SampleRecord& a, const SampleRecord& b) { return a.image < b.image; });
  return ds;
}

}  // namespace textfeed::loader
