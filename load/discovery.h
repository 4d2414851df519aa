#pragma once
// Rank discovery: find every rank directory below an input directory (formats.md §1).
//
// Recognised rank directories:
//   {host}_{pid}_{timestamp}_ascend_pt   torch_npu        per-rank files in ASCEND_PROFILER_OUTPUT/
//   {host}_{pid}_{timestamp}_ascend_ms   MindSpore        per-rank files in ASCEND_PROFILER_OUTPUT/
//   PROF_{number}_{timestamp}_{string}   CANN msprof      analyze/ and mindstudio_profiler_output/
// A recognised directory's subtree is not searched for more ranks. Directory symlinks are
// followed; loops are cut by remembering each visited (device, inode).

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "load/rank_data.h"

namespace cs::load {

struct DiscoveryOptions {
  std::optional<std::set<int>> rank_filter;  // --rank-list; nullopt = every rank
  DataType data_type = DataType::kAuto;      // --data-type: which export when a rank has both
  int max_depth = 20;  // directory levels searched below the input directory (>= 10 required)
  int threads = 0;     // threads inspecting the rank directories found; 0 = the usable cores
};

struct DiscoveryResult {
  std::vector<RankEntry> ranks;    // usable rank directories, sorted by rank, one per rank
  std::vector<RankEntry> skipped;  // found but not used (no rank id, duplicate), with problems
  int filtered_out = 0;            // rank directories left out by the rank filter (not errors)
  io::Diagnostics diag;            // warnings (duplicates, unreadable dirs) and errors
  bool fatal = false;              // true: nothing can be analysed (see diag for why)
  // The input directory is itself one rank's directory (named *_ascend_pt / *_ascend_ms /
  // PROF_*, or holding ASCEND_PROFILER_OUTPUT/ or profiler_info_{N}.json), not a job's.
  bool input_is_rank_dir = false;
};

// Walks `dir` and returns the rank directories found. Fatal (with an error diagnostic): `dir`
// missing or not a directory, PyTorch and MindSpore rank directories mixed, or no rank
// directory at all. The input directory may itself be a rank directory (input_is_rank_dir).
// Example: a tree with a/x_1_100_ascend_pt/profiler_info_0.json and
// b/x_2_200_ascend_pt/profiler_info_1.json gives ranks {0, 1}.
DiscoveryResult discover_ranks(const std::string& dir, const DiscoveryOptions& opts = {});

// The framework a directory name announces: kPyTorch for *_ascend_pt, kMindSpore for
// *_ascend_ms, kMsprof for PROF_*, kUnknown otherwise.
Framework framework_from_dir_name(std::string_view name);

// The timestamp field of a rank directory name ("" when absent): the third '_'-field from the
// end for *_ascend_pt / *_ascend_ms, the second from the end for PROF_*.
// Example: "node1_1234_1708156014257_ascend_pt" -> "1708156014257".
std::string timestamp_from_dir_name(std::string_view name);

}  // namespace cs::load
