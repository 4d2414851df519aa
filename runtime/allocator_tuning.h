#pragma once
// glibc malloc settings for a batch tool that builds and frees many small objects per file.
// By default glibc returns freed memory at the top of the heap to the kernel (trim) and serves
// blocks over 128 KB-32 MB with fresh mmaps, so every file parsed after another one is freed
// faults its pages in again. Keeping freed memory for reuse makes the readers 25-40% faster
// (bench/bench_json_readers: communication.json 188-235 -> 271-296 MB/s). Peak memory is
// unchanged; memory freed late in a run is kept until exit unless released explicitly. Arenas
// are capped at one per thread a run starts (cores + 2), fewer than glibc's 8 per core.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cs::runtime {

// Blocks of each size malloc keeps per thread, lock-free (glibc's tcache_count; glibc's default
// is 7), where memory comes first: with one arena, every block past a thread's cache takes the
// arena's lock. At 16,384 ranks under `mpirun -np 2` the root (one arena, four threads) waited on
// it 510-580k times; with 64 blocks 160-175k, and the run took 40.4-44.2 s instead of
// 48.6-54.8 s (three alternating pairs), its peak 120-123 MB against 117-121 MB
// (docs/root_memory.md).
inline constexpr int kThreadCacheBlocks = 64;

// GLIBC_TUNABLES's value with glibc.malloc.tcache_count=kThreadCacheBlocks added to `current`
// (its value now; nullptr: unset), or nullopt when `current` sets tcache_count already (the
// user's choice, or a process restarted with it).
std::optional<std::string> tunables_with_thread_caches(const char* current);

// glibc reads its tunables only when a process starts: when `memory_first` and GLIBC_TUNABLES
// does not set tcache_count, sets it (tunables_with_thread_caches) and restarts the program
// (execv of `program`, this program, with `argv`: the same process, arguments and environment).
// Call first thing in main, before MPI or any thread starts. Returns when there is nothing to do,
// under AddressSanitizer, and when the restart fails (GLIBC_TUNABLES as it was; the run goes on
// with glibc's caches).
void restart_with_thread_caches(char** argv, bool memory_first,
                                const char* program = "/proc/self/exe");

// The malloc settings this process runs with, for the progress log: "1 arena, 64-block thread
// caches" (the root of several processes) or "4 arenas".
std::string allocator_settings();

// Call once at the start of main (before threads start). `cores`: the cores this process may run
// on (cluster::usable_cores()); malloc keeps at most cores + 2 arenas (one per thread), or one per
// 8 cores (at least one) when `memory_first` (the root of a multi-process run, whose memory bounds
// the job: with fewer arenas what one thread frees serves the others; on 2 cores at 16,384 ranks
// under `mpirun -np 2` the root's peak RSS was 30 MB lower, 1,024 ranks 6 MB, at about the same
// speed: docs/root_memory.md).
void tune_allocator_for_batch_parsing(int cores, bool memory_first = false);

// What tune_allocator_for_batch_parsing was told: true in the root of a multi-process run, whose
// memory bounds the job (work that would overlap at the cost of memory runs in turn there).
bool memory_comes_first();

// Asks the kernel for transparent huge pages (2 MiB, Linux's "madvise" mode) for the heap the
// calling thread allocates from: the main heap from here to its end, which then grows 128 MiB
// at a time (M_TOP_PAD), or the thread's own 64 MiB arena heap. Filling memory then costs one
// page fault per 2 MiB instead of one per 4 KiB: on a virtual machine, where a fault costs
// ~8 us, a recipe run on 256 ranks spends 15-40% of its CPU time in faults without it
// (communication_matrix_sum: 27,000 -> 1,700 faults). Cheap when nothing changed since the
// thread's last call (one malloc and free): call it where a thread starts a body of work.
// Does nothing elsewhere than Linux, and where huge pages cost more than they save (see
// huge_pages_wanted). Peak memory grows by a few MiB (the last huge pages).
void prefer_huge_pages();

// Whether prefer_huge_pages() advises anything: the environment's CS_HUGE_PAGES=on|off, else no
// when the kernel reports free memory to its hypervisor (a virtio balloon device with free page
// reporting), yes otherwise. Such a guest hands the hypervisor back every free 2 MiB block, so a
// huge page is nearly always one the host must fault in again, 4 KiB at a time, while 4 KiB
// pages come from the free fragments it kept: on this project's 2-core VM, filling 200 MB after
// a few idle seconds takes 0.6-0.7 s in huge pages and 0.12-0.13 s in 4 KiB pages, and
// communication_matrix_sum at 256 ranks takes 0.37 s with huge pages against 0.21 s without.
// Decided once per process.
bool huge_pages_wanted();

// huge_pages_wanted's decision for the value of CS_HUGE_PAGES (nullptr: unset) and the sysfs
// folder of virtio devices (one folder per device, with its "device" and "features" files).
bool decide_huge_pages(const char* env, const std::string& virtio_devices);

// True when a virtio device with id `device` (sysfs "device", e.g. "0x0005") and feature bits
// `features` (sysfs "features": one '0'/'1' per bit) is a balloon that reports free pages.
bool reports_free_pages(std::string_view device, std::string_view features);

// Gives the pages of freed memory back to the kernel (glibc malloc_trim), wherever they are in
// the heap. Call after freeing a large body of small objects that the rest of the run will not
// reuse (freed small blocks cannot serve the large arrays that follow). The root of a
// multi-process run (`memory_first`) always gives them back; any other process only when its
// heap holds at least kReleaseAtLeast free (worth_releasing): each release costs the pages'
// faults when the heap grows again and, on a virtual machine, TLB flushes on every core (256 ranks
// with no launcher: 1.76 s of CPU with every release, 1.52 s with these; docs/scale.md). Does
// nothing under AddressSanitizer, whose allocator is not glibc's.
void release_freed_memory();

// Free heap below which a process that is not memory-first keeps its freed pages.
inline constexpr size_t kReleaseAtLeast = size_t{64} << 20;

// release_freed_memory's decision for a heap with `free_bytes` free (glibc's mallinfo2
// fordblks: the arenas' free chunks, their tops included).
bool worth_releasing(size_t free_bytes, bool memory_first);

}  // namespace cs::runtime
