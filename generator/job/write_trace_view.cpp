// trace_view.json of one rank, as torch_npu exports it (a top-level JSON array, `ts` strings with
// 3 decimals): process_name metadata for Python, CANN, Ascend Hardware, HCCL and Overlap Analysis;
// for ONE step (the last one, to keep the file small) the ProfilerStep#N op, one framework op per
// kernel with its CANN launch and the torch_to_npu flow to the kernel, the kernels and hcom ops
// of kernel_details.csv, and the Overlap Analysis Computing / Communication /
// Communication(Not Overlapped) / Free spans computed from the same intervals.
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "generator/job/host_model.h"
#include "generator/job/intervals.h"
#include "generator/job/kernel_catalog.h"
#include "generator/job/trace_events.h"
#include "generator/job/writers.h"

namespace cs::generator {

std::string render_trace_view_json(const WriteContext& ctx, int rank, const RankTimeline& tl) {
  std::string text;
  if (tl.steps.empty()) return "[]\n";
  const int step = static_cast<int>(tl.steps.size()) - 1;  // the last step only
  const StepSpan& span = tl.steps[static_cast<size_t>(step)];
  const int64_t py =
      100000 + static_cast<int64_t>(
                   (static_cast<uint64_t>(rank) * 7919u + ctx.opts.seed * 104729u) % 800000u);
  const int64_t py_tid = py, cann = py * 100 + 2, hw = 800 + rank % kDevicesPerNode,
                hccl = py * 100 + 3, overlap = py * 10000 + 1100;
  const int64_t stream = 2, hccl_stream = 56;
  const bool ms = ctx.opts.framework == FrameworkKind::kMindSpore;
  const auto& cat = kernel_catalog();

  std::vector<const KernelEvent*> kernels;
  for (const auto& k : tl.kernels)
    if (k.step == step) kernels.push_back(&k);
  std::vector<const CommRecord*> comms;
  for (const auto& c : tl.comms)
    if (c.step == step) comms.push_back(&c);
  text.reserve(kernels.size() * 900 + comms.size() * 300 + 4096);
  TraceEvents o{text, ctx.base_us, TraceEvents::kPhFirst};

  o.meta(py, 0, "process_name", "Python");
  o.meta(py, py_tid, "thread_name", "Thread " + std::to_string(py_tid));
  o.meta(cann, 0, "process_name", "CANN");
  o.meta(cann, py_tid, "thread_name", "Thread " + std::to_string(py_tid));
  o.meta(hw, 0, "process_name", "Ascend Hardware");
  o.meta(hw, stream, "thread_name", "Stream " + std::to_string(stream));
  o.meta(hw, hccl_stream, "thread_name", "Stream " + std::to_string(hccl_stream));
  o.meta(hccl, 0, "process_name", "HCCL");
  o.meta(hccl, 0, "thread_name", "Communication");
  o.meta(overlap, 0, "process_name", "Overlap Analysis");
  const char* lanes[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
  for (int i = 0; i < 4; ++i) o.meta(overlap, i, "thread_name", lanes[i]);

  // The step op spans the host activity of the step: from before the first launch to its end.
  // A host-limited rank dispatches each operator just before its kernel (host_model.h).
  const double lead = launch_lead_us(ctx.opts, rank);
  double host_start = span.start_us;
  if (!kernels.empty()) host_start = std::min(host_start, kernels.front()->start_us - lead - 5);
  o.x("ProfilerStep#" + std::to_string(step + 1), py, py_tid, host_start, span.end_us - host_start,
      "cpu_op", "\"Sequence number\": -1, \"Fwd thread id\": 0");
  // The DataLoader at the step start (the simulation's data loading, --slow-data included).
  const double data_end =
      data_loader_end_us(span, kernels.empty() ? -1.0 : kernels.front()->start_us, lead);
  if (data_end > span.start_us)
    o.x(kDataLoaderOp, py, py_tid, span.start_us, data_end - span.start_us, "cpu_op",
        "\"Sequence number\": -1, \"Fwd thread id\": 0");

  std::vector<Interval> compute, comm;
  std::string name;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelEvent& e = *kernels[i];
    const KernelSpec& k = cat[e.spec];
    const double launch = e.start_us - lead;
    double gap = i + 1 < kernels.size() ? kernels[i + 1]->start_us - e.start_us : 20.0;
    const double op_dur = host_op_duration_us(gap);
    o.x(framework_op_name(k.type), py, py_tid, launch, op_dur, "cpu_op",
        "\"Sequence number\": -1, \"Fwd thread id\": 0");
    o.x("AscendCL@aclnnLaunch", cann, py_tid, launch + 0.1 * op_dur, 0.8 * op_dur, "",
        "\"Mode\": \"ACL_OP\", \"level\": \"acl\"");
    const uint64_t id = static_cast<uint64_t>(rank) * 1000000u + i;
    o.flow('s', "torch_to_npu", "async_npu", id, py, py_tid, launch);
    if (ms) {
      name = "Default/network-TrainOneStepCell/";
      name += k.type;
      name += "-op" + std::to_string(e.spec);
    } else {
      name = k.name;
    }
    std::string args = "\"Model Id\": 4294967295, \"Task Type\": \"";
    args += core_name(k.core);
    args += "\", \"Stream Id\": 2, \"Task Id\": " + std::to_string(1000 + i);
    o.x(name, hw, stream, e.start_us, e.dur_us, "", args);
    o.flow('f', "torch_to_npu", "async_npu", id, hw, stream, e.start_us);
    compute.push_back({e.start_us, e.start_us + static_cast<double>(e.dur_us)});
  }
  for (const CommRecord* c : comms) {
    name = comm_op_name(ctx.topo, *c);
    const double dur = c->end_us - c->start_us;
    o.x(name, hccl, 0, c->start_us, dur, "", "\"model id\": 4294967295");
    o.x(name, hw, hccl_stream, c->start_us, dur, "",
        "\"Model Id\": 4294967295, \"Task Type\": \"COMMUNICATION\", \"Stream Id\": 56");
    comm.push_back({c->start_us, c->end_us});
  }

  const auto cp = merged(std::move(compute)), cm = merged(std::move(comm));
  const auto not_overlapped = minus(cm, cp);
  std::vector<Interval> busy = cp;
  busy.insert(busy.end(), cm.begin(), cm.end());
  const auto free = minus({{span.start_us, span.end_us}}, merged(std::move(busy)));
  const std::vector<Interval>* spans[] = {&cp, &cm, &not_overlapped, &free};
  for (int lane = 0; lane < 4; ++lane)
    for (const auto& [lo, hi] : *spans[lane]) o.x(lanes[lane], overlap, lane, lo, hi - lo, "", "");
  text += "\n]\n";
  return text;
}

}  // namespace cs::generator
