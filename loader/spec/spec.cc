// PipelineSpec: defaults, bounds and the names the text edges parse.
#include "loader/spec/spec.h"

#include <cmath>
#include <cstdio>
#include <span>
#include <sstream>

#include "loader/spec/spec_fields.h"

namespace textfeed::loader {
namespace {

// The enumerator named `name` in `names` (spec_fields.h). Errors: kInvalidArgument listing the
// names.
template <class E>
Result<E> parse_name(const char* field, std::string_view name, std::span<const EnumName> names) {
  std::string expected;
  for (const EnumName& n : names) {
    if (name == n.name) return static_cast<E>(n.value);
    expected += expected.empty() ? "'" : "', '";
    expected += n.name;
  }
  return Status::invalid_argument(std::string(field) + " must be one of " + expected + "', got '" +
                                  std::string(name) + "'");
}

template <class E>
std::string_view name_of(E value, std::span<const EnumName> names) {
  return field_detail::enum_text(names, static_cast<int>(value));
}

Status check_text(const char* field, const std::string& value) {
  if (value.size() > kMaxTextBytes)
    return Status::invalid_argument(std::string(field) + " is " + std::to_string(value.size()) +
                                    " bytes long; at most " + std::to_string(kMaxTextBytes));
  if (value.find('\0') != std::string::npos)
    return Status::invalid_argument(std::string(field) + " contains a NUL byte");
  return Status();
}

}  // namespace

ReaderOptions reader_defaults(augment::Profile profile) {
  ReaderOptions o;
  if (const augment::ProfileEntry* e = augment::find_profile(profile); e && !e->reads_ufo_flags) {
    o.illegibility = Illegibility::kValid;
    o.ignore_tags.clear();
  }
  return o;
}

PipelineSpec default_spec(augment::Profile profile, std::string path) {
  PipelineSpec spec;
  spec.sources.push_back({std::move(path), reader_defaults(profile)});
  spec.augment = augment::profile_defaults(profile);
  return spec;
}

Status validate(const ReaderOptions& o) {
  return check_fields<ReaderOptions>(o, reader_fields(), "reader option");
}

namespace {

Status check_batch_size(const std::string& field, int batch_size) {
  if (batch_size < 1 || batch_size > kMaxBatchSize)
    return Status::invalid_argument(field + " must be in 1.." + std::to_string(kMaxBatchSize) +
                                    ", got " + std::to_string(batch_size));
  return Status();
}

Status validate(const ResumePoint& r) {
  if (r.stages.size() > kMaxResumeStages)
    return Status::invalid_argument("resume has " + std::to_string(r.stages.size()) +
                                    " stages; at most " + std::to_string(kMaxResumeStages));
  for (size_t i = 0; i < r.stages.size(); ++i) {
    const ResumeStage& st = r.stages[i];
    const std::string what = "resume stage " + std::to_string(i);
    TF_RETURN_IF_ERROR(check_batch_size(what + " batch_size", st.batch_size));
    if (st.world_size < 1 || st.world_size > kMaxWorldSize)
      return Status::invalid_argument(what + " world_size must be in 1.." +
                                      std::to_string(kMaxWorldSize) + ", got " +
                                      std::to_string(st.world_size));
    if (st.batches.size() != 1 && st.batches.size() != static_cast<size_t>(st.world_size))
      return Status::invalid_argument(what + " gives " + std::to_string(st.batches.size()) +
                                      " batch counts; it needs 1 (every rank) or one per rank (" +
                                      std::to_string(st.world_size) + ")");
  }
  return Status();
}

}  // namespace

Status validate(const SamplerOptions& o) {
  TF_RETURN_IF_ERROR(check_fields<SamplerOptions>(o, sampler_fields(), "sampler option"));
  if (o.rank >= o.world_size)
    return Status::invalid_argument("sampler options rank = " + std::to_string(o.rank) +
                                    ", world_size = " + std::to_string(o.world_size) +
                                    ": need rank < world_size");
  return validate(o.resume);
}

Status validate_weights(const std::vector<SourceSpec>& sources) {
  size_t weighted = 0;
  for (const SourceSpec& s : sources) {
    if (!(s.weight >= 0 && s.weight <= kMaxWeight))  // NaN fails too
      return Status::invalid_argument("source '" + s.path + "': weight " +
                                      std::to_string(s.weight) +
                                      " must be finite, > 0 and at most 1e9 (or 0: no weight)");
    weighted += s.weight > 0;
  }
  if (weighted != 0 && weighted != sources.size())
    return Status::invalid_argument(
        "either every source has a weight or none has: " + std::to_string(weighted) + " of " +
        std::to_string(sources.size()) + " have one");
  return Status();
}

namespace {

// Epoch_size only with weights.
Status validate_epoch_size(const PipelineSpec& spec) {
  if (spec.sources.front().weight == 0 && spec.sampler.epoch_size != 0)
    return Status::invalid_argument(
        "epoch_size applies to weighted sources; without weights an epoch is every "
        "sample once");
  return Status();
}

}  // namespace

Status validate(const PipelineSpec& spec) {
  if (spec.sources.empty() || spec.sources.size() > kMaxSources)
    return Status::invalid_argument("a pipeline reads 1.." + std::to_string(kMaxSources) +
                                    " sources, got " + std::to_string(spec.sources.size()));
  for (const SourceSpec& s : spec.sources) {
    TF_RETURN_IF_ERROR(check_text("a source's path", s.path));
    if (s.path.empty()) return Status::invalid_argument("a source's path is empty");
    TF_RETURN_IF_ERROR(validate(s.reader));
  }
  TF_RETURN_IF_ERROR(validate_weights(spec.sources));
  TF_RETURN_IF_ERROR(validate_epoch_size(spec));
  TF_RETURN_IF_ERROR(augment::validate(spec.augment));
  TF_RETURN_IF_ERROR(validate(spec.sampler));
  if (spec.mode != Mode::kTrain && spec.mode != Mode::kEval)
    return Status::invalid_argument("mode holds an unknown value");
  TF_RETURN_IF_ERROR(validate_on_bad_sample(spec.mode, spec.on_bad_sample));
  if (spec.mode == Mode::kEval) TF_RETURN_IF_ERROR(validate_eval_recipe(spec.augment));
  if (spec.mode == Mode::kEval && spec.sources.front().weight > 0)
    return Status::invalid_argument(
        "mode=eval reads every sample once, in order: weights apply to training");
  if (spec.mode == Mode::kEval && !spec.sampler.resume.stages.empty())
    return Status::invalid_argument(
        "mode=eval has no elastic resume: an evaluation pass restarts whole");
  return Status();
}

Status validate_eval_recipe(const augment::AugmentOptions& o) {
  // Every profile's eval batch is a square canvas of image_size (augment/inference.h): sakura keeps
  // each image's size on it, the others resize to it.
  const std::string profile(augment::profile_name(o.profile));
  if (o.image_size == 0)
    return Status::invalid_argument(
        "mode=eval needs image_size > 0: the side of the square canvas every image is "
        "placed on (profile " +
        profile + ")");
  return augment::validate_eval_profile(o);
}

Status validate_on_bad_sample(Mode mode, OnBadSample policy) {
  if (policy != OnBadSample::kSkip && policy != OnBadSample::kFail &&
      policy != OnBadSample::kReport)
    return Status::invalid_argument("on_bad_sample holds an unknown value");
  if (mode == Mode::kEval && policy == OnBadSample::kSkip)
    return Status::invalid_argument(
        "mode=eval never replaces an image (a copy of another would change the "
        "metric): on_bad_sample must be 'fail' (stop at an image that cannot be "
        "scored, the default in eval) or 'report' (its row is blank and reported "
        "missing)");
  if (mode == Mode::kTrain && policy == OnBadSample::kReport)
    return Status::invalid_argument(
        "on_bad_sample='report' is for mode=eval; training takes 'skip' or 'fail'");
  return Status();
}

OnBadSample default_on_bad_sample(Mode mode) {
  return mode == Mode::kEval ? OnBadSample::kFail : OnBadSample::kSkip;
}

PipelineSpec effective_spec(const PipelineSpec& spec) {
  PipelineSpec out = spec;
  if (spec.mode == Mode::kEval) {
    out.sampler.shuffle = false;
    out.sampler.drop_last = false;
    out.sampler.pad = false;
  }
  return out;
}

Result<OnBadSample> parse_on_bad_sample(std::string_view name) {
  return parse_name<OnBadSample>("on_bad_sample", name, kOnBadSampleNames);
}
std::string_view on_bad_sample_name(OnBadSample v) { return name_of(v, kOnBadSampleNames); }
Result<Mode> parse_mode(std::string_view name) {
  return parse_name<Mode>("mode", name, kModeNames);
}
std::string_view mode_name(Mode v) { return name_of(v, kModeNames); }
Result<IgnoreText> parse_ignore_text(std::string_view name) {
  return parse_name<IgnoreText>("ignore_text", name, kIgnoreTextNames);
}
std::string_view ignore_text_name(IgnoreText v) { return name_of(v, kIgnoreTextNames); }
Result<PolyPolicy> parse_poly_policy(std::string_view name) {
  return parse_name<PolyPolicy>("poly_policy", name, kPolyPolicyNames);
}
std::string_view poly_policy_name(PolyPolicy v) { return name_of(v, kPolyPolicyNames); }
Result<Illegibility> parse_illegibility(std::string_view name) {
  return parse_name<Illegibility>("illegibility", name, kIllegibilityNames);
}
std::string_view illegibility_name(Illegibility v) { return name_of(v, kIllegibilityNames); }
Result<ReaderFormat> parse_reader_format(std::string_view name) {
  return parse_name<ReaderFormat>("format", name, kReaderFormatNames);
}
std::string_view reader_format_name(ReaderFormat v) { return name_of(v, kReaderFormatNames); }

std::string describe(const ReaderOptions& o) {
  // Every row as field_text() writes it, but numbers as "%.17g": the text a cache has recorded of
  // its reader since before the table (manifests compare it byte for byte), which reads back as
  // the same double.
  std::string s;
  for (const ReaderField& f : reader_fields()) {
    std::string value = field_text(o, f);
    if (f.kind == FieldKind::kDouble) {
      char number[32];
      std::snprintf(number, sizeof number, "%.17g", o.*f.d);
      value = number;
    }
    if (!s.empty()) s += ' ';
    s.append(f.name).append("=").append(value);
  }
  return s;
}

std::string describe(const PipelineSpec& spec) {
  std::ostringstream s;
  for (const SourceSpec& src : spec.sources)
    s << "source=" << src.path << " ignore_text=" << ignore_text_name(src.reader.ignore_text)
      << " poly_policy=" << poly_policy_name(src.reader.poly_policy)
      << " illegibility=" << illegibility_name(src.reader.illegibility)
      << " split=" << src.reader.split << " format=" << reader_format_name(src.reader.format)
      << " weight=" << src.weight << " ";
  s << augment::describe(spec.augment) << " seed=" << spec.sampler.seed
    << " batch_size=" << spec.sampler.batch_size << " rank=" << spec.sampler.rank << "/"
    << spec.sampler.world_size << " shuffle=" << spec.sampler.shuffle
    << " drop_last=" << spec.sampler.drop_last << " epoch_size=" << spec.sampler.epoch_size
    << " resume_stages=" << spec.sampler.resume.stages.size()
    << " on_bad_sample=" << on_bad_sample_name(spec.on_bad_sample)
    << " mode=" << mode_name(spec.mode) << " return_polygons=" << spec.return_polygons;
  return s.str();
}

}  // namespace textfeed::loader
