// The psenet family's registration (augment/family.h): mmocr's PSENet chain and targets.
#pragma once

#include "augment/family.h"

namespace textfeed::augment {

const Family& psenet_family();

}  // namespace textfeed::augment
