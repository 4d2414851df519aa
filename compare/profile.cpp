#include "compare/profile.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

#include "readers/megengine_timeline.h"
#include "readers/trace_view.h"

namespace cs::compare {

namespace {

using readers::EventKind;
using readers::TraceEvent;

constexpr std::string_view kStepPrefix = "ProfilerStep#";

bool is_step_name(std::string_view n) {
  return n.substr(0, kStepPrefix.size()) == kStepPrefix;
}

int64_t step_number(std::string_view n) {
  n.remove_prefix(kStepPrefix.size());
  int64_t v = -1;
  std::from_chars(n.data(), n.data() + n.size(), v);
  return v;
}

struct ThreadKey {
  int64_t pid, tid;
  bool operator==(const ThreadKey&) const = default;
};
struct ThreadKeyHash {
  size_t operator()(const ThreadKey& k) const {
    return std::hash<int64_t>{}(k.pid * 1000003 ^ k.tid);
  }
};

// Per-thread op forests with point queries: the innermost op containing a time.
class OpIndex {
 public:
  explicit OpIndex(Profile& p) : p_(p) {}

  void build(const std::vector<const TraceEvent*>& events) {
    std::unordered_map<ThreadKey, std::vector<const TraceEvent*>, ThreadKeyHash> by_thread;
    for (const auto* e : events) by_thread[{e->pid, e->tid}].push_back(e);
    for (auto& [key, evs] : by_thread) {
      std::sort(evs.begin(), evs.end(), [](const TraceEvent* a, const TraceEvent* b) {
        return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : a->dur_ns > b->dur_ns;
      });
      auto& roots = roots_[key];
      std::vector<int32_t> stack;
      for (const auto* e : evs) {
        while (!stack.empty() && p_.ops[static_cast<size_t>(stack.back())].end_ns < e->end_ns() &&
               p_.ops[static_cast<size_t>(stack.back())].end_ns <= e->ts_ns)
          stack.pop_back();
        // An op that starts inside the top but ends after it (bad nesting) is treated as a sibling.
        while (!stack.empty() && p_.ops[static_cast<size_t>(stack.back())].end_ns < e->end_ns())
          stack.pop_back();
        OpNode n;
        n.name = e->name;
        n.input_dims = e->input_dims;
        n.start_ns = e->ts_ns;
        n.end_ns = e->end_ns();
        n.pid = e->pid;
        n.tid = e->tid;
        n.parent = stack.empty() ? -1 : stack.back();
        const auto id = static_cast<int32_t>(p_.ops.size());
        p_.ops.push_back(std::move(n));
        if (stack.empty())
          roots.push_back(id);
        else
          p_.ops[static_cast<size_t>(stack.back())].children.push_back(id);
        stack.push_back(id);
      }
    }
  }

  // Innermost op on (pid, tid) whose [start, end] contains t, or -1.
  int32_t innermost(int64_t pid, int64_t tid, int64_t t) const {
    auto it = roots_.find({pid, tid});
    if (it == roots_.end()) return -1;
    const std::vector<int32_t>* level = &it->second;
    int32_t found = -1;
    for (;;) {
      auto pos = std::upper_bound(level->begin(), level->end(), t, [&](int64_t v, int32_t id) {
        return v < p_.ops[static_cast<size_t>(id)].start_ns;
      });
      if (pos == level->begin()) return found;
      const int32_t cand = *(pos - 1);
      const auto& op = p_.ops[static_cast<size_t>(cand)];
      if (op.end_ns < t) return found;
      found = cand;
      level = &op.children;
    }
  }

 private:
  Profile& p_;
  std::unordered_map<ThreadKey, std::vector<int32_t>, ThreadKeyHash> roots_;
};

struct KernelKey {
  int64_t pid, tid, ts;
  bool operator==(const KernelKey&) const = default;
};
struct KernelKeyHash {
  size_t operator()(const KernelKey& k) const {
    // Unsigned arithmetic: wraps by definition (nanosecond timestamps overflow int64 * 31).
    const uint64_t h = static_cast<uint64_t>(k.ts) * 31u + static_cast<uint64_t>(k.pid) * 1000003u +
                       static_cast<uint64_t>(k.tid);
    return std::hash<uint64_t>{}(h);
  }
};

}  // namespace

std::vector<std::string_view> op_chain(const Profile& p, int32_t op, size_t max) {
  std::vector<std::string_view> chain;
  while (op >= 0 && chain.size() < max) {
    chain.push_back(p.str(p.ops[static_cast<size_t>(op)].name));
    op = p.ops[static_cast<size_t>(op)].parent;
  }
  return chain;
}

bool build_profile(readers::Trace trace, bool npu, std::optional<int64_t> step, Profile& out,
                   io::Diagnostics& diag) {
  out.npu = npu;
  out.trace = std::move(trace);
  const auto& t = out.trace;

  for (const auto& e : t.events)
    if (e.phase == 'X' && is_step_name(t.strings.str(e.name)))
      out.steps.push_back({step_number(t.strings.str(e.name)), e.ts_ns, e.end_ns()});
  std::sort(out.steps.begin(), out.steps.end(),
            [](const StepWindow& a, const StepWindow& b) { return a.start_ns < b.start_ns; });
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  if (step) {
    auto it = std::find_if(out.steps.begin(), out.steps.end(),
                           [&](const StepWindow& s) { return s.number == *step; });
    if (it == out.steps.end()) {
      std::string have;
      for (const auto& s : out.steps) have += (have.empty() ? "" : ", ") + std::to_string(s.number);
      diag.error(out.source, 0, "step " + std::to_string(*step) + " is not in the trace",
                 have.empty() ? "the trace has no ProfilerStep#N marks; drop the step option"
                              : "steps present: " + have);
      return false;
    }
    lo = it->start_ns;
    hi = it->end_ns;
  }

  // HCCL process ops win over hcom_* tasks seen elsewhere (the same op twice); device tasks of a
  // collective (readers/trace_view.h marks them communication) are counted through their op.
  const bool hccl_process_ops = npu && readers::has_hccl_process_ops(t);

  std::vector<const TraceEvent*> op_events;
  std::unordered_map<KernelKey, int32_t, KernelKeyHash> kernel_at;
  std::unordered_map<int64_t, const TraceEvent*> runtime_by_corr;
  std::vector<int64_t> corr;  // per kernel: Kineto correlation id, -1 when none
  for (const auto& e : t.events) {
    if (e.phase != 'X') continue;
    switch (e.kind) {
      case EventKind::kCpuOp:
        if (!is_step_name(t.strings.str(e.name)) && e.ts_ns >= lo && e.ts_ns <= hi)
          op_events.push_back(&e);
        break;
      case EventKind::kRuntime:
        if (!npu && e.correlation >= 0) runtime_by_corr.emplace(e.correlation, &e);
        break;
      case EventKind::kKernel:
      case EventKind::kMemcpy:
      case EventKind::kMemset:
      case EventKind::kCommunication: {
        if (npu && e.kind == EventKind::kCommunication && hccl_process_ops &&
            !readers::is_npu_comm_op(t, e, true))
          break;
        DeviceKernel k;
        k.name = e.name;
        k.task_type = e.task_type;
        k.start_ns = e.ts_ns;
        k.end_ns = e.end_ns();
        k.dur_us = e.dur_us;
        k.collective = e.collective;
        const auto name = t.strings.str(e.name);
        k.communication =
            npu ? e.kind == EventKind::kCommunication
                : name.substr(0, 4) == "nccl" || readers::is_megengine_collective(name);
        k.kind = e.kind;
        kernel_at.emplace(KernelKey{e.pid, e.tid, e.ts_ns},
                          static_cast<int32_t>(out.kernels.size()));
        out.kernels.push_back(k);
        corr.push_back(npu ? -1 : e.correlation);
        break;
      }
      default:
        break;
    }
  }

  OpIndex index(out);
  index.build(op_events);

  // Link kernels to launching ops: flows first (ac2g, async_gpu, async_cpu_to_gpu, async_npu,
  // HostToDevice...), then the Kineto correlation id.
  std::unordered_map<uint64_t, const readers::FlowEvent*> starts;
  auto flow_key = [](const readers::FlowEvent& f) { return f.id * 1000003u ^ f.cat; };
  const uint32_t fwdbwd = t.strings.find("fwdbwd");
  const uint32_t task_queue = t.strings.find("async_task_queue");
  for (const auto& f : t.flows)
    if (f.phase == 's' && f.cat != fwdbwd && f.cat != task_queue) starts.emplace(flow_key(f), &f);
  for (const auto& f : t.flows) {
    if (f.phase != 'f') continue;
    auto s = starts.find(flow_key(f));
    if (s == starts.end() || s->second->cat != f.cat || s->second->id != f.id) continue;
    auto k = kernel_at.find({f.pid, f.tid, f.ts_ns});
    if (k == kernel_at.end()) continue;
    auto& kernel = out.kernels[static_cast<size_t>(k->second)];
    if (kernel.op >= 0) continue;
    const int32_t op = index.innermost(s->second->pid, s->second->tid, s->second->ts_ns);
    kernel.launch_ns = s->second->ts_ns;
    if (op >= 0) kernel.op = op;
  }
  for (size_t i = 0; i < out.kernels.size(); ++i) {
    auto& k = out.kernels[i];
    if (k.op >= 0 || corr[i] < 0) continue;
    auto r = runtime_by_corr.find(corr[i]);
    if (r == runtime_by_corr.end()) continue;
    k.launch_ns = r->second->ts_ns;
    k.op = index.innermost(r->second->pid, r->second->tid, r->second->ts_ns);
  }

  // Keep the kernels of the selected step: launched in it (or, unlinked, starting in it).
  if (step) {
    std::erase_if(out.kernels, [&](const DeviceKernel& k) {
      const int64_t at = k.launch_ns >= 0 ? k.launch_ns : k.start_ns;
      return at < lo || at > hi;
    });
  }
  std::sort(out.kernels.begin(), out.kernels.end(),
            [](const DeviceKernel& a, const DeviceKernel& b) { return a.start_ns < b.start_ns; });

  for (auto& k : out.kernels) {
    if (k.op >= 0) ++out.linked_kernels;
    if (k.communication) continue;
    const auto chain = op_chain(out, k.op);
    KernelFacts f;
    f.name = out.str(k.name);
    f.task_type = out.str(k.task_type);
    f.npu = npu;
    f.memcpy = k.kind == EventKind::kMemcpy;
    f.memset = k.kind == EventKind::kMemset;
    f.ops = chain;
    k.category = classify_kernel(f);
  }
  // Device time per op, summed up the tree (children come after their parent).
  for (const auto& k : out.kernels) {
    if (k.op < 0) continue;
    auto& op = out.ops[static_cast<size_t>(k.op)];
    op.device_us += k.dur_us;
    op.kernel_count += 1;
  }
  for (size_t i = out.ops.size(); i-- > 0;) {
    const auto& op = out.ops[i];
    if (op.parent < 0) continue;
    auto& parent = out.ops[static_cast<size_t>(op.parent)];
    parent.device_us += op.device_us;
    parent.kernel_count += op.kernel_count;
  }
  for (size_t i = 0; i < out.ops.size(); ++i)
    if (out.ops[i].parent < 0) out.roots.push_back(static_cast<int32_t>(i));
  std::stable_sort(out.roots.begin(), out.roots.end(), [&](int32_t a, int32_t b) {
    return out.ops[static_cast<size_t>(a)].start_ns < out.ops[static_cast<size_t>(b)].start_ns;
  });

  // NPU: the producer's own overlap analysis, within the device span of the step.
  if (npu) {
    int64_t dlo = INT64_MIN, dhi = INT64_MAX;
    if (step && !out.kernels.empty()) {
      dlo = out.kernels.front().start_ns;
      dhi = 0;
      for (const auto& k : out.kernels) dhi = std::max(dhi, k.end_ns);
    }
    out.overlap_start_ns = INT64_MAX;
    out.overlap_end_ns = INT64_MIN;
    for (const auto& e : t.events) {
      if (e.kind != EventKind::kOverlap || e.phase != 'X') continue;
      if (e.ts_ns < dlo || e.ts_ns > dhi) continue;
      const auto name = t.strings.str(e.name);
      if (name == "Computing")
        out.overlap_computing_us += e.dur_us;
      else if (name == "Communication(Not Overlapped)")
        out.overlap_comm_not_overlapped_us += e.dur_us;
      else if (name == "Free")
        out.overlap_free_us += e.dur_us;
      else
        continue;
      out.has_overlap = true;
      out.overlap_start_ns = std::min(out.overlap_start_ns, e.ts_ns);
      out.overlap_end_ns = std::max(out.overlap_end_ns, e.end_ns());
    }
  }
  return true;
}

}  // namespace cs::compare
