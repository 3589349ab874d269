#include "server/allocator_tuning.h"

#include <cstdlib>

#ifdef PARLOR_WITH_MIMALLOC
#include <mimalloc.h>
#endif

namespace parlor::server {

void tune_allocator() {
#ifdef PARLOR_WITH_MIMALLOC
  // mimalloc reads its options from the environment when it loads, before main(); setting one
  // here overrides that, so an operator's own setting is left alone.
  if (std::getenv("MIMALLOC_DECOMMIT_DELAY") == nullptr) {
    mi_option_set(mi_option_decommit_delay, 1000);  // ms
  }
#endif
}

}  // namespace parlor::server
