#include "generator/db_export/write_nsys_sqlite.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace cs::generator {

namespace {

constexpr int64_t kNvtxPushPopRange = 59;  // NVTX_EVENTS.eventType of nvtxRangePush/Pop
constexpr int64_t kOpGapNs = 8;            // an op's NVTX range ends this long before the next

bool has(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// What a GPU takes for the NPU's device time of a kernel of `type` (kernel_catalog.h), and the
// kernel's demangled and short names as CUPTI records them.
struct GpuKernel {
  double scale;
  std::string demangled, short_name;
};

GpuKernel gpu_kernel(const HostOpSpan& op) {
  const std::string_view t = op.type;
  if (op.comm) {
    const char* coll = has(t, "allReduce")       ? "AllReduce_Sum_bf16"
                       : has(t, "allGather")     ? "AllGather"
                       : has(t, "reduceScatter") ? "ReduceScatter_Sum_bf16"
                                                 : "SendRecv";
    std::string name =
        std::string("ncclDevKernel_") + coll + (has(coll, "SendRecv") ? "" : "_RING_LL");
    return {0.9, name + "(ncclDevKernelArgsStorage<4096ul>)", name};
  }
  if (has(t, "FlashAttention") && has(t, "Grad"))
    return {0.55,
            "void flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, "
            "64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>, true, false, false, false, "
            "false, true, false, false>(flash::Flash_bwd_params)",
            "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel"};
  if (has(t, "FlashAttention"))
    return {0.55,
            "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
            "cutlass::bfloat16_t>, false, true, false, false, false, true, false, "
            "false>(flash::Flash_fwd_params)",
            "flash_fwd_kernel"};
  if (has(t, "MatMul") || has(t, "Matmul")) {
    const std::string gemm =
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
        "execute_segment_k_off_kernel__5x_cublas";
    return {0.62, gemm, gemm};
  }
  const bool elementwise = t == "Add" || t == "Mul" || t == "Cast" || has(t, "Gelu");
  const std::string functor = "at::native::" + std::string(t) + "Functor<c10::BFloat16>";
  return {elementwise ? 0.85 : 0.8,
          "void at::native::vectorized_elementwise_kernel<4, " + functor +
              ", at::detail::Array<char*, 3> >(int, " + functor + ", at::detail::Array<char*, 3>)",
          "vectorized_elementwise_kernel"};
}

// The ATen / c10d name PyTorch gives on a GPU the op the NPU recorded as `op`.
std::string gpu_op_name(const HostOpSpan& op) {
  if (has(op.op, "::")) return op.op;
  if (op.op.rfind("npu_", 0) == 0) return "aten::" + op.op.substr(4);
  std::string rest = op.op.rfind("Hccl", 0) == 0 ? op.op.substr(4) : op.op;
  for (char& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "c10d::" + rest + "_";
}

}  // namespace

int64_t NsysSqliteWriter::string_id(std::string_view s) {
  auto [it, added] = ids_.try_emplace(std::string(s), static_cast<int64_t>(order_.size()));
  if (added) order_.push_back(&it->first);
  return it->second;
}

bool NsysSqliteWriter::create(const std::string& path, io::Diagnostics& diag) {
  if (!db_.create(path, diag)) return false;
  db_.exec(
      "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
      "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, "
      "rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, "
      "endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER, "
      "int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, "
      "floatValue REAL, jsonTextId INTEGER, jsonText TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, "
      "eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, "
      "nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
      "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, "
      "correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, "
      "shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, "
      "registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, "
      "gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, "
      "blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, "
      "dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL, "
      "localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, "
      "graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);");
  nvtx_.emplace(db_.insert("NVTX_EVENTS", 19));
  runtime_.emplace(db_.insert("CUPTI_ACTIVITY_KIND_RUNTIME", 8));
  kernel_.emplace(db_.insert("CUPTI_ACTIVITY_KIND_KERNEL", 27));
  threads_.emplace(db_.insert("ThreadNames", 3));
  return true;
}

void NsysSqliteWriter::add_rank(int rank, const std::vector<HostOpSpan>& ops,
                                const RankTimeline& tl) {
  // Serialized ids as nsys writes them: PID and TID in the bits above and below 2^24.
  const int64_t pid = 300000 + rank;
  const int64_t global_pid = pid << 24, global_tid = global_pid + pid;
  threads_->row({string_id("python3"), 0, global_tid});
  // The ops' ranges, each ending before the next op starts.
  std::vector<HostOpSpan> gpu = ops;
  for (size_t i = 0; i + 1 < gpu.size(); ++i)
    gpu[i].end_ns =
        std::max(gpu[i].start_ns + 3, std::min(gpu[i].end_ns, gpu[i + 1].start_ns - kOpGapNs));
  const auto nvtx = [&](int64_t start, int64_t end, std::optional<std::string> text,
                        std::optional<int64_t> text_id) {
    SqlValue t = text ? SqlValue(std::string_view(*text)) : SqlValue();
    nvtx_->row({start, end, kNvtxPushPopRange, std::nullopt, std::nullopt, std::nullopt, t,
                global_tid, std::nullopt, text_id ? SqlValue(*text_id) : SqlValue(), 0,
                std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                std::nullopt, std::nullopt});
  };
  // The module ranges carry registered strings (textId), the ops' their own text.
  for (const PassOps& p : forward_passes(gpu, tl))
    for (const ModuleSpan& m : module_spans(p.fwd, kQwenGpuModules))
      nvtx(m.start_ns, m.end_ns, std::nullopt, string_id(m.name));
  const int64_t launch = string_id("cudaLaunchKernel_v7000");
  for (const HostOpSpan& op : gpu) {
    const int64_t seq = next_seq_++;
    nvtx(op.start_ns, op.end_ns,
         gpu_op_name(op) + ", seq = " + std::to_string(seq) +
             ", op_id = " + std::to_string(seq * 3 + 1) + ", sizes = [[4096, 4096], [4096, 4096]]",
         std::nullopt);
    const int64_t corr = next_correlation_++;
    const int64_t launch_end = std::min(op.end_ns - 1, op.start_ns + 3500);
    runtime_->row({op.start_ns + 1, std::max(op.start_ns + 2, launch_end), 1, global_tid, corr,
                   launch, 0, std::nullopt});
    const GpuKernel k = gpu_kernel(op);
    const int64_t dur = std::max<int64_t>(
        1, std::llround(static_cast<double>(op.dev_end_ns - op.dev_start_ns) * k.scale));
    kernel_->row({op.dev_start_ns,
                  op.dev_start_ns + dur,
                  rank,
                  1,
                  op.comm ? 21 : 7,
                  corr,
                  global_pid,
                  string_id(k.demangled),
                  string_id(k.short_name),
                  std::nullopt,
                  0,
                  0,
                  op.comm ? 96 : 128,
                  op.comm ? 32 : 132,
                  1,
                  1,
                  op.comm ? 512 : 384,
                  1,
                  1,
                  0,
                  op.comm ? 0 : 98304,
                  0,
                  0,
                  corr,
                  op.comm ? 0 : 98304,
                  std::nullopt,
                  1});
  }
}

bool NsysSqliteWriter::finish(io::Diagnostics& diag) {
  {
    Insert strings = db_.insert("StringIds", 2);
    for (size_t i = 0; i < order_.size(); ++i)
      strings.row({static_cast<int64_t>(i), std::string_view(*order_[i])});
  }
  nvtx_.reset();
  runtime_.reset();
  kernel_.reset();
  threads_.reset();
  return db_.finish(diag);
}

}  // namespace cs::generator
