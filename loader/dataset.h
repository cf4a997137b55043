// Dataset readers: ICDAR-2015 text files and UFO json (docs/targets.md §1), into one index of
// SampleRecords. Reading the index touches annotation files only, never pixels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/quad.h"
#include "base/status.h"
#include "loader/spec.h"

namespace textfeed::loader {

enum class DatasetFormat : unsigned char { kIcdar15, kUfo };

// One image and its words. Words are in annotation order; the four vectors have equal length.
struct SampleRecord {
  std::string image;       // path relative to the dataset root; never absolute, never has ".."
  std::string annotation;  // the file the words came from (gt txt or UFO json), for messages
  std::vector<Quad> quads;
  std::vector<unsigned char> labels;  // kLabelValid (1) or kLabelIgnored (0)
  std::vector<std::string> texts;     // transcription; empty when the source has none
  std::vector<int> lines;             // ICDAR: 1-based line number; UFO: 0-based word ordinal
  int width = 0;                      // from the annotation when it gives one (UFO), else 0
  int height = 0;
  // UFO: every word as the annotation draws it, any number of points, what eval batches return
  // (docs/design.md "Evaluation batches"): the words `quads` keeps, in the file's order, plus
  // those of more than 4 points that PolyPolicy kSkip leaves out of `quads`; not the words an
  // ignore tag or a bad field removes. Empty for ICDAR, whose words are the quads.
  std::vector<float> poly_xy;            // x y interleaved, original px
  std::vector<uint32_t> poly_points;     // points per word
  std::vector<unsigned char> poly_labels;  // per word: kLabelValid or kLabelIgnored
};

// A record or word the reader left out, with where and why.
struct BadRecord {
  std::string file;  // annotation or image file
  int line = 0;      // 1-based line of an ICDAR gt file; 0: none (the whole file, or a UFO record,
                     // whose reason names its image and word)
  std::string reason;
};

// One UFO json a Dataset was read from, and the folder its image names were found in
// (docs/dataset_layouts.md).
struct AnnotationFile {
  std::string file;       // the json, relative to the root (absolute when it lies outside)
  std::string image_dir;  // relative to the root; "" is the root itself
  size_t samples = 0;     // the samples it gave
};

struct Dataset {
  std::string root;  // absolute path of the dataset folder
  DatasetFormat format = DatasetFormat::kIcdar15;
  std::vector<SampleRecord> samples;  // sorted by image path
  std::vector<BadRecord> bad;         // what was skipped, in reading order
  std::vector<AnnotationFile> files;  // UFO: each json read, in reading order; ICDAR-2015: empty

  size_t num_words() const;
  size_t num_ignored() const;
  // Absolute path of sample i's image.
  std::string image_path(size_t i) const;
};

// ICDAR-2015: root/images/<stem>.<jpg|png|...> paired BY NAME with root/gt/gt_<stem>.txt.
// A gt file without an image, or an image without a gt file, is listed in `bad` (the image then
// has no words only if its gt file is missing: it is kept with zero words). Unparsable lines
// (coordinates that are not finite float32 numbers, NUL bytes) are listed in `bad` and skipped;
// lines end at LF, CR LF or CR. A gt file that cannot be used whole (UTF-16/32, over 64 MiB,
// over 65536 words, a folder or FIFO) leaves its image out, listed. Entries of images/ named like
// images that are not regular files are listed. Errors: kNotFound (no such folder),
// kInvalidArgument.
Result<Dataset> read_icdar15(const std::string& root, const ReaderOptions& options);

// UFO json `json_path` whose image names are relative to the first folder of root/img/<stem>/
// (stem: the json's file name without .json), root/<images_dir>/ and root itself that exists
// (Dataset::files says which). Errors: kInvalidArgument when that folder leads outside the root
// (a symlink). Names that escape the image folder or name a folder, names in a subfolder that
// leads outside the root, images with over 65536 words, and
// words whose coordinates are not finite float32 numbers or whose transcription holds a NUL are
// listed in `bad` and left out; so are words and images that hold a key they are read by twice
// (a word id, "points", "words", ...: JSON readers disagree on which one counts). Errors:
// kNotFound, kCorrupt (not valid json — with the byte offset of the error, a number json cannot
// hold or nesting past simdjson's depth included — a wrong structure, or "images" twice),
// kInvalidArgument (the json is not a regular file, too large, or UTF-16/32).
Result<Dataset> read_ufo(const std::string& root, const std::string& json_path,
                         const ReaderOptions& options);

// Auto-detects (docs/dataset_layouts.md): a .json file is UFO (root: the folder above ufo/ when
// the file is in a ufo/ folder, else its own folder); a folder with <gt_dir>/ is ICDAR-2015; a
// folder with ufo/ reads ufo/<split>.json; a folder with <x>_receipt/ufo/ folders reads every
// <x>_receipt/ufo/<split>.json in sorted order, each with its images below <x>_receipt/, merged
// into one Dataset. Errors: kNotFound, kInvalidArgument (not a dataset, no <split>.json, an image
// name in two merged json files: naming both files and the image), those of read_ufo.
Result<Dataset> open_dataset(const std::string& path, const ReaderOptions& options);

// Joins `name` under `root`, refusing absolute names and any ".." that escapes the root.
Result<std::string> safe_join(const std::string& root, const std::string& name);

}  // namespace textfeed::loader
