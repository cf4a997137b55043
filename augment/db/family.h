// The DB family: profile db, PaddleOCR's chain (augment/db/chain.h, targets.h).
#pragma once

#include "augment/family.h"

namespace textfeed::augment {

const Family& db_family();

}  // namespace textfeed::augment
