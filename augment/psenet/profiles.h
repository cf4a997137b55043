// The psenet profile's light half (its name, defaults and evaluation rule; no OpenCV).
#pragma once

#include "augment/profile.h"

namespace textfeed::augment {

FamilyEntry psenet_entry();

}  // namespace textfeed::augment
