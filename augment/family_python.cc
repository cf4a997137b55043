// The registration of every detector family's replay bindings: one line per family folder that
// has them (a family without its own replay functions needs none).
#include "augment/family_python.h"

#include "augment/db/mmocr_python_reference.h"
#include "augment/db/python_replay.h"
#include "augment/east/python_replay.h"
#include "augment/fcenet/python_reference.h"
#include "augment/mmocr/python_replay.h"
#include "augment/panet/python_reference.h"
#include "augment/psenet/python_reference.h"
#include "augment/textsnake/python_reference.h"

namespace textfeed::python {

void register_family_replays(pybind11::module_& m) {
  register_east_replay(m);
  register_db_replay(m);
  register_db_mmocr_reference(m);
  register_pse_reference(m);
  register_pan_reference(m);
  register_textsnake_reference(m);
  register_fce_reference(m);
  register_mmocr_chain_replay(m);
}

}  // namespace textfeed::python
