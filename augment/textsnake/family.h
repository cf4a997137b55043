// The textsnake family's registration (augment/family.h): mmocr's TextSnake chain and targets.
#pragma once

#include "augment/family.h"

namespace textfeed::augment {

const Family& textsnake_family();

}  // namespace textfeed::augment
