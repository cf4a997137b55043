// The registration of every detector family: one line per family folder.
#include "augment/db/family.h"
#include "augment/east/family.h"
#include "augment/family.h"
#include "augment/fcenet/family.h"
#include "augment/panet/family.h"
#include "augment/psenet/family.h"
#include "augment/textsnake/family.h"

namespace textfeed::augment {

std::span<const Family* const> families() {
  static const Family* const kFamilies[] = {
      &east_family(),  &db_family(),     &psenet_family(),
      &panet_family(), &fcenet_family(), &textsnake_family(),
  };
  return kFamilies;
}

}  // namespace textfeed::augment
