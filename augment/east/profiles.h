// The profiles of the EAST family (light: no OpenCV; part of augment_options).
#pragma once

#include <span>

#include "augment/profile.h"

namespace textfeed::augment {

// The light half of the east family's registration (augment/profile.h FamilyEntry).
FamilyEntry east_entry();

}  // namespace textfeed::augment
