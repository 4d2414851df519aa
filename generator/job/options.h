#pragma once
// The simulated job's options (`clusterscope generate`'s flags): shape, injected faults, producer
// and export type; their parsers and the check of the options against each other
// (job/options.cpp). generator/generator.h runs a job from them.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "runtime/enum_names.h"

namespace cs::generator {

struct SlowRank {
  int rank = -1;
  double factor = 1.0;  // compute durations on this rank are multiplied by it
};

struct SlowLink {
  int src = -1;  // global ranks; the link is slowed in both directions
  int dst = -1;
  double factor = 1.0;  // the link's bandwidth is divided by it
};

struct SlowKernel {
  int rank = -1;
  std::string type;  // kernel Type prefix, case-insensitive: "MatMul" slows MatMulV2 and MatMulV3
  double factor = 1.0;
};

struct SlowHost {
  int rank = -1;
  double gap_us = 0;  // extra host-side idle before every kernel launch on this rank
};
// --slow-freq R:MHZ: rank R's AI Core runs at MHZ instead of 1800 MHz from its second step on, as
// the db export's AICORE_FREQ records it (what msprof-analyze's freq_analysis reads; the kernel
// durations are not changed).
struct SlowFreq {
  int rank = -1;
  int mhz = 0;
};
// --memory-imbalance R:GB: rank R holds GB more from the start (a larger optimizer state).
struct MemoryImbalance {
  int rank = -1;
  double gb = 0;
};
// --memory-leak R:MB_PER_STEP: rank R keeps MB_PER_STEP more allocated after every step.
struct MemoryLeak {
  int rank = -1;
  double mb_per_step = 0;
};

// kMsprof: CANN msprof's PROF_ directories (text only, docs/formats.md §1b). kKineto: a GPU job,
// one PyTorch profiler (Kineto) trace per rank with NCCL kernels (docs/gpu_cluster.md).
enum class FrameworkKind { kPyTorch, kMindSpore, kMsprof, kKineto };
// --framework (pt and ms are short for pytorch and mindspore).
inline constexpr std::array<runtime::EnumName<FrameworkKind>, 6> kFrameworkKindNames{
    {{"pytorch", FrameworkKind::kPyTorch},
     {"mindspore", FrameworkKind::kMindSpore},
     {"msprof", FrameworkKind::kMsprof},
     {"pt", FrameworkKind::kPyTorch},
     {"ms", FrameworkKind::kMindSpore},
     {"kineto", FrameworkKind::kKineto}}};

// Which per-rank export to write: the text files (JSON/CSV), the databases (analysis.db and
// ascend_pytorch_profiler_{rank}.db), or both, as torch_npu's export_type does.
enum class ExportKind { kText, kDb, kBoth };
// --export-type.
inline constexpr std::array<runtime::EnumName<ExportKind>, 3> kExportKindNames{
    {{"text", ExportKind::kText}, {"db", ExportKind::kDb}, {"both", ExportKind::kBoth}}};

// The pipeline schedule the --mstx-passes ranges follow: one range per simulated forward or
// backward pass (1F1B's view), or the DualPipeV blocks of each stage (pipeline/dualpipev.h),
// announced in META_DATA's pp_info as MindSpeed does.
enum class PpSchedule { k1F1B, kDualPipeV };
// --pp-schedule.
inline constexpr std::array<runtime::EnumName<PpSchedule>, 2> kPpScheduleNames{
    {{"1f1b", PpSchedule::k1F1B}, {"dualpipev", PpSchedule::kDualPipeV}}};

struct GeneratorOptions {
  int ranks = 8;
  int tp = 1;
  int pp = 1;
  int steps = 4;
  int microbatches = 2;      // per step and pipeline stage
  int layers_per_stage = 2;  // transformer layers simulated per stage
  uint64_t seed = 1;
  FrameworkKind framework = FrameworkKind::kPyTorch;
  std::vector<SlowRank> slow_ranks;
  // --slow-device R:FACTOR: rank R's device computes FACTOR times slower while its host keeps its
  // pace, so the host runs a full launch queue (kDeviceBoundLeadUs, host_model.h) ahead of it: the
  // device is the bound, its kernels wait in the queue after their launch.
  std::vector<SlowRank> slow_devices;
  std::vector<SlowLink> slow_links;
  std::vector<SlowKernel> slow_kernels;
  std::vector<SlowHost> slow_hosts;
  // The host side (generator/job/host_model.h): --slow-data R:MS adds MS of DataLoader time at
  // every step start of rank R (gap_us holds it in µs); --host-bound makes every rank's host
  // dispatch slower than its device computes.
  std::vector<SlowHost> slow_data;
  bool host_bound = false;
  bool mstx_passes = false;  // mstx forward/backward ranges on the device (db export)
  PpSchedule pp_schedule = PpSchedule::k1F1B;  // what those ranges follow (--pp-schedule)
  bool mstx_modules = false;  // mstx nn.Module ranges over the framework ops (db export)
  bool mstx_comm = false;     // communication only as mstx markers (db export)
  bool notify_tasks = false;  // Notify_Record/Notify_Wait around send/receive (db export)
  // Recorded FLOPs (mstx domain "mfu_flops") and the chip's DeviceInfo in info.json (db export;
  // generator/db_export/write_mfu_flops.h).
  bool mfu_flops = false;
  // --nsys-sqlite FILE: the job's GPU twin as one Nsight Systems SQLite export (NVTX module and
  // op ranges, CUDA launches and kernels, device = rank; generator/db_export/write_nsys_sqlite.h);
  // implies the mstx module ranges, named as a Qwen2 model's (db export, pytorch only).
  std::string nsys_sqlite;
  // AICORE_FREQ in the db export, for every rank, when any is given (--slow-freq).
  std::vector<SlowFreq> slow_freq;
  // Realism (all off by default, so default outputs stay as they were): a per-rank constant speed
  // factor 1 + N(0, rank_jitter) on every compute kernel, and the first / last pipeline stage
  // carrying more (or less) work by these factors (pp > 1 only).
  double rank_jitter = 0;
  double first_stage_work = 1.0;
  double last_stage_work = 1.0;
  // Host gaps: every rank idles a random 0..host_noise_us once a step (between its forward and
  // backward passes), so Free differs from rank to rank and step to step.
  double host_noise_us = 0;
  // ASCEND_PROFILER_OUTPUT/trace_view.json per rank (last step only): -1 = when ranks <= 256
  // (default; the timeline is the largest file), 0 = never, 1 = always.
  int trace_view = -1;
  bool writes_trace_view() const { return trace_view > 0 || (trace_view < 0 && ranks <= 256); }
  // Memory files (profile_memory=True; generator/job/memory_model.h): operator_memory.csv,
  // memory_record.csv, npu_module_mem.csv and the DB's OP_MEMORY, MEMORY_RECORD, NPU_MEM,
  // NPU_MODULE_MEM. Off by default (default outputs stay as they were); on with --memory or
  // any memory fault.
  bool memory = false;
  std::vector<MemoryImbalance> memory_imbalance;
  std::vector<MemoryLeak> memory_leak;
  // --memory-capacity GB (32 or 64): the device's HBM, said the way real exports say it, by the
  // chip's name in the DB's NPU_INFO (Ascend910B4: 32 GB, Ascend910B3: 64 GB; memory/memory_db.h);
  // 0: a plain "Ascend910B", which does not say it. The text export has no chip name.
  int memory_capacity_gb = 0;
  // --ep E: an expert-parallel (MoE) job, E dividing dp (generator/job/write_moe.h); 1: dense.
  int ep = 1;
  // NPU_INFO's chip name for memory_capacity_gb.
  const char* chip_name() const {
    return memory_capacity_gb == 64   ? "Ascend910B3"
           : memory_capacity_gb == 32 ? "Ascend910B4"
                                      : "Ascend910B";
  }
  bool writes_memory() const { return memory || !memory_imbalance.empty() || !memory_leak.empty(); }
  ExportKind export_type = ExportKind::kText;
  bool writes_text() const { return export_type != ExportKind::kDb; }
  bool writes_db() const { return export_type != ExportKind::kText; }

  int dp() const { return tp > 0 && pp > 0 ? ranks / (tp * pp) : 0; }
};

// Parses "R:FACTOR" (e.g. "3:2.5"). False with `error` set ("'3:x': FACTOR is not a number").
bool parse_slow_rank(std::string_view text, SlowRank& out, std::string& error);
// Parses "SRC-DST:FACTOR" (e.g. "0-1:4").
bool parse_slow_link(std::string_view text, SlowLink& out, std::string& error);
// Parses "R:TYPE:FACTOR" (e.g. "2:MatMul:3").
bool parse_slow_kernel(std::string_view text, SlowKernel& out, std::string& error);

// Checks the options against each other (ranks divisible by tp*pp, ranks in range, factors
// positive, a slowed link used by some group, a slowed kernel type that exists). Appends one
// error diagnostic per problem (file ""; `what` and a `hint` saying what to do). True when none.
bool validate_options(const GeneratorOptions& opts, io::Diagnostics& diag);

}  // namespace cs::generator
