#pragma once
// The ONE input classifier: what a path given to `cluster`, `compare`, `top` or `merge` is, from
// its content and layout (never from "an array means NPU"). Every command asks it, so the same
// path gets the same answer everywhere.
//
//   Files are sniffed by content (gzip inflated transparently) within the first kSniffBytes:
//     * SQLite ("SQLite format 3\0"): a DB export when named analysis.db,
//       ascend_pytorch_profiler_N.db, ascend_mindspore_profiler_N.db or msprof_*.db;
//     * JSON object with "traceEvents": a Kineto trace (or an earlier `clusterscope merge`);
//     * JSON array of events: an NPU trace_view.json when it carries Ascend marks (string "ts",
//       Ascend Hardware / CANN / HCCL / Overlap Analysis processes, "Task Type" args), else a
//       Kineto trace in Chrome's JSON Array Format;
//     * JSON object with "graph_exec" (no traceEvents): a MegEngine static-graph profile;
//     * JSON object with "traceEvents" and MegEngine's marks (OpDispatch / KernelLaunch /
//       TensorLink flows, "__id__" op details): a MegEngine chrome_timeline.json;
//     * CSV whose header has Name, Type and Duration(us): a kernel_details.csv.
//   Directories by layout: *_ascend_pt / *_ascend_ms / ASCEND_PROFILER_OUTPUT (or a directory
//   holding ASCEND_PROFILER_OUTPUT/ or profiler_info_N.json) is a rank directory, PROF_* an msprof
//   directory, and a directory with rank directories or traces below it (kSearchDepth levels) a
//   cluster directory.
//
//   InputClass c = classify_input("rank-0.json.gz");
//   if (c.kind == InputKind::kKinetoTrace) ...   // c.reason: "Kineto trace (JSON object, gzip)"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cs::io {

// Bytes of a file (after gzip inflation) looked at to tell what it is.
inline constexpr size_t kSniffBytes = size_t{1} << 20;
// Directory levels searched below a directory for rank directories and traces.
inline constexpr int kSearchDepth = 20;

enum class InputKind {
  kMissing,            // no such path
  kUnreadable,         // cannot open or inflate (reason says why)
  kKinetoTrace,        // PyTorch profiler (Kineto) trace, object or JSON Array Format
  kTraceView,          // NPU trace_view.json (torch_npu / MindSpore)
  kMergedTrace,        // the output of an earlier `clusterscope merge`
  kKernelDetails,      // kernel_details.csv
  kMegEngineProfile,   // MegEngine static-graph profile JSON (graph_exec + profiler)
  kMegEngineTimeline,  // MegEngine dynamic-graph *.chrome_timeline.json
  kDbExport,           // analysis.db, ascend_pytorch_profiler_N.db, ascend_mindspore_profiler_N.db,
                       // msprof_*.db
  kOtherSqlite,        // some other SQLite file
  kOtherJson,          // JSON that is no profiler timeline
  kOtherFile,          // anything else
  kRankDir,            // *_ascend_pt, *_ascend_ms, ASCEND_PROFILER_OUTPUT or a directory holding it
  kProfDir,            // msprof PROF_*
  kClusterDir,         // rank directories or traces below
  kOtherDir,           // a directory with no profiler output found below
};

// Short name of a kind, e.g. "Kineto trace", "NPU trace_view.json", "rank directory".
const char* input_kind_name(InputKind k);

struct InputClass {
  InputKind kind = InputKind::kOtherFile;
  std::string reason;       // one phrase: what was seen ("JSON array with Ascend process names")
  bool gzip = false;        // file content is gzip
  bool array_form = false;  // JSON timeline whose top level is an array
  int rank = -1;            // Kineto distributedInfo.rank when in the sniffed head, else -1
  // Rank directories: the files found in it ("" when absent).
  std::string output_dir;      // ASCEND_PROFILER_OUTPUT (or the directory itself)
  std::string trace_view;      // .../trace_view.json
  std::string kernel_details;  // .../kernel_details.csv
  std::string db;              // analysis.db or ascend_*_profiler_N.db
};

// Classifies `path` (file or directory). Never throws; problems become kMissing / kUnreadable.
// Example: "x_1_2_ascend_pt" holding ASCEND_PROFILER_OUTPUT/trace_view.json -> kRankDir with
// trace_view set; "worker0.pt.trace.json.gz" holding "[{...cat: Operator...}]" -> kKinetoTrace
// with array_form.
InputClass classify_input(const std::string& path);

// Classifies a file's first bytes (already inflated) named `file_name`; used by classify_input
// and by tests. Example: classify_head("a.json", "{\"traceEvents\": [") -> kKinetoTrace.
InputClass classify_head(std::string_view file_name, std::string_view head);

// True for the timelines (Kineto, NPU trace_view.json, MegEngine chrome_timeline.json): what
// `compare` and `merge` read and a directory of them is a cluster directory.
bool is_timeline_kind(InputKind k);

// True for a directory name a profiler gives a rank's output: *_ascend_pt, *_ascend_ms, PROF_*,
// ASCEND_PROFILER_OUTPUT.
bool is_rank_dir_name(std::string_view name);

// Timeline files (Kineto traces, trace_view.json outside rank directories) below `dir`, at most
// kSearchDepth levels, sorted by path; rank directories are not entered. `other` (optional) gets
// the JSON files that are no timeline and the unreadable ones, with their class.
std::vector<std::string> timelines_below(
    const std::string& dir, std::vector<std::pair<std::string, InputClass>>* other = nullptr);

}  // namespace cs::io
