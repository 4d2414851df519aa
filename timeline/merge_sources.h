#pragma once
// Which timelines `clusterscope merge DIR` merges, and which rank each one is.
//
//   * rank directories (*_ascend_pt, *_ascend_ms, PROF_*; load/discovery.h): their
//     ASCEND_PROFILER_OUTPUT/trace_view.json; rank from profiler_info_{N}.json;
//   * PyTorch profiler (Kineto) traces, object or array form, and NPU timelines: any *.json /
//     *.json.gz below DIR, outside rank directories, that io/input_kind.h classifies as a
//     timeline; rank from distributedInfo.rank, else from
//     a rank[-_]N pattern in the file name, else the smallest ranks still free, in path order.
// Two timelines with one rank: the first (rank directories first, then path order) is kept and
// the other reported and skipped.

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "io/input_kind.h"

namespace cs::timeline {

enum class RankOrigin { kProfilerInfo, kDistributedInfo, kFileName, kOrder };

// "profiler_info", "distributedInfo", "file name", "order".
const char* rank_origin_name(RankOrigin o);

struct MergeSource {
  int rank = -1;
  std::string path;  // the trace file
  RankOrigin origin = RankOrigin::kOrder;
};

struct MergeSourceOptions {
  std::optional<std::set<int>> rank_filter;  // --ranks; nullopt = all
  std::string exclude;                       // a path never taken as input (the output file)
  int max_depth = io::kSearchDepth;          // directory levels searched for Kineto traces
};

struct MergeSources {
  std::vector<MergeSource> sources;  // sorted by rank, one per rank
  int skipped = 0;                   // timelines found but not usable (see diag)
  int filtered_out = 0;              // left out by the rank filter
  io::Diagnostics diag;
  bool fatal = false;  // nothing to merge (diag says why)
};

// Finds the timelines below `dir`. Example: a tree with x_1_100_ascend_pt/profiler_info_0.json
// and ASCEND_PROFILER_OUTPUT/trace_view.json, plus traces/rank-1.json.gz -> ranks 0 (from
// profiler_info) and 1 (from distributedInfo, or the file name when absent).
MergeSources find_merge_sources(const std::string& dir, const MergeSourceOptions& opts);

// The N of the last "rank", "rank-N" or "rank_N" (any case) in a file name, or nullopt.
// Example: "sampled_rank-3.json.gz" -> 3; "trace.json" -> nullopt.
std::optional<int> rank_from_file_name(std::string_view file_name);

}  // namespace cs::timeline
