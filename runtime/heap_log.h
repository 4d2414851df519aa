#pragma once
// A diagnostic for memory work (docs/root_memory.md): how much the malloc heap holds from the
// kernel against how much of it is in use. heaptrack counts the bytes that are live; the peak RSS
// is the heap's extent, which also holds the free holes between live blocks (what the allocator
// keeps after a stage frees memory that later, differently sized, requests cannot reuse).
//
//   CS_HEAP_LOG=/tmp/heap clusterscope cluster -d JOB   # writes /tmp/heap.<pid> every 200 ms

namespace cs::runtime {

// The heap now: glibc's arenas (mallinfo2), in MB, and the process's resident memory by kind.
struct HeapSample {
  double extent_mb = 0;     // what the arenas hold from the kernel (mmapped blocks included)
  double in_use_mb = 0;     // allocated blocks, with malloc's headers
  double free_mb = 0;       // free blocks inside the arenas
  double anon_rss_mb = 0;   // RssAnon of /proc/self/status (0 where there is none)
  double file_rss_mb = 0;   // RssFile: the binary, libraries and mapped files
  double shmem_rss_mb = 0;  // RssShmem: shared memory (MPI's segments between processes)
};
HeapSample sample_heap();

// With `path` not null: a detached thread writes "<seconds> extent <MB> in_use <MB> free <MB>
// anon <MB> file <MB> shmem <MB>" to `path`.<pid> every `interval_ms` until the process exits.
// Returns false when the file cannot be created (nothing is started). Called by main with
// $CS_HEAP_LOG.
bool start_heap_log(const char* path, int interval_ms = 200);

}  // namespace cs::runtime
