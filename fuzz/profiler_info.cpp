// Harness: profiler_info_N.json (first byte even) or profiler_metadata.json (odd), through the
// readers rank_parser calls (and, for the metadata, the ClusterBaseInfo renderer
// cluster_analysis.db uses). The rest of the input is the file.
#include "readers/profiler_info.h"
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "readers/distributed_args_json.h"

namespace cs::fuzz {

int profiler_info(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  io::Diagnostics diag;
  if ((data[0] & 1) == 0) {
    const std::string& path = write_temp_input("profiler_info_3.json", data + 1, size - 1);
    readers::ProfilerInfo info;
    readers::read_profiler_info(path, info, diag);
  } else {
    const std::string& path = write_temp_input("profiler_metadata.json", data + 1, size - 1);
    readers::ProfilerMetadata meta;
    if (readers::read_profiler_metadata(path, meta, diag)) {
      for (const auto& g : meta.parallel_groups) (void)readers::group_double_hash(g.group_id());
    }
    (void)readers::distributed_args_python_json(path, diag);
  }
  return 0;
}

}  // namespace cs::fuzz
