// PipelineSpec: everything a training job asks of the pipeline, as one typed value — where the
// samples come from (sources, each with its reader options), how each sample is made (the
// recipe: a profile's defaults with typed changes), how batches are drawn (the sampler) and what
// a bad sample does. The same value travels from the Python keywords or the CLI flags through the
// wire (protocol.capnp PipelineSpec) to the worker threads; text is parsed into it only at those
// edges. validate() is the one check of every field's bound.
//
// This header and spec.cc depend on base/ and augment/profile.h only, so that a client that
// merely sends a spec to a daemon links neither OpenCV nor oneTBB.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "augment/profile.h"
#include "base/status.h"

namespace textfeed::loader {

// How a `###` in an ICDAR line marks the word ignored (docs/targets.md §1.1, §5 #16).
enum class IgnoreText : unsigned char {
  kSubstring,  // SakuraRiven: "###" anywhere in the line (the default, as the reference)
  kExact,      // the transcription is exactly "###" (or "*", argman's convention)
};

// What a UFO word with more than 4 points becomes (docs/targets.md §1.2, §5 #7).
enum class PolyPolicy : unsigned char {
  kSkip,        // dropped, i.e. background (the reference)
  kMinRect,     // replaced by its minimum-area rectangle, label kept
  kMaskIgnore,  // replaced by its minimum-area rectangle with label 0 (masked out of the loss)
};

// What a UFO word's "illegibility" flag does (docs/targets.md §1.2, docs/dataset_layouts.md).
enum class Illegibility : unsigned char {
  kIgnore,  // an illegible word is ignored (label 0), as the Upstage baseline (the default)
  kValid,   // the flag is not read at all: every word is valid, as the 7th-generation baseline
};

// Which reader a dataset path is read with (docs/dataset_layouts.md). kAuto detects it from the
// path (open_dataset); the others force one reader.
enum class ReaderFormat : unsigned char {
  kAuto,
  kIcdar15,    // images/ + gt/gt_<stem>.txt
  kUfo,        // UFO json
  kTotalText,  // Total-Text gt files: x: [[..]], y: [[..]], ornt, transcriptions
  kCtw1500,    // SCUT-CTW1500 14-point .txt or .xml labels
  kPaddle,     // PaddleOCR label file: image_path<TAB>json list of words
  kMmocr,      // mmocr OCRDataset json (metainfo + data_list)
};

// Options of the dataset readers, one row each in reader_fields() (loader/spec/spec_fields.h).
// Bounds: ignore_tags at most kMaxIgnoreTags names of at most kMaxTextBytes each; the areas finite
// and in [0, 1e12]; the folder names relative, without ".."; split a plain file-name stem (no '/',
// not "." or "..", at most kMaxSplitBytes).
struct ReaderOptions {
  IgnoreText ignore_text = IgnoreText::kSubstring;
  // UFO: words with any of these tags are skipped entirely (background), as the reference.
  std::vector<std::string> ignore_tags = {"masked", "excluded-region", "maintable", "stamp"};
  PolyPolicy poly_policy = PolyPolicy::kSkip;
  // UFO filter_vertices: words whose convex-hull area is below this are dropped (reference: 1).
  double drop_under_area = 1.0;
  // UFO filter_vertices ignore_under, made effective (§5 #5). 0 = off, as the reference.
  double ignore_under_area = 0.0;
  // ICDAR folder layout below the root.
  std::string images_dir = "images";
  std::string gt_dir = "gt";
  // UFO: what "illegibility": true makes of a word.
  Illegibility illegibility = Illegibility::kIgnore;
  // UFO: which annotation file a dataset folder reads: ufo/<split>.json, or every
  // <x>_receipt/ufo/<split>.json (docs/dataset_layouts.md). Also the image folder img/<split>/.
  std::string split = "train";
  // Which reader reads the dataset; kAuto: detected from the path (open_dataset).
  ReaderFormat format = ReaderFormat::kAuto;

  friend bool operator==(const ReaderOptions&, const ReaderOptions&) = default;
};

// One step of an epoch's history before an elastic resume: a job of `world_size` ranks taking
// batches of `batch_size` delivered `batches[r]` batches on rank r (one entry: every rank the same)
// from the order the earlier steps left. Bounds: as SamplerOptions' batch_size and world_size;
// `batches` has 1 or world_size entries, each at most the batches that order gives a rank.
struct ResumeStage {
  int world_size = 1;
  int batch_size = 1;
  std::vector<uint64_t> batches;

  friend bool operator==(const ResumeStage&, const ResumeStage&) = default;
};

// Where an elastic resume picks an epoch up (docs/design.md "Elastic resume"): epoch `epoch` is
// made of the samples its order holds that no stage delivered, sharded anew by this sampler; later
// epochs are whole. No stages: no resume. Bound: kMaxResumeStages stages.
struct ResumePoint {
  uint64_t epoch = 0;
  std::vector<ResumeStage> stages;

  friend bool operator==(const ResumePoint&, const ResumePoint&) = default;
};

// Which samples make up batch k of rank r (loader/sources/sampler.h has the semantics); the
// options a user sets by name are rows of sampler_fields() (loader/spec/spec_fields.h). Bounds:
// batch_size in [1, kMaxBatchSize], world_size in [1, kMaxWorldSize], 0 <= rank < world_size;
// epoch_size at most kMaxEpochSize, and not 0 only when the sources have weights.
struct SamplerOptions {
  uint64_t seed = 0;
  int batch_size = 8;
  int rank = 0;
  int world_size = 1;
  bool shuffle = true;
  bool drop_last = false;
  // Weighted sources: samples drawn per epoch (0: the sum of the sources' sizes).
  uint64_t epoch_size = 0;
  ResumePoint resume;
  // Without drop_last, pad the epoch by wrapping around so every rank gets the same number of
  // samples (DistributedSampler). false (what eval sets): no sample repeats, and the later ranks
  // get one sample fewer (loader/sources/sampler.h). Not on the wire: the mode decides it.
  bool pad = true;

  friend bool operator==(const SamplerOptions&, const SamplerOptions&) = default;
};

// How images are decoded: the limits of the process that decodes (a daemon uses its own; they
// are not sent over the wire).
struct DecodeOptions {
  int64_t max_pixels = 100'000'000;  // width*height above this is kInvalidArgument
  bool windows = true;  // SampleProducer decodes only the part of a JPEG its crop reads
  // A window of a JPEG with restart markers in its rows is decoded from the restart intervals under
  // it alone (loader/decode/detail/jpeg_restart.h); false: from the whole file (the same bytes,
  // slower).
  bool restart_cuts = true;
};

// What a pipeline makes of each sample (docs/design.md "Evaluation batches").
enum class Mode : unsigned char {
  kTrain,  // random augmentation to a crop, the profile's targets
  kEval,   // the profile's inference preprocessing (augment/inference.h), dataset order, every
           // sample exactly once over the ranks, the image only, per-sample metadata
};

// What to do with a sample whose image cannot be read, decoded or (eval) placed on the canvas.
// Eval never replaces an image (a copy of another would change a metric): it takes kFail (its
// default at every edge) or kReport; kSkip is refused there.
enum class OnBadSample : unsigned char {
  kSkip,    // training: write a deterministically drawn replacement sample in its row; report both
  kFail,    // fail the batch with the sample's error (eval: the pipeline is not even made when the
            //   scan at creation finds an image that cannot be used)
  kReport,  // eval: leave the row blank (zeros), keep its image id and words, and report it in
            //   BatchInfo::errors with replaced_by == index (a missing row a metric can count)
};

// Where samples come from: a dataset (folder, UFO json) or a cache file; to a daemon, one of the
// names it serves. The reader options apply to a dataset (a cache was read with its own).
// `weight`: 0 for every source of a spec (they concatenate: an epoch is each sample once), or
// finite and > 0 for every one (each epoch draws samples from each in proportion;
// loader/sources/sampler.h).
struct SourceSpec {
  std::string path;
  ReaderOptions reader;
  double weight = 0;

  friend bool operator==(const SourceSpec&, const SourceSpec&) = default;
};

// The most samples in a batch (the daemon's bound too): beyond it a slot of float32 crops runs into
// tens of GiB, which is a mistake rather than a batch.
inline constexpr int kMaxBatchSize = 4096;
inline constexpr int kMaxWorldSize = 1 << 20;
// Sources in one spec (concatenated, or a weighted mixture).
inline constexpr size_t kMaxSources = 64;
// A reader area's largest value, px² (ReaderOptions::drop_under_area, ignore_under_area).
inline constexpr double kMaxArea = 1e12;
// A weight's largest value (weights are relative: only their ratios matter).
inline constexpr double kMaxWeight = 1e9;
// Draws in one weighted epoch (SamplerOptions::epoch_size). The epoch's order is computed whole
// before its first batch (8 bytes a draw, every draw shuffled): 2^28 draws took 42 s and 2.3 GB
// per stream before the first batch; 2^24 (16.8 M, over 16 passes of a million images) take a
// sixteenth of that. More draws are more epochs, not a longer one. Python's MAX_EPOCH_SIZE is
// this constant.
inline constexpr uint64_t kMaxEpochSize = uint64_t{1} << 24;
// Stages an elastic resume may chain inside one epoch.
inline constexpr size_t kMaxResumeStages = 64;
// A path, name, tag or folder in a spec (what a daemon repeats in its replies fits one envelope).
inline constexpr size_t kMaxTextBytes = 4096;
inline constexpr size_t kMaxIgnoreTags = 256;
// A split names a file (<split>.json): one file-name component.
inline constexpr size_t kMaxSplitBytes = 255;

struct PipelineSpec {
  std::vector<SourceSpec> sources;  // kMaxSources at most, at least one
  augment::AugmentOptions augment;  // the recipe: profile defaults, changed field by field
  SamplerOptions sampler;
  OnBadSample on_bad_sample = OnBadSample::kSkip;
  Mode mode = Mode::kTrain;
  // Training mode: each batch also carries every sample's polygons after the augmentation, in
  // crop px (BatchInfo). Eval batches always carry the original polygons.
  bool return_polygons = false;
  DecodeOptions decode;  // local: not part of what a client asks a daemon for
};

// The spec a pipeline runs: in eval mode the sampler keeps dataset order and neither pads nor
// drops (shuffle, drop_last and pad are set accordingly); training specs come back unchanged.
PipelineSpec effective_spec(const PipelineSpec& spec);

// The reader options a profile's reference reads its data with: the defaults above, and for bc7
// (the 7th-generation baseline, which reads neither 'illegibility' nor 'tags') illegibility valid
// and no ignore tags.
ReaderOptions reader_defaults(augment::Profile profile);

// A spec of `profile`'s defaults reading `path` (what every edge starts from).
PipelineSpec default_spec(augment::Profile profile, std::string path = {});

// Every field against its bound (augment::validate for the recipe; the rows of reader_fields()
// and sampler_fields(), then rank < world_size and the resume). Errors: kInvalidArgument naming
// the field, the value and the bound ("reader option NAME ...", "sampler option NAME ...").
Status validate(const PipelineSpec& spec);
Status validate(const ReaderOptions& options);
Status validate(const SamplerOptions& options);
// Every weight 0, or every one finite in (0, kMaxWeight]. Errors: kInvalidArgument naming the
// source.
Status validate_weights(const std::vector<SourceSpec>& sources);
// Eval's recipe: image_size > 0 (the canvas side), and for db a multiple of 32 and the BGR
// channel order its inference renders. Errors: kInvalidArgument.
Status validate_eval_recipe(const augment::AugmentOptions& options);
// The bad-sample policy against the mode: eval refuses kSkip, training kReport. Errors:
// kInvalidArgument saying which policies the mode takes.
Status validate_on_bad_sample(Mode mode, OnBadSample policy);
// What an edge (CLI flag, Python keyword) uses when the user names no policy: kFail in eval (no
// metric changes unless asked), kSkip in training.
OnBadSample default_on_bad_sample(Mode mode);

// The text edges (CLI flags, Python keywords) parse names here, and only here.
// "skip" | "fail".
Result<OnBadSample> parse_on_bad_sample(std::string_view name);
std::string_view on_bad_sample_name(OnBadSample v);
// "train" | "eval".
Result<Mode> parse_mode(std::string_view name);
std::string_view mode_name(Mode v);
// "substring" | "exact".
Result<IgnoreText> parse_ignore_text(std::string_view name);
std::string_view ignore_text_name(IgnoreText v);
// "skip" | "minrect" | "mask-ignore".
Result<PolyPolicy> parse_poly_policy(std::string_view name);
std::string_view poly_policy_name(PolyPolicy v);
// "ignore" | "valid".
Result<Illegibility> parse_illegibility(std::string_view name);
std::string_view illegibility_name(Illegibility v);
// "auto" | "icdar15" | "ufo" | "totaltext" | "ctw1500" | "paddle" | "mmocr".
Result<ReaderFormat> parse_reader_format(std::string_view name);
std::string_view reader_format_name(ReaderFormat v);

// One line naming every field, for logs.
std::string describe(const PipelineSpec& spec);
// Every field of `options`, "name=value" space separated in declaration order (lists
// comma-separated, numbers exact): the same options always give the same text, which a cache
// records of the reader its dataset was read with.
std::string describe(const ReaderOptions& options);

}  // namespace textfeed::loader
