// check_eval_images: a header read per image at creation, bounded messages.
#include "loader/pipeline/eval_scan.h"

#include <algorithm>
#include <string>
#include <vector>

#include "augment/inference.h"
#include "base/log.h"
#include "loader/decode/decode.h"
#include "loader/pipeline/producer.h"

namespace textfeed::loader {
namespace {

// A message names this many images; the rest are counted.
constexpr size_t kNamedImages = 4;

// Why sample i cannot be scored on the canvas ("" when it can); `needed` grows to its canvas.
std::string unusable_reason(const SampleSource& source, size_t i, const PipelineSpec& spec,
                            Decoder& decoder, SampleRead& read, int& needed) {
  if (Status s = read_sample(source, decoder, static_cast<uint32_t>(i), read); !s.ok())
    return s.message();
  const augment::Profile profile = spec.augment.profile;
  Result<augment::InferencePlan> plan =
      augment::plan_inference(profile, read.width, read.height, spec.augment.image_size);
  if (plan.has_value()) return {};
  needed = std::max(needed, augment::inference_canvas_needed(profile, read.width, read.height));
  return read.name + ": " + plan.error().message();
}

}  // namespace

Status check_eval_images(const SampleSource& source, const PipelineSpec& spec) {
  if (spec.mode != Mode::kEval || !augment::inference_keeps_size(spec.augment.profile))
    return Status();
  Decoder decoder(spec.decode);
  SampleRead read;
  std::vector<std::string> named;
  size_t unusable = 0;
  int needed = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    std::string reason = unusable_reason(source, i, spec, decoder, read, needed);
    if (reason.empty()) continue;
    if (++unusable <= kNamedImages) named.push_back(std::move(reason));
  }
  if (unusable == 0) return Status();
  std::string message = "mode=eval: " + std::to_string(unusable) + " of " +
                        std::to_string(source.size()) + " images cannot be scored on the " +
                        std::to_string(spec.augment.image_size) + " px canvas (";
  for (size_t k = 0; k < named.size(); ++k) message += (k ? "; " : "") + named[k];
  if (unusable > named.size())
    message += "; and " + std::to_string(unusable - named.size()) + " more";
  message += ")";
  if (needed > spec.augment.image_size)
    message += "; image_size=" + std::to_string(needed) + " fits every image";
  if (spec.on_bad_sample == OnBadSample::kReport) {
    TF_LOG(Warning) << message << "; their rows are reported missing (on_bad_sample=report)";
    return Status();
  }
  return Status::invalid_argument(message +
                                  "; or on_bad_sample='report' delivers them as missing rows");
}

}  // namespace textfeed::loader
