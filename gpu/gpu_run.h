#pragma once
// `clusterscope cluster -d DIR` on a GPU job (a directory of per-rank Kineto traces): discovery on
// the root, the traces split across the MPI processes by bytes (largest first to the least
// loaded), each process parsing its traces on --threads threads (one whole trace in memory per
// thread, reduced at once to a GpuRankSummary), the summaries gathered to the root, which matches
// the collectives, diagnoses and writes OUT/cluster_analysis_output/ (docs/gpu_cluster.md).

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpu/gpu_discovery.h"
#include "gpu/gpu_rank.h"
#include "mpi/mpi_comm.h"

namespace cs::gpu {

struct GpuRunOptions {
  std::string input_dir;
  std::string output_dir;  // the outputs go to output_dir/cluster_analysis_output/
  std::optional<std::set<int>> rank_filter;
  int threads = 0;  // per process; 0 = the usable cores
  int top_n = 15;
  bool csv = true;
  bool hdf5 = true;
  bool html = true;  // report.html
  bool quiet = false;
};

// The process that parses each trace: largest first to the least-loaded process (ties: the
// lower process). Deterministic from the discovery alone, so every process computes the same.
std::vector<int> partition_traces(const std::vector<GpuTraceFile>& traces, int processes);

// Reads and summarizes one trace (never throws on bad input: parsed = false, messages say why).
GpuRankSummary summarize_trace_file(const GpuTraceFile& f);

// Keeps one summary per rank (distributedInfo.rank, else the file name's; the first by path on a
// duplicate), sorted by rank; what was dropped or assumed goes to `notes` (one line each).
std::vector<GpuRankSummary> resolve_ranks(std::vector<GpuRankSummary> all,
                                          const std::optional<std::set<int>>& filter,
                                          std::vector<std::string>& notes);

// The whole command; returns an exit status (runtime/exit_status.h).
int run_gpu_cluster(const mpi::MpiSession& mpi, const GpuRunOptions& opts);

}  // namespace cs::gpu
