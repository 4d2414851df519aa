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

// Asks the kernel for transparent huge pages (2 MiB, Linux's "madvise" mode) for the heap the
// calling thread allocates from: the main heap from here to its end, which then grows 128 MiB
// at a time (M_TOP_PAD), or the thread's own 64 MiB arena heap. Filling memory then costs one
// page fault per 2 MiB instead of one per 4 KiB: on a virtual machine, where a fault costs
// ~8 us, a recipe run on 256 ranks spends 15-40% of its CPU time in faults without it
// (communication_matrix_sum: 27,000 -> 1,700 faults). Cheap when nothing changed since the
// thread's last call (one malloc and free): call it where a thread starts a body of work.
// Does nothing elsewhere than Linux. Peak memory grows by a few MiB (the last huge pages).
void prefer_huge_pages();

// Gives the pages of freed memory back to the kernel (glibc malloc_trim), wherever they are in
// the heap. Call after freeing a large body of small objects that the rest of the run will not
// reuse (freed small blocks cannot serve the large arrays that follow).
void release_freed_memory();

}  // namespace cs::io
