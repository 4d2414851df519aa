#include "msprof_analyze/recipes/calibrate_npu_gpu/gpu_modules.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "db/database.h"
#include "db/statement.h"

namespace cs::recipes::calibrate_npu_gpu {

namespace {

// msprof-analyze's module markers (gpu_analyzer.py's user_def_markers default).
constexpr std::array<std::string_view, 7> kMarkers{"Qwen",      "Attention", "Linear", "RMSNorm",
                                                   "Embedding", "Sampler",   "Logits"};

// Its queries, run as it runs them.
constexpr const char* kNvtxQuery = R"(
    SELECT
        n.start AS start_ns,
        n.end AS end_ns,
        n.globalTid AS thread_id,
        COALESCE(n.text, s.value, 'Unknown_Region') as name
    FROM
        NVTX_EVENTS AS n
    LEFT JOIN
        StringIds AS s ON n.textId = s.id
    WHERE
        n.eventType = 59
    ORDER BY n.start
    )";
constexpr const char* kKernelQuery = R"(
    SELECT
        r.start AS cpu_start_ns,
        r.globalTid AS thread_id,
        k.start AS gpu_start_ns,
        k.end - k.start AS gpu_duration_ns,
        s.value AS kernel_name,
        k.deviceId AS rank_id
    FROM
        CUPTI_ACTIVITY_KIND_RUNTIME AS r
    JOIN
        CUPTI_ACTIVITY_KIND_KERNEL AS k ON r.correlationId = k.correlationId
    LEFT JOIN
        StringIds AS s ON k.demangledName = s.id
    )";

constexpr const char* kHint =
    "give --baseline_profiling_path the GPU job's Nsight Systems SQLite export (nsys export "
    "--type sqlite, with NVTX and CUDA tracing on)";

struct Names {
  std::vector<std::string> list;
  std::unordered_map<std::string, uint32_t> index;
  uint32_t id(std::string_view s) {
    auto [it, added] = index.try_emplace(std::string(s), static_cast<uint32_t>(list.size()));
    if (added) list.emplace_back(s);
    return it->second;
  }
};

}  // namespace

GpuProfile attribute_kernels(const std::vector<std::string>& names,
                             const std::vector<NvtxRange>& ranges,
                             const std::vector<GpuLaunch>& launches) {
  // Per name: a module marker? its op (the text before the first "," of a name with "::").
  Names ops;
  const uint32_t none = ops.id("None");
  std::vector<bool> marker(names.size(), false);
  std::vector<std::optional<uint32_t>> op_of(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    for (std::string_view m : kMarkers) marker[i] = marker[i] || n.find(m) != std::string::npos;
    if (n.find("::") != std::string::npos) {
      const std::string op = n.substr(0, n.find(','));
      if (!op.empty()) op_of[i] = ops.id(op);
    }
  }
  // Every event in the order msprof-analyze takes them: by thread, then time, then pushes, pops
  // and launches each in query order.
  struct Event {
    int64_t thread, time;
    size_t seq;
  };
  const size_t n = ranges.size();
  std::vector<Event> events;
  events.reserve(2 * n + launches.size());
  for (size_t i = 0; i < n; ++i) events.push_back({ranges[i].thread, ranges[i].start, i});
  for (size_t i = 0; i < n; ++i) events.push_back({ranges[i].thread, ranges[i].end, n + i});
  for (size_t i = 0; i < launches.size(); ++i)
    events.push_back({launches[i].thread, launches[i].cpu_start, 2 * n + i});
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.thread, a.time, a.seq) < std::tie(b.thread, b.time, b.seq);
  });

  using Key = std::tuple<int64_t, std::vector<uint32_t>, uint32_t, uint32_t>;
  std::map<Key, std::pair<int64_t, int64_t>> stats;  // -> (total ns, count)
  std::vector<uint32_t> full, modules, op_stack;
  for (size_t e = 0; e < events.size(); ++e) {
    if (e == 0 || events[e].thread != events[e - 1].thread) {
      full.clear();
      modules.clear();
      op_stack.clear();
    }
    const size_t s = events[e].seq;
    if (s < n) {  // a range opens
      const uint32_t name = ranges[s].name;
      full.push_back(name);
      if (marker[name]) modules.push_back(name);
      if (op_of[name]) op_stack.push_back(*op_of[name]);
    } else if (s < 2 * n) {  // a range closes: the thread's last open one
      if (full.empty()) continue;
      const uint32_t name = full.back();
      full.pop_back();
      if (marker[name] && !modules.empty()) modules.pop_back();
      if (op_of[name] && !op_stack.empty()) op_stack.pop_back();
    } else if (!modules.empty()) {  // a kernel launch inside a module
      const GpuLaunch& k = launches[s - 2 * n];
      auto& [total, count] =
          stats[Key{k.device, modules, op_stack.empty() ? none : op_stack.back(), k.kernel}];
      total += k.duration;
      ++count;
    }
  }

  GpuProfile out;
  for (const auto& [key, value] : stats) {
    const auto& [device, path, op, kernel] = key;
    GpuKernelStat st;
    for (size_t i = 0; i + 1 < path.size(); ++i) st.parent += "/" + names[path[i]];
    st.module = names[path.back()];
    st.op = ops.list[op];
    st.kernel = names[kernel];
    st.total_ns = value.first;
    st.count = value.second;
    out[device].push_back(std::move(st));
  }
  for (auto& [device, rows] : out)
    std::sort(rows.begin(), rows.end(), [](const GpuKernelStat& a, const GpuKernelStat& b) {
      return std::tie(a.parent, a.module, a.op, a.kernel) <
             std::tie(b.parent, b.module, b.op, b.kernel);
    });
  return out;
}

bool read_gpu_profile(const std::string& path, GpuProfile& out, io::Diagnostics& diag) {
  io::Diagnostics local;
  auto db = db::Database::open(path, local);
  if (!db) {
    for (const auto& d : local.items()) diag.error(d.file, d.line, d.what, kHint, d.offset);
    return false;
  }
  const std::vector<std::pair<const char*, std::vector<std::string>>> needs{
      {"NVTX_EVENTS", {"start", "end", "globalTid", "text", "textId", "eventType"}},
      {"StringIds", {"id", "value"}},
      {"CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "globalTid", "correlationId"}},
      {"CUPTI_ACTIVITY_KIND_KERNEL",
       {"start", "end", "correlationId", "demangledName", "deviceId"}}};
  for (const auto& [table, columns] : needs) {
    if (!db->has_table(table)) {
      diag.error(path, 0, std::string("the Nsight Systems export has no table ") + table,
                 std::string(table).rfind("NVTX", 0) == 0
                     ? "profile the GPU job with NVTX tracing (nsys profile --trace=cuda,nvtx) "
                       "and export it with nsys export --type sqlite"
                     : "profile the GPU job with CUDA tracing (nsys profile --trace=cuda,nvtx) "
                       "and export it with nsys export --type sqlite");
      return false;
    }
    if (!db->require(table, columns, diag)) return false;
  }
  Names names;
  std::vector<NvtxRange> ranges;
  {
    auto st = db->prepare(kNvtxQuery, "NVTX_EVENTS", diag);
    if (!st) return false;
    for (;;) {
      const db::StepResult r = st->step(diag);
      if (r == db::StepResult::kError) return false;
      if (r == db::StepResult::kDone) break;
      const auto start = st->int64_at(0), end = st->int64_at(1), thread = st->int64_at(2);
      if (!start || !end || !thread) continue;  // an unfinished range or no thread: not nested
      ranges.push_back({*start, *end, *thread, names.id(st->text_at(3))});
    }
  }
  std::vector<GpuLaunch> launches;
  {
    auto st = db->prepare(kKernelQuery, "CUPTI_ACTIVITY_KIND_KERNEL", diag);
    if (!st) return false;
    for (;;) {
      const db::StepResult r = st->step(diag);
      if (r == db::StepResult::kError) return false;
      if (r == db::StepResult::kDone) break;
      const auto cpu = st->int64_at(0), thread = st->int64_at(1), dur = st->int64_at(3),
                 device = st->int64_at(5);
      if (!cpu || !thread || !dur || !device || st->is_null(4)) continue;
      launches.push_back({*cpu, *thread, *dur, *device, names.id(st->text_at(4))});
    }
  }
  if (ranges.empty()) {
    diag.error(path, 0, "the Nsight Systems export has no NVTX push/pop range",
               "profile the GPU job with NVTX ranges around its nn.Modules and ops (e.g. "
               "torch.autograd.profiler.emit_nvtx) and nsys profile --trace=cuda,nvtx");
    return false;
  }
  if (launches.empty()) {
    diag.error(path, 0, "the Nsight Systems export has no CUDA kernel joined to its launch",
               "profile the GPU job with CUDA tracing (nsys profile --trace=cuda,nvtx)");
    return false;
  }
  out = attribute_kernels(names.list, ranges, launches);
  return true;
}

}  // namespace cs::recipes::calibrate_npu_gpu
