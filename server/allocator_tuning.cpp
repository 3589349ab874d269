#include "server/allocator_tuning.h"

#include <cstdlib>

#ifdef PARLOR_WITH_MIMALLOC
#include <mimalloc.h>
#endif

namespace parlor::server {

void tune_allocator() {
#ifdef PARLOR_WITH_MIMALLOC
  // mimalloc reads its options from the environment when it loads, before main(); setting one
  // here overrides that, so an operator's own setting is left alone. main() calls this before it
  // starts any thread, so nothing can be changing the environment meanwhile.
  if (std::getenv("MIMALLOC_DECOMMIT_DELAY") == nullptr) {  // NOLINT(concurrency-mt-unsafe)
    mi_option_set(mi_option_decommit_delay, 1000);          // ms
  }
#endif
}

}  // namespace parlor::server
