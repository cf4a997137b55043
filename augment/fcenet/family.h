// The fcenet family's registration (augment/family.h): mmocr's FCENet chain and targets.
#pragma once

#include "augment/family.h"

namespace textfeed::augment {

const Family& fcenet_family();

}  // namespace textfeed::augment
