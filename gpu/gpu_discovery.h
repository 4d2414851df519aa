#pragma once
// Discovery of a GPU job: the PyTorch profiler (Kineto) traces below a directory, one per rank
// (docs/gpu_cluster.md). Every form the Kineto reader takes counts (JSON object or Chrome's
// array format, .json or .json.gz, pretty-printed, CUDA or ROCm); Ascend rank directories
// (*_ascend_pt, *_ascend_ms, PROF_*) are not entered, and a job holding both is refused.
//
//   GpuDiscovery d = discover_gpu_traces("job/");
//   if (d.fatal) { print d.diag } else for (auto& t : d.traces) ...

#include <cstdint>
#include <string>
#include <vector>

#include "io/diagnostics.h"

namespace cs::gpu {

struct GpuTraceFile {
  std::string path;
  uint64_t bytes = 0;  // file size on disk (the partition's weight)
  int name_rank = -1;  // the rank the file name gives ("rank-3.json.gz" -> 3), -1 none
};

struct GpuDiscovery {
  std::vector<GpuTraceFile> traces;  // sorted by path
  int ascend_rank_dirs = 0;          // Ascend rank directories seen (a mixed job is refused)
  io::Diagnostics diag;
  bool fatal = false;
};

// True when `dir` is a GPU job for `cluster`: it holds a Kineto trace below it (at most 20
// levels) — or Kineto traces and Ascend rank directories together, which discover_gpu_traces
// then refuses. Reads at most the head of the JSON files until the first trace.
bool looks_like_gpu_job(const std::string& dir);

// Every Kineto trace below `dir`. Fatal (one error): no trace, or Ascend rank directories too.
GpuDiscovery discover_gpu_traces(const std::string& dir);

// The rank a trace's file name gives: the number after "rank" or "worker" ("rank-12.json.gz" ->
// 12, "worker0.pt.trace.json" -> 0, "h100_rank_3.json" -> 3), else the last run of digits in the
// name without extensions; -1 when there is none.
int rank_from_file_name(const std::string& file_name);

}  // namespace cs::gpu
