// clusterscope generate OUT --ranks N [--tp T] [--pp P] [--steps S] [--seed N]
//     [--slow-rank R:FACTOR]... [--slow-link SRC-DST:FACTOR]... [--slow-kernel R:TYPE:FACTOR]...
//     [--memory] [--memory-imbalance R:GB]... [--memory-leak R:MB_PER_STEP]... [--memory-capacity
//     GB]
//     [--framework pytorch|mindspore|msprof] [--export-type text|db|both] [--force]
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "generator/generator.h"
#include "generator/job/memory_model.h"
#include "generator/output_dir.h"
#include "runtime/enum_names.h"

namespace po = boost::program_options;

namespace cs::cli {

namespace {

constexpr const char* kDash = " \u2014 ";

int usage_error(const std::string& what, const std::string& hint) {
  std::fprintf(stderr, "clusterscope: generate: %s%s%s\n", what.c_str(), kDash, hint.c_str());
  return runtime::kExitUsage;
}

// A wrong choice: the message already lists the valid ones.
int unknown_choice(const std::string& what) {
  std::fprintf(stderr, "clusterscope: generate: %s\n", what.c_str());
  return runtime::kExitUsage;
}

}  // namespace

int run_generate(int argc, char** argv) {
  generator::GeneratorOptions opts;
  std::string out_dir, framework = "pytorch", export_type = "text", pp_schedule = "1f1b";
  std::vector<std::string> slow_ranks, slow_devices, slow_links, slow_kernels, slow_hosts,
      slow_data, slow_freq;
  std::vector<std::string> memory_imbalance, memory_leak;  // generator/job/memory_model.h
  uint64_t seed = 1;
  bool trace_on = false, trace_off = false, force = false;

  po::options_description visible(
      "usage: clusterscope generate OUT --ranks N [options]\n\n"
      "Writes a synthetic cluster (one rank directory per rank, as torch_npu or MindSpore writes\n"
      "them) simulating a Megatron-style TP x PP x DP job, with faults injected on request, and\n"
      "OUT/truth.json naming them.\n\noptions");
  visible.add_options()("help,h", "show this help")(
      "ranks", po::value<int>(&opts.ranks)->required(), "number of ranks (world size)")(
      "tp", po::value<int>(&opts.tp)->default_value(1), "tensor-parallel size")(
      "pp", po::value<int>(&opts.pp)->default_value(1), "pipeline-parallel size")(
      "ep", po::value<int>(&opts.ep)->default_value(1),
      "expert-parallel size (MoE: GroupedMatmul kernels, an \"exp\" group; divides dp)")(
      "steps", po::value<int>(&opts.steps)->default_value(4), "profiled training steps")(
      "microbatches", po::value<int>(&opts.microbatches)->default_value(2),
      "micro-batches per step")("layers", po::value<int>(&opts.layers_per_stage)->default_value(2),
                                "transformer layers per pipeline stage")(
      "seed", po::value<uint64_t>(&seed)->default_value(1), "random seed (same seed, same files)")(
      "slow-rank", po::value<std::vector<std::string>>(&slow_ranks)->composing(),
      "R:FACTOR  rank R computes FACTOR times slower (repeatable)")(
      "slow-device", po::value<std::vector<std::string>>(&slow_devices)->composing(),
      "R:FACTOR  rank R's device computes FACTOR times slower while its host keeps its pace and "
      "runs a full launch queue ahead (device-bound; repeatable)")(
      "slow-link", po::value<std::vector<std::string>>(&slow_links)->composing(),
      "SRC-DST:FACTOR  the link between global ranks SRC and DST is slower: FACTOR < 1 is its "
      "share "
      "of the normal bandwidth (0.3), FACTOR > 1 how many times slower it is (4)")(
      "slow-kernel", po::value<std::vector<std::string>>(&slow_kernels)->composing(),
      "R:TYPE:FACTOR  kernels whose Type starts with TYPE run FACTOR times slower on rank R")(
      "slow-host", po::value<std::vector<std::string>>(&slow_hosts)->composing(),
      "R:GAP_US  rank R's host is slow: GAP_US more idle before every kernel launch")(
      "memory", po::bool_switch(&opts.memory),
      "write the memory files (profile_memory=True): operator_memory.csv, memory_record.csv, "
      "npu_module_mem.csv / OP_MEMORY, MEMORY_RECORD, NPU_MEM, NPU_MODULE_MEM")(
      "memory-imbalance", po::value<std::vector<std::string>>(&memory_imbalance)->composing(),
      "R:GB  rank R holds GB more memory from the start (implies --memory)")(
      "memory-capacity", po::value<int>(&opts.memory_capacity_gb)->default_value(0),
      "GB  the device's HBM, 32 or 64: written as the DB's NPU_INFO chip name (Ascend910B4 / "
      "Ascend910B3), so near-capacity ranks can be found; 0: a plain Ascend910B")(
      "memory-leak", po::value<std::vector<std::string>>(&memory_leak)->composing(),
      "R:MB_PER_STEP  rank R keeps MB_PER_STEP more allocated after every step (implies "
      "--memory)")(
      "slow-data", po::value<std::vector<std::string>>(&slow_data)->composing(),
      "R:MS  rank R's data loading is slow: MS more DataLoader time at every step start")(
      "mstx-passes", po::bool_switch(&opts.mstx_passes),
      "db export: write an mstx range around every forward and backward micro-batch on the "
      "device (what msprof-analyze's pp_chart draws)")(
      "pp-schedule", po::value<std::string>(&pp_schedule)->default_value("1f1b"),
      "1f1b (one --mstx-passes range per forward or backward pass) or dualpipev (the DualPipeV "
      "blocks of each stage, and META_DATA's pp_info saying so; needs --microbatches >= 2*pp)")(
      "mstx-modules", po::bool_switch(&opts.mstx_modules),
      "db export: write an mstx range (domain Module) around every nn.Module's framework ops "
      "(what msprof-analyze's module_statistic maps to kernel time)")(
      "nsys-sqlite", po::value<std::string>(&opts.nsys_sqlite),
      "FILE  db export: also write the job's GPU twin as an Nsight Systems SQLite export (NVTX "
      "module and op ranges, CUDA launches and kernels; device N = rank N), for msprof-analyze's "
      "calibrate_npu_gpu; implies --mstx-modules, the modules named as a Qwen2 model's")(
      "mstx-comm", po::bool_switch(&opts.mstx_comm),
      "db export: record communication only as mstx markers with the op's identity, without "
      "COMMUNICATION_OP (what msprof-analyze's mstx2commop turns into COMMUNICATION_OP)")(
      "mfu-flops", po::bool_switch(&opts.mfu_flops),
      "db export: record each forward matmul's and FlashAttention's FLOPs (mstx domain mfu_flops) "
      "and the chip's AI Cores and frequency in info.json (what msprof-analyze's operator_mfu "
      "divides by kernel time and the chip's peak)")(
      "slow-freq", po::value<std::vector<std::string>>(&slow_freq)->composing(),
      "R:MHZ  db export: write AICORE_FREQ for every rank (1800 MHz), rank R at MHZ from its "
      "second step on (800: idle, other values abnormal in freq_analysis; repeatable)")(
      "notify-tasks", po::bool_switch(&opts.notify_tasks),
      "db export: write HCCL's Notify_Record/Notify_Wait tasks around every send and receive "
      "(what msprof-analyze's p2p_pairing pairs them by)")(
      "host-bound", po::bool_switch(&opts.host_bound),
      "every rank's host dispatches slower than its device computes")(
      "rank-jitter", po::value<double>(&opts.rank_jitter)->default_value(0),
      "spread of a per-rank constant speed factor (e.g. 0.02)")(
      "first-stage-work", po::value<double>(&opts.first_stage_work)->default_value(1.0),
      "compute of the first pipeline stage relative to the middle ones")(
      "last-stage-work", po::value<double>(&opts.last_stage_work)->default_value(1.0),
      "compute of the last pipeline stage relative to the middle ones")(
      "host-noise", po::value<double>(&opts.host_noise_us)->default_value(0),
      "US  every rank idles a random 0..US once a step (host gaps)")(
      "framework", po::value<std::string>(&framework)->default_value("pytorch"),
      "pytorch (*_ascend_pt), mindspore (*_ascend_ms), msprof (CANN PROF_* directories) or kineto "
      "(a GPU job: rank-N.json PyTorch profiler traces with NCCL kernels)")(
      "export-type", po::value<std::string>(&export_type)->default_value("text"),
      "text (JSON/CSV files), db (ASCEND_PROFILER_OUTPUT/analysis.db and "
      "ascend_pytorch_profiler_{rank}.db) or both")(
      "trace-view", po::bool_switch(&trace_on),
      "write ASCEND_PROFILER_OUTPUT/trace_view.json (last step) for every rank (default: only up "
      "to 256 ranks)")("no-trace-view", po::bool_switch(&trace_off), "never write trace_view.json")(
      "force", po::bool_switch(&force),
      "OUT may be non-empty: an earlier generate's output there is removed first (other files "
      "are kept)");
  po::options_description all;
  all.add(visible).add_options()("out", po::value<std::string>(&out_dir), "output directory")(
      "stray", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("out", 1).add("stray", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << visible << "\n";
      return runtime::kExitOk;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(e.what(), "run 'clusterscope generate --help'");
  }
  if (vm.count("stray"))
    return usage_error(unexpected_argument(vm["stray"].as<std::vector<std::string>>()),
                       "run 'clusterscope generate --help'");
  if (out_dir.empty())
    return usage_error("no output directory given", "write: clusterscope generate OUT --ranks N");
  opts.seed = seed;
  if (trace_on && trace_off)
    return usage_error("--trace-view and --no-trace-view together", "choose one");
  if (trace_on) opts.trace_view = 1;
  if (trace_off) opts.trace_view = 0;
  const auto framework_kind = runtime::enum_from_name(generator::kFrameworkKindNames, framework);
  if (!framework_kind)
    return unknown_choice(runtime::unknown_value(
        "--framework", framework, runtime::enum_names(generator::kFrameworkKindNames)));
  opts.framework = *framework_kind;
  const auto export_kind = runtime::enum_from_name(generator::kExportKindNames, export_type);
  if (!export_kind)
    return unknown_choice(runtime::unknown_value("--export-type", export_type,
                                                 runtime::enum_names(generator::kExportKindNames)));
  opts.export_type = *export_kind;
  const auto schedule = runtime::enum_from_name(generator::kPpScheduleNames, pp_schedule);
  if (!schedule)
    return unknown_choice(runtime::unknown_value("--pp-schedule", pp_schedule,
                                                 runtime::enum_names(generator::kPpScheduleNames)));
  opts.pp_schedule = *schedule;

  std::string error;
  for (const auto& s : slow_ranks) {
    generator::SlowRank v;
    if (!generator::parse_slow_rank(s, v, error))
      return usage_error("--slow-rank " + error, "write it as R:FACTOR, e.g. --slow-rank 3:2.5");
    opts.slow_ranks.push_back(v);
  }
  for (const auto& s : slow_devices) {
    generator::SlowRank v;
    if (!generator::parse_slow_rank(s, v, error))
      return usage_error("--slow-device " + error,
                         "write it as R:FACTOR, e.g. --slow-device 3:1.5");
    opts.slow_devices.push_back(v);
  }
  for (const auto& s : slow_links) {
    generator::SlowLink v;
    if (!generator::parse_slow_link(s, v, error))
      return usage_error("--slow-link " + error,
                         "write it as SRC-DST:FACTOR, e.g. --slow-link 0-1:4");
    opts.slow_links.push_back(v);
  }
  for (const auto& s : slow_kernels) {
    generator::SlowKernel v;
    if (!generator::parse_slow_kernel(s, v, error))
      return usage_error("--slow-kernel " + error,
                         "write it as R:TYPE:FACTOR, e.g. --slow-kernel 2:MatMul:3");
    opts.slow_kernels.push_back(v);
  }
  for (const auto& s : slow_hosts) {
    generator::SlowRank v;  // same R:NUMBER form
    if (!generator::parse_slow_rank(s, v, error))
      return usage_error("--slow-host " + error, "write it as R:GAP_US, e.g. --slow-host 3:40");
    opts.slow_hosts.push_back({v.rank, v.factor});
  }
  for (const auto& s : slow_data) {
    generator::SlowRank v;  // same R:NUMBER form
    if (!generator::parse_slow_rank(s, v, error))
      return usage_error("--slow-data " + error, "write it as R:MS, e.g. --slow-data 3:20");
    opts.slow_data.push_back({v.rank, v.factor * 1000.0});
  }
  for (const auto& s : slow_freq) {
    generator::SlowRank v;  // same R:NUMBER form
    if (!generator::parse_slow_rank(s, v, error) || v.factor != static_cast<int>(v.factor))
      return usage_error("--slow-freq " + (error.empty() ? "MHZ must be a whole number" : error),
                         "write it as R:MHZ, e.g. --slow-freq 3:800");
    opts.slow_freq.push_back({v.rank, static_cast<int>(v.factor)});
  }

  for (const auto& s : memory_imbalance) {
    generator::MemoryImbalance v;
    if (!generator::parse_memory_imbalance(s, v, error))
      return usage_error("--memory-imbalance " + error,
                         "write it as R:GB, e.g. --memory-imbalance 3:4");
    opts.memory_imbalance.push_back(v);
  }
  for (const auto& s : memory_leak) {
    generator::MemoryLeak v;
    if (!generator::parse_memory_leak(s, v, error))
      return usage_error("--memory-leak " + error,
                         "write it as R:MB_PER_STEP, e.g. --memory-leak 5:300");
    opts.memory_leak.push_back(v);
  }

  io::Diagnostics diag;
  if (!generator::validate_options(opts, diag)) {
    for (const auto& d : diag.items())
      std::fprintf(stderr, "clusterscope: generate: %s\n", d.to_string().c_str());
    return runtime::kExitUsage;
  }
  // OUT empty or new; --force replaces an earlier generate's output (never mixes two clusters).
  const auto state = generator::prepare_output_dir(out_dir, force, diag);
  if (state != generator::OutputDirState::kReady) {
    for (const auto& d : diag.items())
      std::fprintf(stderr, "clusterscope: generate: %s\n", d.to_string().c_str());
    return state == generator::OutputDirState::kRefused ? runtime::kExitUsage : runtime::kExitFatal;
  }
  generator::GenerateSummary sum;
  if (!generator::generate_cluster(out_dir, opts, diag, &sum)) {
    for (const auto& d : diag.items())
      std::fprintf(stderr, "clusterscope: generate: %s\n", d.to_string().c_str());
    return runtime::kExitFatal;
  }
  std::printf(
      "clusterscope generate: wrote %d ranks (tp %d, pp %d, dp %d, %d steps) to %s: %llu files, "
      "%.1f MB in %.2f s; injected %zu slow rank(s), %zu slow link(s), %zu slow kernel(s) "
      "(see truth.json)\n",
      sum.ranks, sum.tp, sum.pp, sum.dp, sum.steps, out_dir.c_str(),
      static_cast<unsigned long long>(sum.files), static_cast<double>(sum.bytes) / 1e6, sum.seconds,
      opts.slow_ranks.size(), opts.slow_links.size(), opts.slow_kernels.size());
  return runtime::kExitOk;
}

}  // namespace cs::cli
