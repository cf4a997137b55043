// Where a UFO dataset's files are (docs/dataset_layouts.md): the image folder of each json, the
// layouts of a dataset folder (ufo/<split>.json; <x>_receipt/ufo/<split>.json merged), and the
// rule that keeps every folder the readers use below the dataset's root, symlinks followed.
#pragma once

#include <filesystem>
#include <string>

#include "base/status.h"
#include "loader/readers/dataset.h"
#include "loader/spec/spec.h"

namespace textfeed::loader::internal {

// Whether `path` resolves, symlinks followed, to `root` or a place below it (`root` resolved the
// same way). The part of `path` that does not exist is taken lexically.
bool resolves_inside(const std::filesystem::path& root, const std::filesystem::path& path);

// The folder, relative to `root`, that a UFO json's image names are relative to: the first of
// sub/img/<stem>/, sub/<images_dir>/ and sub/ itself that is a folder ("" for the root itself).
// `sub` is relative to `root` (empty: the root). Errors: kInvalidArgument when that folder leads
// outside `root` (a symlink), kNotFound when `sub` is not a folder.
Result<std::string> ufo_image_dir(const std::filesystem::path& root,
                                  const std::filesystem::path& sub, const std::string& stem,
                                  const ReaderOptions& options);

// Reads the UFO json `json_path` into `into`: its samples appended unsorted (image paths
// image_dir/<name>), what it leaves out to `into.bad`, and one entry of `into.files`. Errors: those
// of read_ufo for the file.
Status read_ufo_part(const std::filesystem::path& root, const std::string& json_path,
                     const std::string& image_dir, const ReaderOptions& options, Dataset& into);

// A UFO dataset folder `root` (absolute, normal) without an ICDAR gt folder: root/ufo/<split>.json,
// else every root/<x>_receipt/ufo/<split>.json merged. Errors: as open_dataset.
Result<Dataset> open_ufo_folder(const std::filesystem::path& root, const ReaderOptions& options);

}  // namespace textfeed::loader::internal
