// What every polygon reader does with one word (docs/dataset_layouts.md "Polygons"): the polygon
// kept whole in SampleRecord::poly_*, and its quad for the EAST profiles under PolyPolicy; plus the
// image pairing of the folder layouts (ICDAR-2015, Total-Text, CTW1500) and the image-name checks
// of the list formats (PaddleOCR, mmocr).
#pragma once

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/quad.h"
#include "base/status.h"
#include "loader/readers/dataset.h"
#include "loader/readers/detail/text.h"

namespace textfeed::loader::internal {

// The minimum-area rectangle of the points `xy` (x y interleaved, at least 1 point), clockwise on
// screen (y down), starting from the corner nearest the top-left: the ICDAR order.
Quad min_area_rect_quad(std::span<const float> xy);

// Appends one word of xy.size() / 2 >= 3 points to `rec`: always to poly_* (label `label`), and to
// quads/labels/texts/lines as PolyPolicy says: 4 points as given; other counts left out (kSkip),
// or their minimum-area rectangle (kMinRect; kMaskIgnore with label 0). Returns whether the word
// went to the quads. A polygon format's word of other than 4 points left out of the quads is not a
// bad record: the polygon is what the format gives, and DB-style targets use it.
bool add_polygon_word(SampleRecord& rec, std::span<const float> xy, unsigned char label,
                      std::string_view text, int line, const ReaderOptions& options);

// Whether a file extension (".jpg", any case) names an image the readers pair with labels.
bool is_image_extension(std::string ext);

// `dir`/`name` as a path string (for messages and SampleRecord::image).
std::string rel_path(const std::string& dir, const std::string& name);

using StemMap = std::map<std::string, std::string>;  // stem -> file name

// Entries of the images folder (`images_dir`) named like images that are not regular files: listed.
void report_odd_images(const std::vector<NonRegularEntry>& odd_images,
                       const std::string& images_dir, std::vector<BadRecord>& bad);

// The image files by stem; of two with one stem the first (by name) is kept, the other listed.
StemMap index_images(const std::vector<std::string>& image_files, const std::string& images_dir,
                     std::vector<BadRecord>& bad);

// Why `path`, an image named by an annotation, cannot be decoded, found with one stat (symlinks
// followed): "names a folder, not an image file", "names a FIFO, not an image file", ...; empty for
// a regular file, and for a name with nothing there (the decoder reports a missing image, as for
// every format).
std::string not_an_image_file(const std::filesystem::path& path);

// The image names of the list formats (PaddleOCR, mmocr): relative to the root, staying below it
// (a subfolder that is a symlink leading outside included), naming a file (lexically, then on
// disk: not_an_image_file), each once. Not thread-safe (one per reading).
class ImageNames {
 public:
  explicit ImageNames(std::filesystem::path root) : root_(std::move(root)) {}
  // The image's path relative to the root (normalized), or kInvalidArgument saying why not.
  Result<std::string> claim(const std::string& name);

 private:
  std::filesystem::path root_;
  std::unordered_set<std::string> seen_;
  std::unordered_map<std::string, bool> folder_inside_;  // subfolder -> stays below the root
};

}  // namespace textfeed::loader::internal
