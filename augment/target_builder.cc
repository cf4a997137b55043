// TargetBuilder: the builder of the family that trains a profile.
#include "augment/target_builder.h"

#include "augment/family.h"

namespace textfeed::augment {

std::unique_ptr<TargetBuilder> make_target_builder(const AugmentOptions& options) {
  return family_of(options.profile).make_target_builder(options);
}

}  // namespace textfeed::augment
