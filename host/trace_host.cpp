// host_input_from_trace: trace_view.json events to HostInput (see trace_host.h).

#include "host/trace_host.h"

#include <charconv>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace cs::host {

namespace {

bool is_device_process(std::string_view p) {
  return p == "Ascend Hardware" || p == "HCCL" || p == "Overlap Analysis";
}

// "ProfilerStep#12" -> 12, else -1 (not a step range).
int64_t step_of(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix)) return -1;
  name.remove_prefix(kPrefix.size());
  int64_t n = -1;
  auto r = std::from_chars(name.data(), name.data() + name.size(), n);
  if (name.empty() || r.ec != std::errc() || r.ptr != name.data() + name.size() || n < 0) return -1;
  return n;
}

struct Interner {
  std::vector<std::string>& names;
  std::unordered_map<std::string, uint32_t> ids;
  uint32_t get(std::string_view s) {
    auto [it, added] = ids.try_emplace(std::string(s), static_cast<uint32_t>(names.size()));
    if (added) names.emplace_back(s);
    return it->second;
  }
};

}  // namespace

bool host_input_from_trace(const readers::Trace& t, HostInput& out) {
  out = HostInput{};
  Interner names{out.names, {}};
  auto process = [&](int64_t pid) -> std::string_view {
    auto it = t.process_names.find(pid);
    return it == t.process_names.end() ? std::string_view() : std::string_view(it->second);
  };
  // Device tasks by where they are drawn: (pid, tid, start), the point a flow ends at.
  std::map<std::tuple<int64_t, int64_t, int64_t>, size_t> device_at;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const readers::TraceEvent& e = t.events[i];
    const std::string_view proc = process(e.pid);
    const std::string_view name = t.strings.str(e.name);
    if (proc == "Overlap Analysis") {
      out.has_free = true;
      if (e.phase == 'X' && name == "Free") out.free.push_back({e.ts_ns, e.end_ns(), e.dur_us});
      continue;
    }
    if (is_device_process(proc)) {
      if (e.phase == 'X') device_at.try_emplace({e.pid, e.tid, e.ts_ns}, i);
      continue;
    }
    if (e.phase != 'X') continue;
    if (e.kind == readers::EventKind::kCpuOp) {
      if (const int64_t step = step_of(name); step >= 0) {
        out.steps.push_back({step, e.ts_ns, e.end_ns()});
        continue;
      }
      out.ops.push_back({names.get(name), e.tid, e.ts_ns, e.end_ns(), e.dur_us});
    }
    if (const Cause c = cause_of_name(name); c != Cause::kCount)
      out.causes.push_back({c, e.ts_ns, e.end_ns()});
  }
  // Flow starts by (cat, id); each finish on a device task links that task to its start.
  const uint32_t async_npu = t.strings.find("async_npu");
  const uint32_t host_to_device = t.strings.find("HostToDevice");
  std::unordered_map<uint64_t, const readers::FlowEvent*> issued, launched;
  for (const readers::FlowEvent& f : t.flows) {
    if (f.phase != 's') continue;
    if (f.cat == async_npu && async_npu != io::kNoString) issued.try_emplace(f.id, &f);
    if (f.cat == host_to_device && host_to_device != io::kNoString) launched.try_emplace(f.id, &f);
  }
  // Per device task: its issuing operator's flow start and its runtime launch's start.
  std::map<size_t, DeviceLaunch> per_task;
  for (const readers::FlowEvent& f : t.flows) {
    if (f.phase != 'f') continue;
    const bool is_issue = f.cat == async_npu && async_npu != io::kNoString;
    const bool is_launch = f.cat == host_to_device && host_to_device != io::kNoString;
    if (!is_issue && !is_launch) continue;
    auto& starts = is_issue ? issued : launched;
    auto s = starts.find(f.id);
    auto d = device_at.find({f.pid, f.tid, f.ts_ns});
    if (s == starts.end() || d == device_at.end()) continue;
    const readers::TraceEvent& task = t.events[d->second];
    auto [it, added] = per_task.try_emplace(d->second);
    DeviceLaunch& l = it->second;
    if (added) {
      l.tid = s->second->tid;
      l.issue_ns = l.launch_ns = s->second->ts_ns;
      l.device_start_ns = task.ts_ns;
      l.device_us = task.dur_us;
      l.tid = is_issue ? s->second->tid : INT64_MIN;
    }
    if (is_issue) {
      l.tid = s->second->tid;
      l.issue_ns = s->second->ts_ns;
    } else {
      l.launch_ns = s->second->ts_ns;
    }
  }
  for (auto& [idx, l] : per_task) out.launches.push_back(l);
  return !out.ops.empty();
}

}  // namespace cs::host
