#pragma once
// profiler_info_{N}.json and profiler_metadata.json (rank directory root), and the group-name
// double hash. See formats.md §1.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "readers/distributed_args.h"
#include "readers/parallel_group.h"

namespace cs::readers {

struct ProfilerInfo {
  int rank_id = -1;  // "rank_id", an integer or (torch_npu 2.7+) a string "0"; the file name's N
                     // is authoritative, they should agree
  std::string framework;  // from the file when present (e.g. "config"->... or ""), informational
  // config.experimental_config._export_type: "text" or (newer producers) ["text", "db"].
  std::vector<std::string> export_types;
  // config.experimental_config._profiler_level: "Level0", "Level1", "Level2", "Level_none"; ""
  // when absent. Level0 records no communication analysis.
  std::string profiler_level;
  // Wall-clock times in ns since the epoch; 0 when absent. end_info.collectionTimeEnd, and
  // start_info.collectionTimeBegin where the producer writes it.
  int64_t collection_end_ns = 0;
  int64_t collection_begin_ns = 0;
};

struct ProfilerMetadata {
  bool has_distributed_args = false;
  // distributed_args integer entries: tensor_model_parallel_size, pipeline_model_parallel_size,
  // data_parallel_size, context_parallel_size, expert_model_parallel_size, world_size, rank, ...
  // (one map shared by the ranks that have the same entries but "rank": distributed_args.h)
  DistributedArgs distributed_args;
  std::vector<ParallelGroup> parallel_groups;  // file order (shapes shared: parallel_group.h)

  std::optional<int64_t> arg(std::string_view key) const;
};

// Reads profiler_info_{N}.json. Returns false with a diagnostic if unreadable.
bool read_profiler_info(const std::string& path, ProfilerInfo& out, io::Diagnostics& diag);
// Same, from text in memory; `source` is the file's path or name (its N is used as the rank).
// Example: parse_profiler_info(R"({"rank_id": 3})", "profiler_info_3.json", info, diag).
bool parse_profiler_info(std::string_view json, const std::string& source, ProfilerInfo& out,
                         io::Diagnostics& diag);
// Reads profiler_metadata.json. Returns false with a diagnostic if unreadable.
bool read_profiler_metadata(const std::string& path, ProfilerMetadata& out, io::Diagnostics& diag);
bool parse_profiler_metadata(std::string_view json, const std::string& source,
                             ProfilerMetadata& out, io::Diagnostics& diag);

// The rank N in a file name "profiler_info_N.json"; nullopt for any other name.
std::optional<int> rank_from_profiler_info_name(std::string_view filename);

// Group name used in op keys: double hash of the HCCL group id, as an unsigned decimal.
// h0 = h0*29 + c, h1 = h1*131 + c (mod 2^32 each), result (h0 << 32) | h1.
uint64_t group_double_hash(std::string_view group_id);
std::string group_double_hash_str(std::string_view group_id);

}  // namespace cs::readers
