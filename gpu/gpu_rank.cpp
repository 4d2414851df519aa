#include "gpu/gpu_rank.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>
#include <utility>

namespace cs::gpu {

namespace {

using Interval = std::pair<int64_t, int64_t>;

std::string lower_alnum(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// Sorted, disjoint intervals covering `v`.
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const auto& iv : v) {
    if (iv.second <= iv.first) continue;
    if (!out.empty() && iv.first <= out.back().second)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  }
  return out;
}

int64_t length(const std::vector<Interval>& v) {
  int64_t n = 0;
  for (const auto& iv : v) n += iv.second - iv.first;
  return n;
}

// Length of the intersection of two sorted disjoint interval lists.
int64_t intersection(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t n = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].first, b[j].first);
    const int64_t hi = std::min(a[i].second, b[j].second);
    if (hi > lo) n += hi - lo;
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return n;
}

std::vector<Interval> unite(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> all(a);
  all.insert(all.end(), b.begin(), b.end());
  return merged(std::move(all));
}

struct StepWindow {
  int64_t start, end;
  std::string name;
};

// Device work of one step, as intervals.
struct StepWork {
  std::vector<Interval> compute, comm, memory;
  int64_t first = INT64_MAX, last = INT64_MIN, kernel_sum = 0;
};

}  // namespace

bool is_collective_kernel(std::string_view name) {
  return starts_with(name, "nccl") || starts_with(name, "rccl") ||
         name.find("ncclDevKernel") != std::string_view::npos ||
         name.find("ncclKernel") != std::string_view::npos;
}

std::string collective_type(std::string_view collective_name, std::string_view kernel_name) {
  std::string n = lower_alnum(collective_name);
  if (n.empty()) {
    // ncclKernel_AllReduce_RING_LL_Sum_float(...) / ncclDevKernel_SendRecv(...)
    const size_t us = kernel_name.find('_');
    if (us == std::string_view::npos) return {};
    std::string_view rest = kernel_name.substr(us + 1);
    rest = rest.substr(0, rest.find_first_of("_("));
    n = lower_alnum(rest);
  }
  while (starts_with(n, "c10d")) n = n.substr(4);
  static const char* const kTypes[] = {"allreduce", "allgather", "reducescatter", "alltoall",
                                       "broadcast", "reduce",    "sendrecv",      "send",
                                       "recv",      "barrier",   "gather",        "scatter"};
  for (const char* t : kTypes)
    if (starts_with(n, t)) return t;
  return n;
}

int dtype_bytes(std::string_view dtype) {
  const std::string d = lower_alnum(dtype);
  if (d == "float" || d == "float32" || d == "int" || d == "int32" || d == "uint32") return 4;
  if (d == "double" || d == "float64" || d == "long" || d == "int64" || d == "uint64") return 8;
  if (d == "half" || d == "float16" || d == "bfloat16" || d == "short" || d == "int16") return 2;
  if (d == "char" || d == "byte" || d == "bool" || d == "int8" || d == "uint8" ||
      starts_with(d, "float8"))
    return 1;
  return 0;
}

GpuRankSummary summarize_gpu_trace(const readers::Trace& t, int rank) {
  GpuRankSummary s;
  s.rank = rank;
  s.world_size = t.distributed.world_size;
  s.backend = t.distributed.backend;

  // CPU step windows, and the launch time of each correlation id.
  std::vector<StepWindow> steps;
  std::unordered_map<int64_t, const readers::TraceEvent*> launch;
  std::map<std::pair<int64_t, int64_t>, std::vector<const readers::TraceEvent*>> param_comms;
  for (const auto& e : t.events) {
    if (e.phase != 'X') continue;
    if (e.kind == readers::EventKind::kUserAnnotation && e.name != io::kNoString) {
      const std::string_view n = t.strings.str(e.name);
      if (starts_with(n, "ProfilerStep#"))
        steps.push_back({e.ts_ns, e.end_ns(), std::string(n.substr(13))});
    } else if (e.kind == readers::EventKind::kRuntime && e.correlation >= 0) {
      launch.emplace(e.correlation, &e);
    } else if (e.kind == readers::EventKind::kCpuOp && e.collective >= 0) {
      param_comms[{e.pid, e.tid}].push_back(&e);
    }
  }
  std::sort(steps.begin(), steps.end(),
            [](const StepWindow& a, const StepWindow& b) { return a.start < b.start; });
  for (auto& [key, v] : param_comms)
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->ts_ns < b->ts_ns; });

  // The step a kernel belongs to: the CPU step holding its launch (else its own start).
  auto step_of = [&](const readers::TraceEvent& k, int64_t at) -> int {
    if (steps.empty()) return 0;
    auto it = std::upper_bound(steps.begin(), steps.end(), at,
                               [](int64_t x, const StepWindow& w) { return x < w.start; });
    if (it == steps.begin()) return -1;
    --it;
    (void)k;
    return at < it->end ? static_cast<int>(it - steps.begin()) : -1;
  };

  std::vector<StepWork> work(steps.empty() ? 1 : steps.size());
  // Per interned name: its totals and whether it is a collective (names repeat thousands of
  // times: looked at once each).
  std::unordered_map<uint32_t, GpuKernelTotal> kernels;
  std::map<std::string, int64_t> seq;
  for (const auto& e : t.events) {
    if (e.phase != 'X') continue;
    const bool kernel = e.kind == readers::EventKind::kKernel;
    const bool memory =
        e.kind == readers::EventKind::kMemcpy || e.kind == readers::EventKind::kMemset;
    if (!kernel && !memory) continue;
    const std::string_view name = e.name == io::kNoString ? "" : t.strings.str(e.name);
    GpuKernelTotal* kt = nullptr;
    if (kernel) {
      auto [it, fresh] = kernels.try_emplace(e.name);
      kt = &it->second;
      if (fresh) {
        kt->name = name;
        kt->communication = is_collective_kernel(name);
      }
    }
    const bool comm = kt && kt->communication;
    const readers::TraceEvent* l = nullptr;
    if (e.correlation >= 0) {
      auto it = launch.find(e.correlation);
      if (it != launch.end()) l = it->second;
    }
    const int si = step_of(e, l ? l->ts_ns : e.ts_ns);
    if (kt) {
      ++s.kernel_count;
      ++kt->count;
      kt->total_ns += e.dur_ns;
    }
    if (si >= 0) {
      StepWork& w = work[si];
      const Interval iv{e.ts_ns, e.end_ns()};
      (comm ? w.comm : kernel ? w.compute : w.memory).push_back(iv);
      w.first = std::min(w.first, e.ts_ns);
      w.last = std::max(w.last, e.end_ns());
      if (kernel) w.kernel_sum += e.dur_ns;
    }
    if (!comm) continue;
    // The collective's arguments: the kernel's own, else the record_param_comms enclosing the
    // launch on the CPU.
    GpuCollective c;
    const readers::CollectiveArgs* args =
        e.collective >= 0 ? &t.collectives[e.collective] : nullptr;
    if ((!args || args->collective_name == io::kNoString) && l) {
      auto pc = param_comms.find({l->pid, l->tid});
      if (pc != param_comms.end()) {
        auto& v = pc->second;
        auto it =
            std::upper_bound(v.begin(), v.end(), l->ts_ns,
                             [](int64_t x, const readers::TraceEvent* p) { return x < p->ts_ns; });
        while (it != v.begin()) {
          --it;
          if ((*it)->end_ns() >= l->ts_ns) {
            args = &t.collectives[(*it)->collective];
            c.from_cpu_op = true;
            break;
          }
          if (l->ts_ns - (*it)->ts_ns > int64_t{10'000'000'000}) break;
        }
      }
    }
    auto str = [&](uint32_t id) -> std::string_view {
      return id == io::kNoString ? std::string_view() : t.strings.str(id);
    };
    c.type = collective_type(args ? str(args->collective_name) : "", name);
    // No process group: a collective spans the job ("default"); a point-to-point op's peer is
    // unknown, so it stays this rank's own ("p2p@R": never matched across ranks).
    const bool p2p = c.type == "sendrecv" || c.type == "send" || c.type == "recv";
    if (args && args->pg_name != io::kNoString)
      c.group = str(args->pg_name);
    else
      c.group = p2p ? "p2p@" + std::to_string(rank) : "default";
    if (args) c.group_ranks = str(args->pg_ranks);
    c.group_size = args ? args->group_size : -1;
    if (args) {
      const int sz = dtype_bytes(str(args->dtype));
      const int64_t n = c.type == "allgather" ? args->out_nelems : args->in_nelems;
      if (sz > 0 && n >= 0) c.bytes = n * sz;
    }
    c.start_ns = e.ts_ns;
    c.dur_ns = e.dur_ns;
    c.step = si >= 0 ? (steps.empty() ? "all" : steps[si].name) : "";
    s.collectives.push_back(std::move(c));
  }
  // Issue order on the GPU, then a sequence number per group.
  std::stable_sort(
      s.collectives.begin(), s.collectives.end(),
      [](const GpuCollective& a, const GpuCollective& b) { return a.start_ns < b.start_ns; });
  for (auto& c : s.collectives) c.seq = seq[c.group]++;

  for (size_t i = 0; i < work.size(); ++i) {
    StepWork& w = work[i];
    if (w.first == INT64_MAX) continue;  // a step with no device work
    GpuStep st;
    st.step = steps.empty() ? "all" : steps[i].name;
    const auto compute = merged(std::move(w.compute));
    const auto comm = merged(std::move(w.comm));
    const auto mem = merged(std::move(w.memory));
    const auto busy = unite(compute, comm);
    st.window_ns = w.last - w.first;
    st.computing_ns = length(compute);
    st.communication_ns = length(comm);
    st.overlapped_ns = intersection(compute, comm);
    st.comm_not_overlapped_ns = st.communication_ns - st.overlapped_ns;
    st.memory_ns = length(mem) - intersection(mem, busy);
    st.free_ns = st.window_ns - length(unite(busy, mem));
    st.kernel_sum_ns = w.kernel_sum;
    s.steps.push_back(std::move(st));
  }
  for (auto& [n, k] : kernels) s.kernels.push_back(std::move(k));
  std::sort(s.kernels.begin(), s.kernels.end(),
            [](const GpuKernelTotal& a, const GpuKernelTotal& b) { return a.name < b.name; });
  return s;
}

}  // namespace cs::gpu
