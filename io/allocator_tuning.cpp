#include "io/allocator_tuning.h"

#include <malloc.h>

namespace cs::io {

void tune_allocator_for_batch_parsing() {
#ifdef M_TRIM_THRESHOLD
  mallopt(M_TRIM_THRESHOLD, 1 << 30);   // keep up to 1 GiB of freed heap for reuse
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // blocks below 32 MiB come from the (reused) heap
#endif
}

void release_freed_memory() {
#ifdef M_TRIM_THRESHOLD
  malloc_trim(0);
#endif
}

}  // namespace cs::io
