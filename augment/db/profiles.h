// The profile of the DB family (light: no OpenCV; part of augment_options).
#pragma once

#include <span>

#include "augment/profile.h"

namespace textfeed::augment {

// The light half of the db family's registration (augment/profile.h FamilyEntry).
FamilyEntry db_entry();

}  // namespace textfeed::augment
