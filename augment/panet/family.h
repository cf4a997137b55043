// The panet family's registration (augment/family.h): mmocr's PANet chain and targets.
#pragma once

#include "augment/family.h"

namespace textfeed::augment {

const Family& panet_family();

}  // namespace textfeed::augment
