// The EAST family's registration.
#include "augment/east/family.h"

#include "augment/east/chain.h"
#include "augment/east/inference.h"
#include "augment/east/targets.h"

namespace textfeed::augment {
namespace {

class EastFamily final : public Family {
 public:
  std::string_view name() const override { return "east"; }
  std::span<const Profile> profiles() const override { return kProfiles; }
  std::unique_ptr<TargetBuilder> make_target_builder(const AugmentOptions& o) const override {
    return std::make_unique<EastTargetBuilder>(o);
  }
  std::unique_ptr<Chain> make_chain(const AugmentOptions& o) const override {
    return std::make_unique<EastChain>(o);
  }
  // The baseline's detect() for both boostcamp generations, SakuraRiven's resize_img for sakura.
  const InferenceStyle& inference_style(Profile profile) const override {
    return profile == Profile::kSakura ? sakura_inference() : baseline_detect_inference();
  }
  bool compact_rows() const override { return true; }

 private:
  static constexpr Profile kProfiles[] = {Profile::kUpstage, Profile::kSakura, Profile::kBc7};
};

}  // namespace

const Family& east_family() {
  static const EastFamily family;
  return family;
}

}  // namespace textfeed::augment
