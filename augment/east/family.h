// The EAST family: profiles upstage, sakura and bc7 (augment/east/chain.h, targets.h).
#pragma once

#include "augment/family.h"

namespace textfeed::augment {

const Family& east_family();

}  // namespace textfeed::augment
