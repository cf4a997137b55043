// The folder layout of ICDAR-2015, Total-Text and CTW1500 (docs/dataset_layouts.md):
// root/<images_dir>/<stem>.<ext> paired by stem with one label file per image in root/<gt_dir>/.
// Each format says how a label file's name gives its image's stem, and parses one label file.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "loader/readers/dataset.h"

namespace textfeed::loader::internal {

struct PairedFolderFormat {
  ReaderFormat format;
  const char* name;  // for messages: "Total-Text", "CTW1500"
  // The image stem a label file name pairs with, or nullopt when the file is not a label file
  // (ignored without a word, like a README in the folder).
  std::function<std::optional<std::string>(const std::string& file_name)> stem_of;
  // Parses the label file at `path` (shown as `shown`) into `rec`; bad records go to `bad` with
  // their line. An error leaves the image out, listed with it.
  std::function<Status(const std::string& path, const std::string& shown, const ReaderOptions& o,
                       SampleRecord& rec, std::vector<BadRecord>& bad)>
      parse;
  // A file that pairs with no image but is named like a label file: why it is not one, reported
  // in `bad` (ICDAR-2015: "gt file name does not start with 'gt_'"); empty, or no function: the
  // file is passed over without a word.
  std::function<std::string(const std::string& file_name)> misnamed;
  // What `bad` says of an image without a label file (the image is kept with no words); no
  // function: "no label file for it in <gt_dir>/; image kept with no words".
  std::function<std::string(const ReaderOptions& o, const std::string& stem)> unlabelled;
};

// Reads the folder `root` as `fmt` says. A label file without an image and an image without a
// label file are listed in `bad` (the image then is kept with no words). Errors: kNotFound (no
// images or gt folder), kInvalidArgument (options), kIo.
Result<Dataset> read_paired_folder(const std::string& root, const ReaderOptions& options,
                                   const PairedFolderFormat& fmt);

// A format's words limit, checked by each parser before it appends a word: kInvalidArgument
// naming the file and line when `rec` already holds kMaxWordsPerImage polygons.
Status check_word_limit(const SampleRecord& rec, const std::string& shown, int line);

}  // namespace textfeed::loader::internal
