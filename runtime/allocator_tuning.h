#pragma once
// glibc malloc settings for a batch tool that builds and frees many small objects per file.
// By default glibc returns freed memory at the top of the heap to the kernel (trim) and serves
// blocks over 128 KB-32 MB with fresh mmaps, so every file parsed after another one is freed
// faults its pages in again. Keeping freed memory for reuse makes the readers 25-40% faster
// (bench/bench_json_readers: communication.json 188-235 -> 271-296 MB/s). Peak memory is
// unchanged; memory freed late in a run is kept until exit unless released explicitly. Arenas
// are capped at one per core (at least 2), so threads share their freed memory.

namespace cs::io {

// Call once at the start of main (before threads start). `cores`: the cores this process may run
// on (cluster::usable_cores()); malloc keeps at most max(2, cores) arenas.
void tune_allocator_for_batch_parsing(int cores);

// Gives the pages of freed memory back to the kernel (glibc malloc_trim), wherever they are in
// the heap. Call after freeing a large body of small objects that the rest of the run will not
// reuse (freed small blocks cannot serve the large arrays that follow).
void release_freed_memory();

}  // namespace cs::io
