#pragma once
// What the cluster pipeline knows about one rank: the discovery entry (a manifest row) and, after
// parsing, the compact per-rank data every analysis reads. RankData is packed to bytes to move
// between MPI processes (load/rank_data_codec.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/host_summary.h"
#include "io/diagnostics.h"
#include "load/heap_optional.h"
#include "load/rank_communication.h"
#include "memory/rank_memory.h"
#include "readers/communication.h"
#include "readers/kernel_details.h"
#include "readers/matrix.h"
#include "readers/profiler_info.h"
#include "readers/step_trace.h"
#include "stats/operator_table.h"

namespace cs::load {

enum class Framework { kPyTorch, kMindSpore, kMsprof, kUnknown };
enum class RankStatus { kOk, kPartial, kSkipped };
// Which of a rank's exports was read: the text files (JSON/CSV) or the SQLite databases.
enum class ExportType : uint8_t { kText, kDb };
// Which export to read when a rank has both (--data-type): auto = the DB first, as msprof-analyze.
enum class DataType { kAuto, kText, kDb };

// "pytorch", "mindspore", "msprof", "unknown".
const char* framework_name(Framework f);
// "ok", "partial", "skipped".
const char* status_name(RankStatus s);
// "text", "db".
const char* export_name(ExportType e);

// One rank directory found by discovery.
// A CANN PROF_ directory's device when its info.json has no rank: (hostUid, device id).
struct MsprofDeviceKey {
  std::string host_uid;
  int device = -1;
  auto operator<=>(const MsprofDeviceKey&) const = default;
};

struct RankEntry {
  int rank = -1;           // -1: no profiler_info_{N}.json, rank unknown
  std::string path;        // the rank directory (as found below the input directory)
  std::string output_dir;  // where the per-rank files live (ASCEND_PROFILER_OUTPUT/, analyze/, ...)
  Framework framework = Framework::kUnknown;
  RankStatus status = RankStatus::kOk;
  ExportType export_type = ExportType::kText;  // chosen by discovery
  std::string timestamp;              // from the directory name, used to break duplicate-rank ties
  std::vector<std::string> files;     // per-rank input files present, paths relative to `path`
  uint64_t bytes = 0;                 // total size of those files
  std::vector<std::string> problems;  // one sentence each, for the manifest
  HeapOptional<MsprofDeviceKey> msprof_device;  // discovery only: a PROF_ dir without a rank
};

// Everything parsed from one rank directory.
struct RankData {
  RankEntry entry;
  bool has_communication = false;
  bool has_matrix = false;
  bool has_step_trace = false;
  bool has_kernels = false;
  bool has_metadata = false;
  bool has_host = false;  // the host summary has operators, steps or a device queue
  // The communication ops, matrix and operator table (keyed by the --group-by key), parsed,
  // packed or (on the root of `cluster`) spilled; reached only through read() / edit(), which see
  // them in any state (load/rank_communication.h).
  RankCommunication communication;
  RankMatrix matrix;
  RankOperators operators;
  // The step trace, parked like the parts above (on the root of `cluster`, in the spill file):
  // reached through read() / edit().
  RankStepTrace step_trace;
  readers::ProfilerMetadata metadata;
  // The rank's memory summary (memory/rank_memory.h), when it was profiled with profile_memory.
  HeapOptional<memory::RankMemory> memory;
  // The host side (host/): operators' host/device time and the Free time explained per step;
  // parked like the parts above (on the root of `cluster`, in the spill file), reached through
  // read() / edit().
  RankHost host;
  io::Diagnostics diagnostics;  // everything the readers reported for this rank
  // With --step: the step numbers the files hold before the filter ("step3" -> 3), sorted.
  std::vector<int64_t> steps_present;
  uint64_t files_read = 0;
  uint64_t bytes_read = 0;

  int rank() const { return entry.rank; }
};

// Frees what only discovery, the parse, the rank manifest and the job coverage read, once they are
// built: each rank's list of input files, its problems, its output directory and its directory's
// timestamp (the rest of the entry stays: path, framework, status). The root holds one entry per
// rank to the end: at 16,384 ranks the output directories alone were 1.8 MB.
void release_entry_lists(std::vector<RankData>& ranks);

}  // namespace cs::load
