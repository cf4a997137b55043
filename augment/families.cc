// The registration of every detector family: one line per family folder.
#include "augment/db/family.h"
#include "augment/east/family.h"
#include "augment/family.h"

namespace textfeed::augment {

std::span<const Family* const> families() {
  static const Family* const kFamilies[] = {
      &east_family(),
      &db_family(),
  };
  return kFamilies;
}

}  // namespace textfeed::augment
