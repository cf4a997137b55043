// UFO json reader (docs/targets.md §1.2, §5 #5 #7): words with an ignore tag become background,
// words with > 4 points follow PolyPolicy, filter_vertices drops hull areas < drop_under_area and
// can mark those < ignore_under_area ignored. Parsed with simdjson's DOM: a 100 MB file takes under
// 2 s of CPU (ReaderTest.UfoLargeFileParses); detail/json_syntax.h runs only to locate an error.
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <opencv2/imgproc.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "augment/geometry/polygon.h"
#include "base/file.h"
#include "loader/readers/dataset.h"
#include "loader/readers/detail/json_file.h"
#include "loader/readers/detail/text.h"
#include "loader/readers/detail/ufo_layout.h"
#include "loader/readers/detail/words.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

bool has_ignore_tag(simdjson::dom::object word, const std::vector<std::string>& ignore_tags) {
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

// Reads the "points" array of `word` into `pts` (cleared first). Returns an empty string, or why
// it is bad.
std::string read_points(simdjson::dom::object word, std::vector<cv::Point2f>* pts) {
  pts->clear();
  simdjson::dom::array points;
  if (word["points"].get_array().get(points)) return "no 'points' array";
  for (element p : points) {
    simdjson::dom::array xy;
    if (p.get_array().get(xy) || xy.size() != 2) return "a point is not an [x, y] pair";
    double v[2];
    size_t k = 0;
    for (element c : xy)
      if (c.get_double().get(v[k++])) return "a point coordinate is not a number";
    if (!std::isfinite(v[0]) || !std::isfinite(v[1])) return "a point is not finite";
    if (!internal::finite_as_float(v[0]) || !internal::finite_as_float(v[1]))
      return "a point coordinate is out of range of a 32-bit float";
    pts->emplace_back(static_cast<float>(v[0]), static_cast<float>(v[1]));
  }
  return {};
}

// The word's label from its 'illegibility' flag (absent or null: valid). Illegibility::kValid reads
// no flag at all (nor checks its type), as that baseline does. False, with *why, for a flag that is
// not a bool.
bool read_label(simdjson::dom::object word, const ReaderOptions& o, unsigned char* label,
                std::string* why) {
  bool illegible = false;
  element flag;
  if (o.illegibility == Illegibility::kIgnore && !word["illegibility"].get(flag) &&
      !flag.is_null() && flag.get_bool().get(illegible)) {
    *why = "'illegibility' is not true or false";
    return false;
  }
  *label = illegible ? kLabelIgnored : kLabelValid;
  return true;
}

enum class WordOutcome { kKept, kBackground, kBad };

// The word's points as the annotation gives them (SampleRecord::poly_*).
void add_polygon(SampleRecord& rec, const std::vector<cv::Point2f>& pts, unsigned char label) {
  for (const cv::Point2f& p : pts) rec.poly_xy.insert(rec.poly_xy.end(), {p.x, p.y});
  rec.poly_points.push_back(static_cast<uint32_t>(pts.size()));
  rec.poly_labels.push_back(label);
}

// The word's quad from its points: 4 as they are; more (poly_policy kMinAreaRect or kMaskIgnore)
// their minimum-area rectangle, kMaskIgnore marking the word ignored.
Quad word_quad(const std::vector<cv::Point2f>& pts, PolyPolicy policy, unsigned char* label) {
  Quad q;
  if (pts.size() > 4) {
    std::vector<float> xy;
    for (const cv::Point2f& p : pts) xy.insert(xy.end(), {p.x, p.y});
    q = internal::min_area_rect_quad(xy);
    if (policy == PolyPolicy::kMaskIgnore) *label = kLabelIgnored;
    return q;
  }
  for (int i = 0; i < 4; ++i) {
    q.xy[2 * i] = pts[i].x;
    q.xy[2 * i + 1] = pts[i].y;
  }
  return q;
}

// The word's geometry and label: kKept with `q` and `label` set; kBackground for more than 4
// points under kSkip (the polygon still added: eval returns it); kBad for fewer than 4 points or a
// hull area under drop_under_area. `*why` says which.
WordOutcome word_shape(const std::vector<cv::Point2f>& pts, const ReaderOptions& o,
                       SampleRecord& rec, Quad& q, unsigned char* label, std::string* why) {
  if (pts.size() < 4) {
    *why = std::to_string(pts.size()) + " points; a word needs at least 4";
    return WordOutcome::kBad;
  }
  if (pts.size() > 4 && o.poly_policy == PolyPolicy::kSkip) {
    add_polygon(rec, pts, *label);  // eval still returns it
    *why = std::to_string(pts.size()) + " points (> 4): skipped as background (poly policy skip)";
    return WordOutcome::kBackground;
  }
  q = word_quad(pts, o.poly_policy, label);
  const double area = augment::quad_hull_area(q);
  if (area < o.drop_under_area) {
    *why = "hull area " + std::to_string(area) + " px^2 is below drop_under_area " +
           std::to_string(o.drop_under_area) + ": dropped";
    return WordOutcome::kBad;
  }
  if (o.ignore_under_area > 0 && area < o.ignore_under_area) *label = kLabelIgnored;
  return WordOutcome::kKept;
}

// Reads one word into `rec`. kBackground: skipped as the reference does (ignore tag, or > 4
// points under kSkip); kBad: unusable or dropped. `*why` explains all but the ignore-tag case.
// `pts` is scratch space reused across words.
WordOutcome read_word(element value, const ReaderOptions& o, int ordinal, SampleRecord& rec,
                      std::vector<cv::Point2f>& pts, std::string* why) {
  simdjson::dom::object word;
  if (value.get_object().get(word)) {
    *why = "is not an object";
    return WordOutcome::kBad;
  }
  if (const std::string_view key =
          internal::duplicate_key(word, {"points", "transcription", "illegibility", "tags"});
      !key.empty()) {
    *why = "has the key '" + std::string(key) + "' twice";
    return WordOutcome::kBad;
  }
  if (has_ignore_tag(word, o.ignore_tags)) return WordOutcome::kBackground;
  if (*why = read_points(word, &pts); !why->empty()) return WordOutcome::kBad;
  unsigned char label = kLabelValid;
  if (!read_label(word, o, &label, why)) return WordOutcome::kBad;
  Quad q;
  if (const WordOutcome shape = word_shape(pts, o, rec, q, &label, why);
      shape != WordOutcome::kKept)
    return shape;
  std::string_view text;
  if (word["transcription"].get_string().get(text)) text = {};
  // A \u0000 escape: the cache keeps texts NUL-separated.
  if (text.find('\0') != std::string_view::npos) {
    *why = "'transcription' contains a NUL character";
    return WordOutcome::kBad;
  }
  add_polygon(rec, pts, label);
  rec.quads.push_back(q);
  rec.labels.push_back(label);
  rec.texts.emplace_back(text);
  rec.lines.push_back(ordinal);
  return WordOutcome::kKept;
}

// Positive image size from an image-level key, else 0.
int image_size_px(simdjson::dom::object info, std::string_view key) {
  double v = 0;
  if (info[key].get_double().get(v) || !(v > 0 && v < 1e9)) return 0;
  return static_cast<int>(v);
}

struct UfoContext {
  const ReaderOptions& options;
  fs::path root;
  fs::path image_dir;  // below root ("img/train", "images", ...), or empty: the root itself
  std::string shown;   // the json file as messages name it
  Dataset& ds;
  std::unordered_set<std::string> seen;                 // image paths already read
  std::unordered_set<std::string_view> word_ids;        // of the current image (views into the DOM)
  std::vector<cv::Point2f> points;                      // scratch for read_word
  std::unordered_map<std::string, bool> folder_inside;  // image subfolder -> stays below the root
};

// Whether the folder `dir` (below the root) resolves, symlinks followed, to a place inside the
// root. Asked once per distinct subfolder of image names: the image folder itself was checked
// when it was chosen (internal::ufo_image_dir).
bool folder_stays_inside(const fs::path& dir, UfoContext& cx) {
  auto [it, fresh] = cx.folder_inside.try_emplace(dir.string(), true);
  if (fresh) it->second = internal::resolves_inside(cx.root, cx.root / dir);
  return it->second;
}

// The path of image `name` below the root (cx.image_dir/name), or nullopt with the reason in
// cx.ds.bad: a name that leaves the root, names a folder (by its name or on disk), or was read
// before.
std::optional<std::string> image_path(const std::string& name, const std::string& what,
                                      UfoContext& cx) {
  const Result<std::string> path = safe_join((cx.root / cx.image_dir).string(), name);
  if (!path.has_value()) {
    cx.ds.bad.push_back({cx.shown, 0, path.error().message() + "; left out"});
    return std::nullopt;
  }
  const fs::path normal = fs::path(name).lexically_normal();
  if (!normal.has_filename() || normal.filename() == "." || normal.filename() == "..") {
    cx.ds.bad.push_back({cx.shown, 0, what + " names a folder, not an image file; left out"});
    return std::nullopt;
  }
  if (normal.has_parent_path() && !folder_stays_inside(cx.image_dir / normal.parent_path(), cx)) {
    cx.ds.bad.push_back(
        {cx.shown, 0, what + " lies in a folder that leads outside the dataset root; left out"});
    return std::nullopt;
  }
  if (const std::string why = internal::not_an_image_file(cx.root / cx.image_dir / normal);
      !why.empty()) {
    cx.ds.bad.push_back({cx.shown, 0, what + " " + why + "; left out"});
    return std::nullopt;
  }
  std::string image = (cx.image_dir / normal).string();
  if (!cx.seen.insert(image).second) {
    cx.ds.bad.push_back({cx.shown, 0, what + " appears twice; the second is left out"});
    return std::nullopt;
  }
  return image;
}

// Reads the `words` of one image into `rec`; each word left out, and why, goes to cx.ds.bad.
void read_words(simdjson::dom::object words, const std::string& what, SampleRecord& rec,
                UfoContext& cx) {
  const size_t n = words.size();
  rec.quads.reserve(n);
  rec.labels.reserve(n);
  rec.texts.reserve(n);
  rec.lines.reserve(n);
  int ordinal = 0;
  cx.word_ids.clear();
  for (auto [id, word] : words) {
    std::string why;
    if (!cx.word_ids.insert(id).second) {
      cx.ds.bad.push_back(
          {cx.shown, 0,
           what + " word '" + std::string(id) + "' appears twice; the second is left out"});
      ++ordinal;
      continue;
    }
    if (read_word(word, cx.options, ordinal, rec, cx.points, &why) != WordOutcome::kKept &&
        !why.empty())
      cx.ds.bad.push_back({cx.shown, 0, what + " word '" + std::string(id) + "': " + why});
    ++ordinal;
  }
}

// Reads one entry of "images" into cx.ds; what it has to leave out goes to cx.ds.bad.
void read_image(std::string_view name_view, element value, UfoContext& cx) {
  const std::string name(name_view);
  const std::string what = "image '" + name + "'";
  std::optional<std::string> path = image_path(name, what, cx);
  if (!path) return;
  SampleRecord rec;
  rec.image = std::move(*path);
  simdjson::dom::object info;
  if (value.get_object().get(info)) {
    cx.ds.bad.push_back({cx.shown, 0, what + " is not an object; left out"});
    return;
  }
  if (const std::string_view key = internal::duplicate_key(info, {"words", "img_w", "img_h"});
      !key.empty()) {
    cx.ds.bad.push_back(
        {cx.shown, 0, what + " has the key '" + std::string(key) + "' twice; left out"});
    return;
  }
  rec.annotation = cx.shown;
  rec.width = image_size_px(info, "img_w");
  rec.height = image_size_px(info, "img_h");
  simdjson::dom::object words;
  if (info["words"].get_object().get(words)) {
    cx.ds.bad.push_back({cx.shown, 0, what + " has no 'words' object; kept with no words"});
  } else if (const size_t n = words.size(); n > internal::kMaxWordsPerImage) {
    cx.ds.bad.push_back({cx.shown, 0,
                         what + " has " + std::to_string(n) + " words, more than the limit of " +
                             std::to_string(internal::kMaxWordsPerImage) + "; left out"});
    return;
  } else {
    read_words(words, what, rec, cx);
  }
  cx.ds.samples.push_back(std::move(rec));
}

}  // namespace

namespace internal {

Status read_ufo_part(const fs::path& root, const std::string& json_path,
                     const std::string& image_dir, const ReaderOptions& o, Dataset& ds) {
  TF_ASSIGN_OR_RETURN(simdjson::padded_string json, internal::load_json(json_path, "UFO file"));
  const std::string_view body(json.data(), json.size());
  TF_RETURN_IF_ERROR(internal::refuse_utf16_or_32(body, json_path));
  const size_t bom = internal::strip_bom(body).size() == body.size() ? 0 : 3;  // UP: utf-8-sig
  simdjson::dom::parser parser;
  element doc;
  if (auto err = parser.parse(json.data() + bom, json.size() - bom, false).get(doc))
    return internal::json_error(json_path, body, bom, err, parser.max_depth());
  simdjson::dom::object top, images;
  if (doc.get_object().get(top))
    return Status::corrupt(json_path + ": the top level is not an object");
  if (top["images"].get_object().get(images))
    return Status::corrupt(json_path + ": key 'images' is missing or is not an object");
  if (!internal::duplicate_key(top, {"images"}).empty())
    return Status::corrupt(json_path + ": key 'images' appears twice at the top level");

  const size_t before = ds.samples.size();
  UfoContext cx{o,  root, fs::path(image_dir), internal::shown_path(root, json_path), ds, {}, {},
                {}, {}};
  for (auto [name, info] : images) read_image(name, info, cx);
  ds.files.push_back({cx.shown, image_dir, ds.samples.size() - before});
  return Status();
}

}  // namespace internal

Result<Dataset> read_ufo(const std::string& root_in, const std::string& json_path,
                         const ReaderOptions& o) {
  TF_RETURN_IF_ERROR(internal::validate_options(o));
  std::error_code ec;
  const fs::path root = fs::absolute(root_in, ec).lexically_normal();
  if (!fs::is_directory(root, ec))
    return Status::not_found("UFO dataset root " + root.string() + " is not a folder");
  TF_ASSIGN_OR_RETURN(
      const std::string image_dir,
      internal::ufo_image_dir(root, fs::path(), fs::path(json_path).stem().string(), o));
  Dataset ds;
  ds.root = root.string();
  ds.format = ReaderFormat::kUfo;
  TF_RETURN_IF_ERROR(internal::read_ufo_part(root, json_path, image_dir, o, ds));
  std::sort(ds.samples.begin(), ds.samples.end(),
            [](const SampleRecord& a, const SampleRecord& b) { return a.image < b.image; });
  return ds;
}

}  // namespace textfeed::loader
