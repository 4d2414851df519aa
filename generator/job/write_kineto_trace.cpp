// --framework kineto: one PyTorch profiler (Kineto) trace per rank, as a CUDA job with NCCL
// writes it (docs/gpu_cluster.md, "Generated GPU jobs"): distributedInfo, ProfilerStep#N on the
// CPU, a cudaLaunchKernel per kernel (correlation ids), compute kernels on stream 7 and NCCL
// kernels on stream 20 with PyTorch's collective args. Point-to-point ops go to a two-rank
// process group per pair ("<pp group>:p2p:<lo>-<hi>"), as NCCL gives each pair a communicator.
#include <map>
#include <string>
#include <string_view>

#include "generator/job/kernel_catalog.h"
#include "generator/job/trace_events.h"
#include "generator/job/writers.h"

namespace cs::generator {

namespace {

const char* nccl_kernel(CommKind k) {
  switch (k) {
    case CommKind::kAllReduce:
      return "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
    case CommKind::kAllGather:
      return "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
    case CommKind::kReduceScatter:
      return "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, "
             "ncclWork*)";
    case CommKind::kSend:
    case CommKind::kReceive:
      return "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)";
  }
  return "ncclDevKernel_Generic";
}

const char* collective_name(CommKind k) {
  switch (k) {
    case CommKind::kAllReduce:
      return "allreduce";
    case CommKind::kAllGather:
      return "_allgather_base";
    case CommKind::kReduceScatter:
      return "_reduce_scatter_base";
    case CommKind::kSend:
      return "send";
    case CommKind::kReceive:
      return "recv";
  }
  return "";
}

std::string rank_list(const std::vector<int>& r) {
  std::string s = "[";
  for (size_t i = 0; i < r.size(); ++i) s += (i ? ", " : "") + std::to_string(r[i]);
  return s + "]";
}

}  // namespace

std::string render_kineto_trace_json(const WriteContext& ctx, int rank, const RankTimeline& tl) {
  const Topology& topo = ctx.topo;
  std::string s =
      "{\n  \"schemaVersion\": 1,\n  \"distributedInfo\": {\"backend\": \"nccl\", "
      "\"rank\": " +
      std::to_string(rank) + ", \"world_size\": " + std::to_string(topo.ranks) +
      "},\n  \"traceEvents\": ";
  TraceEvents o{s, ctx.base_us, TraceEvents::kPhFirst};
  o.meta(0, 0, "process_name", "GPU " + std::to_string(rank % kDevicesPerNode));
  o.meta(100, 100, "thread_name", "python");
  const int64_t host = 100, thread = 100, gpu = 0;
  for (size_t i = 0; i < tl.steps.size(); ++i)
    o.x("ProfilerStep#" + std::to_string(i + 1), host, thread, tl.steps[i].start_us,
        tl.steps[i].end_us - tl.steps[i].start_us, "user_annotation", "");
  int64_t corr = 1;
  // The launch sits just before the kernel, inside its CPU step.
  auto launch = [&](double start, int step) {
    double at = start - 5.0;
    if (step >= 0 && static_cast<size_t>(step) < tl.steps.size()) {
      const StepSpan& sp = tl.steps[static_cast<size_t>(step)];
      at = std::max(sp.start_us + 0.001, std::min(at, sp.end_us - 2.0));
    }
    o.x("cudaLaunchKernel", host, thread, at, 1.0, "cuda_runtime",
        "\"correlation\": " + std::to_string(corr));
  };
  const auto& cat = kernel_catalog();
  for (const KernelEvent& k : tl.kernels) {
    launch(k.start_us, k.step);
    o.x(cat[k.spec].name, gpu, 7, k.start_us, k.dur_us, "kernel",
        "\"stream\": 7, \"correlation\": " + std::to_string(corr));
    ++corr;
  }
  for (const CommRecord& c : tl.comms) {
    const Group& g = topo.groups[static_cast<size_t>(c.group)];
    double mb = 0;
    int peer = -1;
    for (const LinkTransfer& l : c.links) {
      if (l.src_local == l.dst_local) continue;
      mb += l.size_mb();
      const int other = g.ranks[static_cast<size_t>(l.src_local)] == rank
                            ? g.ranks[static_cast<size_t>(l.dst_local)]
                            : g.ranks[static_cast<size_t>(l.src_local)];
      peer = other;
    }
    const int64_t nelems = std::llround(mb * 1048576.0 / 2.0);  // bf16
    std::string pg = g.id, ranks = rank_list(g.ranks);
    int64_t size = static_cast<int64_t>(g.ranks.size());
    if (is_p2p(c.kind) && peer >= 0) {
      const int lo = std::min(rank, peer), hi = std::max(rank, peer);
      pg = g.id + ":p2p:" + std::to_string(lo) + "-" + std::to_string(hi);
      ranks = rank_list({lo, hi});
      size = 2;
    }
    launch(c.start_us, c.step);
    const int64_t in = c.kind == CommKind::kAllGather && size > 0 ? nelems / size : nelems;
    const int64_t out = c.kind == CommKind::kReduceScatter && size > 0 ? nelems / size : nelems;
    o.x(nccl_kernel(c.kind), gpu, 20, c.start_us, c.end_us - c.start_us, "kernel",
        "\"stream\": 20, \"correlation\": " + std::to_string(corr) + ", \"Collective name\": \"" +
            collective_name(c.kind) + "\", \"In msg nelems\": " + std::to_string(in) +
            ", \"Out msg nelems\": " + std::to_string(out) + ", \"Group size\": " +
            std::to_string(size) + ", \"dtype\": \"BFloat16\", \"Process Group Name\": \"" + pg +
            "\", \"Process Group Description\": \"" + group_kind_name(g.kind) +
            "\", \"Process Group Ranks\": \"" + ranks + "\"");
    ++corr;
  }
  s += "\n]}\n";
  // Kineto writes ts as a JSON number ("ts": 1708156014257560.123), not a string as torch_npu.
  std::string out;
  out.reserve(s.size());
  const std::string_view key = "\"ts\": \"";
  size_t at = 0;
  for (size_t f; (f = s.find(key, at)) != std::string::npos;) {
    const size_t end = s.find('"', f + key.size());
    out.append(s, at, f - at);
    out += "\"ts\": ";
    out.append(s, f + key.size(), end - f - key.size());
    at = end + 1;
  }
  out.append(s, at, std::string::npos);
  return out;
}

}  // namespace cs::generator
