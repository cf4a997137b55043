// Dataset: counts, paths, the root-confinement rule for image names, and format detection.
#include "loader/readers/dataset.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "loader/readers/detail/text.h"
#include "loader/readers/detail/ufo_layout.h"

namespace textfeed::loader {

size_t Dataset::num_words() const {
  size_t n = 0;
  for (const SampleRecord& s : samples) n += s.quads.size();
  return n;
}

size_t Dataset::num_ignored() const {
  size_t n = 0;
  for (const SampleRecord& s : samples)
    for (unsigned char l : s.labels) n += (l == kLabelIgnored);
  return n;
}

std::string Dataset::image_path(size_t i) const {
  return (std::filesystem::path(root) / samples.at(i).image).string();
}

Result<std::string> safe_join(const std::string& root, const std::string& name) {
  namespace fs = std::filesystem;
  if (name.empty()) return Status::invalid_argument("empty image name");
  if (name.find('\0') != std::string::npos)
    return Status::invalid_argument("image name contains a NUL byte");
  const fs::path rel(name);
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    return Status::invalid_argument("image name '" + name +
                                    "' is absolute; names must be relative to the dataset root");
  int depth = 0;
  for (const fs::path& part : rel.lexically_normal()) {
    if (part == "..") {
      if (--depth < 0)
        return Status::invalid_argument("image name '" + name + "' escapes the dataset root");
    } else if (part != "." && !part.empty()) {
      ++depth;
    }
  }
  return (fs::path(root) / rel.lexically_normal()).string();
}

namespace {

namespace fs = std::filesystem;

// The first `n` bytes of a regular file (less when it is shorter; "" when it cannot be read), to
// tell formats apart without reading a large file whole.
std::string head(const fs::path& file, size_t n = 64 << 10) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return {};
  std::ifstream in(file, std::ios::binary);
  std::string out(n, '\0');
  in.read(out.data(), static_cast<std::streamsize>(n));
  out.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return out;
}

// The first non-blank line of `text`.
std::string_view first_line(std::string_view text) {
  for (std::string_view line : internal::split_lines(internal::strip_bom(text)))
    if (!internal::is_blank(line)) return line;
  return {};
}

// Whether `file` starts like a PaddleOCR label file: `path<TAB>[`.
bool looks_like_paddle(const fs::path& file) {
  const std::string h = head(file, 4096);
  const std::string_view line = first_line(h);
  const size_t tab = line.find('\t');
  return tab != std::string_view::npos &&
         line.substr(tab + 1).find_first_not_of(" ") != std::string_view::npos &&
         line[line.find_first_not_of(' ', tab + 1)] == '[';
}

// The PaddleOCR label files of folder `dir`: its *.txt files whose name holds the split and
// which start like one, sorted.
std::vector<std::string> paddle_label_files(const fs::path& dir, const ReaderOptions& o) {
  std::vector<std::string> out;
  Result<std::vector<std::string>> files = internal::list_files(dir.string());
  if (!files.has_value()) return out;
  for (const std::string& f : *files)
    if (fs::path(f).extension() == ".txt" && f.find(o.split) != std::string::npos &&
        looks_like_paddle(dir / f))
      out.push_back((dir / f).string());
  return out;
}

// A PaddleOCR label file's data_dir: its own folder, or its parent when the first image path
// exists only there (PPOCRLabel writes Label.txt inside the image folder, with paths that start
// with that folder's name).
fs::path paddle_data_dir(const fs::path& label) {
  const fs::path dir = label.parent_path();
  const std::string h = head(label, 4096);
  const std::string_view line = first_line(h);
  const std::string image(line.substr(0, std::min(line.find('\t'), line.size())));
  std::error_code ec;
  if (image.empty() || !safe_join(dir.string(), image).has_value() || fs::exists(dir / image, ec))
    return dir;
  return fs::exists(dir.parent_path() / image, ec) ? dir.parent_path() : dir;
}

// Which folder layout a folder with a <gt_dir>/ is: Total-Text (poly_gt_*.txt), CTW1500 (.xml
// labels, or .txt labels of 28/32 numbers a line), else ICDAR-2015.
ReaderFormat gt_folder_format(const fs::path& gt) {
  Result<std::vector<std::string>> files = internal::list_files(gt.string());
  if (!files.has_value()) return ReaderFormat::kIcdar15;
  for (const std::string& f : *files)
    if (f.starts_with("poly_gt_") && f.ends_with(".txt")) return ReaderFormat::kTotalText;
  for (const std::string& f : *files) {
    if (f.ends_with(".xml")) return ReaderFormat::kCtw1500;
    if (f.ends_with(".txt") && !f.starts_with("gt_")) {
      const std::string h = head(gt / f, 4096);
      const std::string_view line = first_line(h);
      const size_t commas = static_cast<size_t>(std::count(line.begin(), line.end(), ','));
      if (commas >= 27 &&
          (commas == 27 || commas == 31 || line.find("####") != std::string_view::npos))
        return ReaderFormat::kCtw1500;
    }
  }
  return ReaderFormat::kIcdar15;
}

Result<Dataset> read_folder_as(ReaderFormat f, const fs::path& p, const ReaderOptions& o) {
  switch (f) {
    case ReaderFormat::kTotalText:
      return read_totaltext(p.string(), o);
    case ReaderFormat::kCtw1500:
      return read_ctw1500(p.string(), o);
    default:
      return read_icdar15(p.string(), o);
  }
}

// A file path: UFO or mmocr json, or a PaddleOCR label file.
Result<Dataset> open_file(const std::string& path, const fs::path& p, const ReaderOptions& o) {
  const ReaderFormat f = o.format;
  const bool json = p.extension() == ".json";
  if (f == ReaderFormat::kPaddle || (f == ReaderFormat::kAuto && !json && looks_like_paddle(p)))
    return read_paddle(paddle_data_dir(p).string(), {p.string()}, o);
  if (f == ReaderFormat::kMmocr ||
      (f == ReaderFormat::kAuto && json && head(p).find("\"data_list\"") != std::string::npos))
    return read_mmocr(p.parent_path().string(), p.string(), o);
  if ((f != ReaderFormat::kAuto && f != ReaderFormat::kUfo) || !json)
    return Status::invalid_argument(
        path + ": a dataset file is a UFO or mmocr .json or a PaddleOCR label file" +
        (f == ReaderFormat::kAuto
             ? std::string()
             : "; format " + std::string(reader_format_name(f)) + " reads a folder"));
  // root/ufo/x.json -> root; any other x.json -> its own folder.
  const fs::path dir = p.parent_path();
  const fs::path root = dir.filename() == "ufo" ? dir.parent_path() : dir;
  return read_ufo(root.string(), p.string(), o);
}

// A folder path with a forced format.
Result<Dataset> open_folder_as(const fs::path& p, const ReaderOptions& o) {
  switch (o.format) {
    case ReaderFormat::kIcdar15:
      return read_icdar15(p.string(), o);
    case ReaderFormat::kTotalText:
      return read_totaltext(p.string(), o);
    case ReaderFormat::kCtw1500:
      return read_ctw1500(p.string(), o);
    case ReaderFormat::kUfo:
      return internal::open_ufo_folder(p, o);
    case ReaderFormat::kMmocr: {
      const fs::path json = p / ("textdet_" + o.split + ".json");
      std::error_code ec;
      if (!fs::is_regular_file(json, ec))
        return Status::invalid_argument(p.string() + ": no textdet_" + o.split +
                                        ".json (mmocr); name the .json file or choose the split");
      return read_mmocr(p.string(), json.string(), o);
    }
    case ReaderFormat::kPaddle: {
      const std::vector<std::string> labels = paddle_label_files(p, o);
      if (labels.empty())
        return Status::invalid_argument(
            p.string() + ": no PaddleOCR label file (*" + o.split +
            "*.txt starting 'path<TAB>[') in the folder; name the file");
      return read_paddle(p.string(), labels, o);
    }
    case ReaderFormat::kAuto:
      break;
  }
  return Status::invalid_argument("format holds an unknown value");
}

}  // namespace

std::vector<size_t> Dataset::points_histogram() const {
  std::vector<size_t> hist(kMaxPointsBin + 1, 0);
  for (const SampleRecord& s : samples)
    for (uint32_t n : s.poly_points) ++hist[std::min<size_t>(n, kMaxPointsBin)];
  return hist;
}

Result<Dataset> open_dataset(const std::string& path, const ReaderOptions& options) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec).lexically_normal();
  if (fs::is_regular_file(p, ec)) return open_file(path, p, options);
  if (!fs::is_directory(p, ec)) {
    if (fs::exists(p, ec))
      return Status::invalid_argument(
          path + ": a dataset is a folder or a UFO .json file, and this is neither");
    return Status::not_found(path + ": no such file or folder");
  }
  if (options.format != ReaderFormat::kAuto) return open_folder_as(p, options);
  if (fs::is_directory(p / options.gt_dir, ec))
    return read_folder_as(gt_folder_format(p / options.gt_dir), p, options);
  if (!fs::is_directory(p / "ufo", ec)) {
    if (fs::is_regular_file(p / ("textdet_" + options.split + ".json"), ec))
      return read_mmocr(p.string(), (p / ("textdet_" + options.split + ".json")).string(), options);
    if (const std::vector<std::string> labels = paddle_label_files(p, options); !labels.empty())
      return read_paddle(p.string(), labels, options);
  }
  return internal::open_ufo_folder(p, options);
}

}  // namespace textfeed::loader
