// mmocr OCRDataset json (docs/dataset_layouts.md "mmocr"), what mmocr's Dataset Preparer writes
// (textdet_<split>.json): {"metainfo": {...}, "data_list": [{"img_path", "height", "width",
// "instances": [{"polygon": [x1, y1, ...], "bbox": [x1, y1, x2, y2], "bbox_label", "ignore",
// "text"}]}]}. img_path is relative to the data root, here the json's folder. "ignore": true is an
// ignored word; an instance without a polygon uses its bbox as 4 points.
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "loader/readers/dataset.h"
#include "loader/readers/detail/json_file.h"
#include "loader/readers/detail/text.h"
#include "loader/readers/detail/words.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

// The numbers of `arr` into `xy`; returns why they are bad, or "".
std::string read_numbers(simdjson::dom::array arr, const char* key, std::vector<float>& xy) {
  xy.clear();
  for (element c : arr) {
    double v = 0;
    if (c.get_double().get(v))
      return std::string("'") + key + "' holds something that is not a number";
    if (!std::isfinite(v) || !internal::finite_as_float(v))
      return std::string("'") + key + "' holds a number out of range of a 32-bit float";
    xy.push_back(static_cast<float>(v));
  }
  return {};
}

// The instance's polygon into `xy` (or its bbox as 4 points); returns why it is bad, or "".
std::string read_polygon(simdjson::dom::object inst, std::vector<float>& xy) {
  simdjson::dom::array arr;
  if (!inst["polygon"].get_array().get(arr)) {
    if (std::string why = read_numbers(arr, "polygon", xy); !why.empty()) return why;
    if (xy.size() % 2 != 0)
      return "'polygon' has an odd count of numbers (" + std::to_string(xy.size()) + ")";
    if (xy.size() < 6)
      return "'polygon' has " + std::to_string(xy.size() / 2) + " points; at least 3";
    return {};
  }
  if (inst["bbox"].get_array().get(arr)) return "no 'polygon' (nor 'bbox') list";
  if (std::string why = read_numbers(arr, "bbox", xy); !why.empty()) return why;
  if (xy.size() != 4) return "'bbox' has " + std::to_string(xy.size()) + " numbers, not 4";
  const float x0 = xy[0], y0 = xy[1], x1 = xy[2], y1 = xy[3];
  xy = {x0, y0, x1, y0, x1, y1, x0, y1};
  return {};
}

// One instance into `rec`; returns why it is bad, or "".
std::string read_instance(element value, int ordinal, const ReaderOptions& o, SampleRecord& rec,
                          std::vector<float>& xy) {
  simdjson::dom::object inst;
  if (value.get_object().get(inst)) return "is not an object";
  if (const std::string_view key =
          internal::duplicate_key(inst, {"polygon", "bbox", "ignore", "text"});
      !key.empty())
    return "has the key '" + std::string(key) + "' twice";
  bool ignore = false;
  element flag;
  if (!inst["ignore"].get(flag) && !flag.is_null() && flag.get_bool().get(ignore))
    return "'ignore' is not true or false";
  std::string_view text;
  element t;
  if (!inst["text"].get(t) && !t.is_null() && t.get_string().get(text))
    return "'text' is not a string";
  if (text.find('\0') != std::string_view::npos) return "'text' contains a NUL character";
  if (std::string why = read_polygon(inst, xy); !why.empty()) return why;
  internal::add_polygon_word(rec, xy, ignore ? kLabelIgnored : kLabelValid, text, ordinal, o);
  return {};
}

// A positive image size from `key`, else 0.
int size_px(simdjson::dom::object entry, const char* key) {
  double v = 0;
  if (entry[key].get_double().get(v) || !(v > 0 && v < 1e9)) return 0;
  return static_cast<int>(v);
}

// One entry of data_list (the `index`th, 0-based) into ds; what it leaves out goes to ds.bad.
void read_entry(element value, size_t index, const std::string& shown, const ReaderOptions& o,
                internal::ImageNames& names, Dataset& ds, std::vector<float>& xy) {
  const std::string what = "data_list[" + std::to_string(index) + "]";
  auto bad = [&](const std::string& why) { ds.bad.push_back({shown, 0, what + " " + why}); };
  simdjson::dom::object entry;
  if (value.get_object().get(entry)) return bad("is not an object; left out");
  if (const std::string_view key =
          internal::duplicate_key(entry, {"img_path", "instances", "height", "width"});
      !key.empty())
    return bad("has the key '" + std::string(key) + "' twice; left out");
  std::string_view img;
  if (entry["img_path"].get_string().get(img)) return bad("has no 'img_path' string; left out");
  simdjson::dom::array instances;
  if (entry["instances"].get_array().get(instances))
    return bad("has no 'instances' list; left out");
  if (instances.size() > internal::kMaxWordsPerImage)
    return bad("has " + std::to_string(instances.size()) + " instances, more than the limit of " +
               std::to_string(internal::kMaxWordsPerImage) + "; left out");
  Result<std::string> path = names.claim(std::string(img));
  if (!path.has_value()) return bad(path.error().message() + "; left out");
  SampleRecord rec;
  rec.image = std::move(*path);
  rec.annotation = shown;
  rec.width = size_px(entry, "width");
  rec.height = size_px(entry, "height");
  int ordinal = 0;
  for (element inst : instances) {
    if (std::string why = read_instance(inst, ordinal, o, rec, xy); !why.empty())
      bad("('" + std::string(img) + "') instance " + std::to_string(ordinal) + ": " + why);
    ++ordinal;
  }
  ds.samples.push_back(std::move(rec));
}

}  // namespace

Result<Dataset> read_mmocr(const std::string& root_in, const std::string& json_path,
                           const ReaderOptions& o) {
  TF_RETURN_IF_ERROR(internal::validate_options(o));
  std::error_code ec;
  const fs::path root = fs::absolute(root_in, ec).lexically_normal();
  if (!fs::is_directory(root, ec))
    return Status::not_found("mmocr data root " + root.string() + " is not a folder");
  simdjson::dom::parser parser;
  simdjson::padded_string json;
  element doc;
  TF_RETURN_IF_ERROR(
      internal::parse_json_file(json_path, "mmocr annotation file", parser, json, doc));
  simdjson::dom::object top;
  simdjson::dom::array list;
  if (doc.get_object().get(top))
    return Status::corrupt(json_path + ": the top level is not an object");
  if (top["data_list"].get_array().get(list))
    return Status::corrupt(json_path + ": key 'data_list' is missing or is not a list");
  if (!internal::duplicate_key(top, {"data_list", "metainfo"}).empty())
    return Status::corrupt(json_path +
                           ": key 'data_list' or 'metainfo' appears twice at the top level");
  Dataset ds;
  ds.root = root.string();
  ds.format = ReaderFormat::kMmocr;
  const std::string shown = internal::shown_path(root, json_path);
  internal::ImageNames names(root);
  std::vector<float> xy;
  size_t index = 0;
  for (element entry : list) read_entry(entry, index++, shown, o, names, ds, xy);
  ds.files.push_back({shown, "", ds.samples.size()});
  std::sort(ds.samples.begin(), ds.samples.end(),
            [](const SampleRecord& a, const SampleRecord& b) { return a.image < b.image; });
  return ds;
}

}  // namespace textfeed::loader
