// Dataset readers: ICDAR-2015 text files, UFO json (docs/targets.md §1), Total-Text, CTW1500,
// PaddleOCR label files and mmocr OCRDataset json (docs/dataset_layouts.md), into one index of
// SampleRecords. Reading the index touches annotation files only, never pixels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/quad.h"
#include "base/status.h"
#include "loader/spec/spec.h"

namespace textfeed::loader {

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
  // Every word as the annotation draws it, any number (>= 3) of points, what eval batches return
  // (docs/design.md "Evaluation batches"): the words `quads` keeps, in the file's order, plus
  // those of more than 4 points that PolyPolicy kSkip leaves out of `quads`; not the words an
  // ignore tag or a bad field removes. Every reader fills it (ICDAR: the quads themselves).
  std::vector<float> poly_xy;              // x y interleaved, original px
  std::vector<uint32_t> poly_points;       // points per word
  std::vector<unsigned char> poly_labels;  // per word: kLabelValid or kLabelIgnored
};

// A record or word the reader left out, with where and why.
struct BadRecord {
  std::string file;  // annotation or image file
  int line = 0;      // 1-based line of a text label file (ICDAR, Total-Text, CTW1500 .txt,
                     // PaddleOCR); 0: none (the whole file, or a json/xml record, whose reason
                     // names its image and word)
  std::string reason;
};

// One annotation file (UFO or mmocr json, PaddleOCR label file) a Dataset was read from, and the
// folder its image names were found in (docs/dataset_layouts.md).
struct AnnotationFile {
  std::string file;       // the json, relative to the root (absolute when it lies outside)
  std::string image_dir;  // relative to the root; "" is the root itself
  size_t samples = 0;     // the samples it gave
};

struct Dataset {
  std::string root;                              // absolute path of the dataset folder
  ReaderFormat format = ReaderFormat::kIcdar15;  // the reader that read it (never kAuto)
  std::vector<SampleRecord> samples;             // sorted by image path
  std::vector<BadRecord> bad;                    // what was skipped, in reading order
  std::vector<AnnotationFile> files;  // UFO, mmocr, PaddleOCR: each file read, in reading order;
                                      // the folder layouts (ICDAR, Total-Text, CTW1500): empty
  // Points per word over every sample's poly_points: hist[k] counts words of k points for k <
  // kMaxPointsBin, hist[kMaxPointsBin] those of kMaxPointsBin or more.
  static constexpr size_t kMaxPointsBin = 32;

  size_t num_words() const;
  size_t num_ignored() const;
  // kMaxPointsBin + 1 counts (see kMaxPointsBin).
  std::vector<size_t> points_histogram() const;
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

// Total-Text: root/<images_dir>/<stem>.<ext> paired by name with root/<gt_dir>/poly_gt_<stem>.txt
// (gt_<stem>.txt and <stem>.txt are accepted too). Each record is `x: [[...]], y: [[...]], ornt:
// [...], transcriptions: [...]` (the legacy and the quoted/np.array forms), possibly over
// several lines; transcription "#" is ignored. Quads: the polygon itself (4 points) or its
// minimum-area rectangle under poly_policy, as UFO. Bad records: listed in `bad` with their
// line. Errors: as read_icdar15.
Result<Dataset> read_totaltext(const std::string& root, const ReaderOptions& options);

// SCUT-CTW1500: root/<images_dir>/<stem>.<ext> paired with root/<gt_dir>/<stem>.txt or .xml (the
// txt: 32 numbers, a box then 28 offsets from its top-left; or 28 absolute coordinates with an
// optional ",####text"; the xml: <box> elements with <segs> of 28 numbers). Transcription "###"
// is ignored. Errors: as read_icdar15.
Result<Dataset> read_ctw1500(const std::string& root, const ReaderOptions& options);

// PaddleOCR label files (SimpleDataSet/DetLabelEncode): lines `image_path<TAB>[{"transcription":
// ..., "points": [[x, y], ...]}, ...]`; image paths relative to `data_dir` (the root), which must
// stay below it. Transcriptions "###" and "*" are ignored. Errors: kNotFound, kInvalidArgument
// (not a regular file, too large, UTF-16/32).
Result<Dataset> read_paddle(const std::string& root, const std::vector<std::string>& label_files,
                            const ReaderOptions& options);

// mmocr OCRDataset json: {"metainfo": {...}, "data_list": [{"img_path", "height", "width",
// "instances": [{"polygon": [x1, y1, ...], "bbox", "bbox_label", "ignore", "text"?}]}]}; image
// paths relative to `root`; "ignore": true is ignored. Errors: kNotFound, kCorrupt (not valid json,
// a wrong top-level structure), kInvalidArgument (the file is not regular, too large, UTF-16/32).
Result<Dataset> read_mmocr(const std::string& root, const std::string& json_path,
                           const ReaderOptions& options);

// Auto-detects (docs/dataset_layouts.md): a .json file is UFO (root: the folder above ufo/ when
// the file is in a ufo/ folder, else its own folder); a folder with <gt_dir>/ is ICDAR-2015; a
// folder with ufo/ reads ufo/<split>.json; a folder with <x>_receipt/ufo/ folders reads every
// <x>_receipt/ufo/<split>.json in sorted order, each with its images below <x>_receipt/, merged
// into one Dataset. A .json with "data_list" is mmocr's; a .txt file is a PaddleOCR label file
// (root: its folder); a folder with <gt_dir>/ holding poly_gt_*.txt is Total-Text, one holding
// .xml labels or 14-point .txt labels is CTW1500. options.format other than kAuto forces a reader
// (docs/dataset_layouts.md). Errors: kNotFound, kInvalidArgument (not a dataset, no <split>.json,
// an image name in two merged json files: naming both files and the image), those of the readers.
Result<Dataset> open_dataset(const std::string& path, const ReaderOptions& options);

// Joins `name` under `root`, refusing absolute names and any ".." that escapes the root.
Result<std::string> safe_join(const std::string& root, const std::string& name);

}  // namespace textfeed::loader
