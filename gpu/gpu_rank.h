#pragma once
// One GPU rank's trace (PyTorch profiler / Kineto) reduced to what the cluster analyses need:
// the per-step time breakdown, the collective kernels in issue order with their arguments, and
// the kernel time per name. A summary is a few KB per rank, so the root holds every rank's while
// each process holds one whole trace per thread at a time (docs/gpu_cluster.md).
//
//   io::Trace t; read_kineto_trace(path, t, diag);
//   GpuRankSummary s = summarize_gpu_trace(t, /*rank=*/3);

#include <cstdint>
#include <string>
#include <vector>

#include "readers/kineto_trace.h"

namespace cs::gpu {

// One ProfilerStep#N on the GPU: the step's kernels (launched while the CPU was in the step) from
// the first one's start to the last one's end. Times in ns.
struct GpuStep {
  std::string step;                    // "551", or "all" when the trace has no ProfilerStep
  int64_t window_ns = 0;               // first kernel start -> last kernel end
  int64_t computing_ns = 0;            // union of the compute kernels
  int64_t communication_ns = 0;        // union of the NCCL/RCCL kernels
  int64_t overlapped_ns = 0;           // compute ∩ communication
  int64_t comm_not_overlapped_ns = 0;  // communication - overlapped
  int64_t memory_ns = 0;               // memcpy/memset outside compute and communication
  int64_t free_ns = 0;                 // window - union of all device work
  int64_t kernel_sum_ns = 0;           // sum of every kernel's duration (overlaps counted twice)
};

// One collective kernel of this rank, in issue order.
struct GpuCollective {
  std::string type;         // "allreduce", "allgather", "reducescatter", "broadcast", "reduce",
                            // "alltoall", "sendrecv", "send", "recv"
  std::string group;        // "Process Group Name" (or "default": every rank of the job)
  std::string group_ranks;  // "Process Group Ranks" as written ("" when unknown)
  int64_t seq = 0;          // index among this rank's collectives of the same group
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t bytes = -1;        // message size by nccl-tests' convention (-1 unknown)
  int64_t group_size = -1;   // "Group size" (-1 unknown)
  std::string step;          // the step the kernel belongs to
  bool from_cpu_op = false;  // arguments taken from the enclosing record_param_comms
};

// Time per kernel name on this rank.
struct GpuKernelTotal {
  std::string name;
  int64_t count = 0;
  int64_t total_ns = 0;
  bool communication = false;
};

struct GpuRankSummary {
  int rank = -1;
  int world_size = -1;
  std::string path;                   // the trace file
  int trace_rank = -1;                // distributedInfo.rank (-1 absent)
  int name_rank = -1;                 // the rank the file name gives (-1 none)
  bool parsed = false;                // false: the trace could not be used (see messages)
  std::vector<std::string> messages;  // the reader's diagnostics, one formatted line each
  std::string backend;                // distributedInfo.backend ("nccl")
  std::vector<GpuStep> steps;
  std::vector<GpuCollective> collectives;
  std::vector<GpuKernelTotal> kernels;  // sorted by name
  int64_t kernel_count = 0;
};

// True for an NCCL/RCCL kernel name ("ncclKernel_AllReduce_...", "ncclDevKernel_...",
// "rcclKernel...").
bool is_collective_kernel(std::string_view name);

// The collective type from "Collective name" ("all_reduce", "_allgather_base", ...) or, when
// that is absent, from the kernel name ("ncclKernel_AllReduce_RING_LL_Sum_float" ->
// "allreduce"). "" when neither says.
std::string collective_type(std::string_view collective_name, std::string_view kernel_name);

// Bytes of one element of a PyTorch dtype ("Float" 4, "BFloat16" 2, "Long" 8, ...); 0 unknown.
int dtype_bytes(std::string_view dtype);

// Summarizes one rank's trace. `rank` is the rank to report (distributedInfo's, or the one the
// file name gave).
GpuRankSummary summarize_gpu_trace(const readers::Trace& t, int rank);

}  // namespace cs::gpu
