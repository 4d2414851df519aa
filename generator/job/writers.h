#pragma once
// Writers of the per-rank files from a simulated RankTimeline, and of OUT/truth.json. Each
// renders one file into a string (so tests can check the text) and write_text_file() stores it.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "generator/job/options.h"
#include "generator/job/simulation.h"
#include "generator/job/topology.h"
#include "io/diagnostics.h"
#include "io/json/json_writer.h"

namespace cs::generator {

struct WriteContext {
  const GeneratorOptions& opts;
  const Topology& topo;
  int64_t base_us;  // absolute time of relative time 0
};

// Op key as written in communication.json: "hcom_allReduce__844_2_1@13681369207305868844".
std::string comm_op_name(const Topology& topo, const CommRecord& c);  // without "@group"
std::string comm_op_key(const Topology& topo, const CommRecord& c);

// communication.json (formats.md §2): per step "collective" and "p2p" ops plus "Total Op Info".
std::string render_communication_json(const WriteContext& ctx, int rank, const RankTimeline& tl);
// communication_matrix.json (formats.md §3): top1/middle/bottom1/bottom2/bottom3/total per
// (op type, group), links between local ranks, the rank's own "i-i" LOCAL link.
std::string render_matrix_json(const WriteContext& ctx, int rank, const RankTimeline& tl);
// step_trace_time.csv (formats.md §4), all 11 columns, computed from the timeline's intervals.
std::string render_step_trace_csv(const WriteContext& ctx, int rank, const RankTimeline& tl);
// kernel_details.csv with the producer's quirks (TAB inside quoted Start Time, """shapes""", N/A).
std::string render_kernel_details_csv(const WriteContext& ctx, int rank, const RankTimeline& tl);
// op_statistic.csv: per (OP Type, Core Type) count and total/min/avg/max time, ratio of total.
std::string render_op_statistic_csv(const WriteContext& ctx, int rank, const RankTimeline& tl);
// trace_view.json (a top-level array, as torch_npu exports it) for the LAST step only: Python
// ops with torch_to_npu flows, CANN launches, Ascend Hardware kernels (the same ones as in
// kernel_details.csv), HCCL hcom ops and the Overlap Analysis spans.
std::string render_trace_view_json(const WriteContext& ctx, int rank, const RankTimeline& tl);
// operator_details.csv and api_statistic.csv of trace_view.json's step (write_host_files.cpp).
std::string render_operator_details_csv(const WriteContext& ctx, int rank, const RankTimeline& tl);
std::string render_api_statistic_csv(const WriteContext& ctx, int rank, const RankTimeline& tl);
// profiler_info_{rank}.json and profiler_metadata.json (whose two entries, distributed_args and
// parallel_group_info, are also rendered alone for the DB export's META_DATA).
std::string render_profiler_info_json(const WriteContext& ctx, int rank);
std::string render_profiler_metadata_json(const WriteContext& ctx, int rank);
std::string render_distributed_args_json(const WriteContext& ctx, int rank);
std::string render_parallel_group_info_json(const WriteContext& ctx, int rank);

// CANN msprof's PROF_ text layout (docs/formats.md §1b): device_{d}/info.json.{d} (rank_id,
// hostUid), analyze/communication.json and analyze/communication_matrix.json flat, one key per op
// instance "<op name>@<group>" plus "Total Op Info" (no step level, no collective/p2p level; the
// matrix maps each op instance's "src-dst" local links to their numbers, without "Op Name"), and
// mindstudio_profiler_output/msprof_{timestamp}.json, the whole run's timeline.
// With --mfu-flops it also has DeviceInfo (render_device_info_json).
std::string render_msprof_info_json(const WriteContext& ctx, int rank);

// The chip's AI Cores and their frequency (MHz) in the generated info.json (an Atlas A2).
inline constexpr int kAiCoreNum = 24;
inline constexpr int kAicFrequencyMhz = 1800;
// info.json's DeviceInfo member as CANN writes it (a list of one device: "ai_core_num": 24,
// "aic_frequency": "1800", ...): where msprof-analyze's operator_mfu takes the chip's peak from.
std::string render_device_info_json(int device);
std::string render_msprof_communication_json(const WriteContext& ctx, int rank,
                                             const RankTimeline& tl);
std::string render_msprof_matrix_json(const WriteContext& ctx, int rank, const RankTimeline& tl);
std::string render_msprof_timeline_json(const WriteContext& ctx, int rank, const RankTimeline& tl);
// mindstudio_profiler_output/op_statistic_{timestamp}.csv: op_statistic.csv's rows after a
// Device_id column.
std::string render_msprof_op_statistic_csv(const WriteContext& ctx, int rank,
                                           const RankTimeline& tl);

// The text documents of one rank that analysis.db holds too.
struct RankDocuments {
  std::string communication;  // communication.json
  std::string matrix;         // communication_matrix.json
  std::string step_trace;     // step_trace_time.csv
};
// A kernel's host side (trace_view.json and the DB agree): its framework op starts
// kLaunchLeadUs before the kernel and lasts host_op_duration_us(gap to the next kernel of the
// step, 20 for the last); the CANN launch covers the op's middle 80%.
inline constexpr double kLaunchLeadUs = 60.0;
inline double host_op_duration_us(double gap_us) {
  return std::max(0.01, std::min(8.0, 0.45 * gap_us));
}
// Absolute nanoseconds of a relative time, as append_abs_us() prints it.
inline int64_t abs_ns(int64_t base_us, double rel_us) {
  return base_us * 1000 + static_cast<int64_t>(std::llround(rel_us * 1000.0));
}
// --framework kineto: rank-{rank}.json, the rank's PyTorch profiler (Kineto) trace with NCCL
// kernels and their collective args (generator/job/write_kineto_trace.cpp).
std::string render_kineto_trace_json(const WriteContext& ctx, int rank, const RankTimeline& tl);
// OUT/truth.json: the shape of the job and the injected faults.
std::string render_truth_json(const WriteContext& ctx);

// Name of the rank directory: "{host}_{pid}_{timestamp}_ascend_pt" (or _ascend_ms, or CANN's
// "PROF_{6 digits}_{timestamp}_{16 capitals}").
std::string rank_dir_name(const WriteContext& ctx, int rank);

// Writes `text` to `path`. False with an error diagnostic (errno text) on failure.
bool write_text_file(const std::string& path, const std::string& text, io::Diagnostics& diag);

// The layout both communication files share: {"step1": {"collective": ..., "p2p": ...}, ...},
// where write_ops(w, ops) writes one category's object. `bytes_per_op` sizes the buffer.
std::string render_steps_json(
    const RankTimeline& tl, size_t bytes_per_op,
    const std::function<void(io::JsonWriter&, const std::vector<const CommRecord*>&)>& write_ops);

// "123.456" style numbers: rounded to 3 decimals, trailing zeros dropped ("88.03", "16", "0").
void append_num3(std::string& out, double v);
// Absolute microseconds with exactly 3 decimals from base + relative: "1708156100001234.567".
void append_abs_us(std::string& out, int64_t base_us, double rel_us);

}  // namespace cs::generator
