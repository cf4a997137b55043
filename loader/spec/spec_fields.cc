// The reader's and the sampler's rows: name, member, bound, doc (docs/dataset_layouts.md and
// loader/sources/sampler.h for the semantics).
#include "loader/spec/spec_fields.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace textfeed::loader {
namespace {

// A folder below a dataset's root: relative, and never "..".
Status folder_rule(std::string_view name, const std::string& value) {
  if (!value.empty() && value.front() == '/')
    return Status::invalid_argument(std::string(name) + " must be a relative folder name, got '" +
                                    value + "'");
  for (size_t at = 0; at <= value.size();) {
    const size_t slash = std::min(value.find('/', at), value.size());
    if (value.compare(at, slash - at, "..") == 0)
      return Status::invalid_argument(std::string(name) +
                                      " must stay below the dataset's root, got '" + value + "'");
    at = slash + 1;
  }
  return Status();
}

// A split names the file <split>.json in a ufo/ folder and the folder img/<split>/: one plain
// name component, so that it can neither leave those folders nor name them.
Status stem_rule(std::string_view name, const std::string& value) {
  if (value == "." || value == ".." || value.find('/') != std::string::npos)
    return Status::invalid_argument(std::string(name) + " must be a file name stem (1.." +
                                    std::to_string(kMaxSplitBytes) +
                                    " bytes, no '/', not '.' or '..') such as 'train' or 'val', "
                                    "got '" +
                                    value + "'");
  return Status();
}

// A name of a list: at most kMaxTextBytes (what a daemon repeats in its replies fits one envelope).
Status name_rule(std::string_view name, const std::string& value) {
  if (value.size() <= kMaxTextBytes) return Status();
  return Status::invalid_argument(std::string(name) + " has a name of " +
                                  std::to_string(value.size()) + " bytes; at most " +
                                  std::to_string(kMaxTextBytes));
}

using R = ReaderOptions;
constexpr double kMaxText = static_cast<double>(kMaxTextBytes);

constexpr ReaderField kReader[] = {
    enum_field<&R::ignore_text>(
        "ignore_text", kIgnoreTextNames,
        "ICDAR '###' rule: substring, a word is ignored when '###' occurs anywhere in its line "
        "(the reference); exact, when its transcription is exactly ### or *"),
    text_list_field("ignore_tags", &R::ignore_tags, {0, kMaxIgnoreTags}, &name_rule,
                    "UFO: word tags whose words are skipped (background), as the reference"),
    enum_field<&R::poly_policy>(
        "poly_policy", kPolyPolicyNames,
        "EAST quads of words with other than 4 points (UFO: more than 4): skip, background (the "
        "reference); minrect, their minimum-area rectangle; mask-ignore, that rectangle marked "
        "ignored (eval polygons keep every point)"),
    double_field("drop_under_area", &R::drop_under_area, {0, kMaxArea},
                 "UFO: words whose convex-hull area (px^2) is below this are dropped (the "
                 "reference: 1)"),
    double_field("ignore_under_area", &R::ignore_under_area, {0, kMaxArea},
                 "UFO: words whose convex-hull area (px^2) is below this are marked ignored; 0 = "
                 "off, as the reference"),
    text_field("images_dir", &R::images_dir, {1, kMaxText}, &folder_rule,
               "the images folder below the dataset's root (ICDAR-2015; UFO: after img/<split>/)"),
    text_field("gt_dir", &R::gt_dir, {1, kMaxText}, &folder_rule,
               "the ground-truth folder below the dataset's root (ICDAR-2015: gt_<stem>.txt)"),
    enum_field<&R::illegibility>(
        "illegibility", kIllegibilityNames,
        "UFO 'illegibility': true: ignore, the word is ignored (label 0, the Upstage baseline); "
        "valid, the flag is not read and every word is valid (the 7th-generation baseline)"),
    text_field("split", &R::split, {1, static_cast<double>(kMaxSplitBytes)}, &stem_rule,
               "UFO: the annotation file a dataset folder reads: ufo/<split>.json, or every "
               "<x>_receipt/ufo/<split>.json merged (e.g. train, val, test)"),
    enum_field<&R::format>("format", kReaderFormatNames,
                           "the dataset's annotation format; auto: detected from the path "
                           "(docs/dataset_layouts.md); paddle: a PaddleOCR label file; mmocr: an "
                           "mmocr OCRDataset json"),
};

using S = SamplerOptions;

// `resume` (an elastic resume's history, set from a saved state: Loader.load_state_dict, the
// wire's Sampler.resume*) and `pad` (the mode decides it: effective_spec) are no options a user
// sets by name: they have no row, and travel or are derived by hand.
constexpr SamplerField kSampler[] = {
    uint64_field("seed", &S::seed, {0, 0x1p64}, "the augmentation and shuffle seed"),
    int_field("batch_size", &S::batch_size, {1, kMaxBatchSize}, "samples per batch"),
    int_field("rank", &S::rank, {0, kMaxWorldSize - 1}, "this client's rank, below world_size"),
    int_field("world_size", &S::world_size, {1, kMaxWorldSize}, "the number of ranks"),
    bool_field("shuffle", &S::shuffle, "a per-epoch permutation (off: dataset order)"),
    bool_field("drop_last", &S::drop_last, "drop the last, short batch and the uneven tail"),
    uint64_field("epoch_size", &S::epoch_size, {0, static_cast<double>(kMaxEpochSize)},
                 "weighted sources: samples drawn per epoch (0: the sum of their sizes)"),
};

}  // namespace

std::span<const ReaderField> reader_fields() { return kReader; }
std::span<const SamplerField> sampler_fields() { return kSampler; }

}  // namespace textfeed::loader
