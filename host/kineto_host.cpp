// host_input_from_kineto: a Kineto trace's host side to HostInput (see kineto_host.h).

#include "host/kineto_host.h"

#include <charconv>
#include <string_view>
#include <unordered_map>

#include "host/device_free.h"

namespace cs::host {

namespace {

int64_t step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix)) return -1;
  name.remove_prefix(kPrefix.size());
  int64_t n = -1;
  auto r = std::from_chars(name.data(), name.data() + name.size(), n);
  return name.empty() || r.ec != std::errc() || r.ptr != name.data() + name.size() ? -1 : n;
}

bool is_device_work(readers::EventKind k) {
  return k == readers::EventKind::kKernel || k == readers::EventKind::kMemcpy ||
         k == readers::EventKind::kMemset;
}

}  // namespace

bool host_input_from_kineto(const readers::Trace& t, HostInput& out) {
  out = HostInput{};
  std::unordered_map<std::string_view, uint32_t> ids;
  std::unordered_map<int64_t, const readers::TraceEvent*> launch_of;  // correlation -> runtime call
  std::unordered_map<int64_t, bool> step_seen;
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (const readers::TraceEvent& e : t.events) {
    if (e.phase != 'X') continue;
    const std::string_view name = t.strings.str(e.name);
    if (e.kind == readers::EventKind::kRuntime && e.correlation >= 0)
      launch_of.try_emplace(e.correlation, &e);
    if (is_device_work(e.kind)) busy.push_back({e.ts_ns, e.end_ns()});
    if (e.kind != readers::EventKind::kCpuOp && e.kind != readers::EventKind::kUserAnnotation &&
        e.kind != readers::EventKind::kRuntime && e.kind != readers::EventKind::kSync &&
        e.kind != readers::EventKind::kPythonFunction)
      continue;
    if (const int64_t step = step_number(name); step >= 0) {
      if (e.kind != readers::EventKind::kPythonFunction && step_seen.try_emplace(step, true).second)
        out.steps.push_back({step, e.ts_ns, e.end_ns()});
      continue;
    }
    if (e.kind == readers::EventKind::kCpuOp) {
      auto [it, added] = ids.try_emplace(name, static_cast<uint32_t>(out.names.size()));
      if (added) out.names.emplace_back(name);
      out.ops.push_back({it->second, e.tid, e.ts_ns, e.end_ns(), e.dur_us});
    }
    if (const Cause c = cause_of_name(name); c != Cause::kCount)
      out.causes.push_back({c, e.ts_ns, e.end_ns()});
  }
  for (const readers::TraceEvent& e : t.events) {
    if (e.phase != 'X' || !is_device_work(e.kind) || e.correlation < 0) continue;
    auto l = launch_of.find(e.correlation);
    if (l == launch_of.end()) continue;
    DeviceLaunch d;
    d.tid = l->second->tid;
    d.issue_ns = d.launch_ns = l->second->ts_ns;
    d.device_start_ns = e.ts_ns;
    d.device_us = e.dur_us;
    out.launches.push_back(d);
  }
  out.has_free = !busy.empty();
  out.free = free_from_busy(std::move(busy), out.steps);
  return !out.ops.empty();
}

}  // namespace cs::host
