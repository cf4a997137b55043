// The DB family's registration.
#include "augment/db/family.h"

#include "augment/db/chain.h"
#include "augment/db/inference.h"
#include "augment/db/targets.h"

namespace textfeed::augment {
namespace {

class DbFamily final : public Family {
 public:
  std::string_view name() const override { return "db"; }
  std::span<const Profile> profiles() const override { return kProfiles; }
  std::unique_ptr<TargetBuilder> make_target_builder(const AugmentOptions& o) const override {
    return std::make_unique<DbTargetBuilder>(db_target_options(o));
  }
  std::unique_ptr<Chain> make_chain(const AugmentOptions& o) const override {
    return std::make_unique<DbChain>(o);
  }
  const InferenceStyle& inference_style(Profile) const override { return paddle_det_inference(); }

 private:
  static constexpr Profile kProfiles[] = {Profile::kDb};
};

}  // namespace

const Family& db_family() {
  static const DbFamily family;
  return family;
}

}  // namespace textfeed::augment
