#include "readers/trace_view.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "io/json/gzip_input.h"

namespace cs::readers {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool has_any(std::string_view hay, std::initializer_list<std::string_view> needles) {
  for (auto n : needles)
    if (hay.find(n) != std::string_view::npos) return true;
  return false;
}

// A task type or name of HCCL's own synchronisation (notify): only collectives use it.
bool is_notify(std::string_view up) {
  return up.find("NOTIFY") != std::string_view::npos;
}

}  // namespace

EventKind npu_event_kind(std::string_view process_name, std::string_view event_name,
                         EventKind from_cat) {
  const bool hcom = event_name.substr(0, 5) == "hcom_";
  if (process_name == "Ascend Hardware")
    return hcom ? EventKind::kCommunication : EventKind::kKernel;
  if (process_name == "HCCL") return hcom ? EventKind::kCommunication : EventKind::kOther;
  if (process_name == "CANN") return EventKind::kRuntime;
  if (process_name == "Overlap Analysis") return EventKind::kOverlap;
  return from_cat;
}

NpuTaskClass npu_task_class(std::string_view task_type, std::string_view name) {
  const std::string t = upper(task_type), n = upper(name);
  if (n.substr(0, 5) == "HCOM_") return NpuTaskClass::kCommunication;
  for (const std::string& s : {t, n}) {
    if (is_notify(s) || has_any(s, {"EVENT_WAIT", "EVENT_RECORD", "EVENT WAIT", "EVENT RECORD",
                                    "WRITE VALUE", "WRITE_VALUE", "PLACE_HOLDER", "BARRIER"}))
      return NpuTaskClass::kWait;
    if (has_any(s, {"SDMA", "PCIE_DMA", "RDMA", "MEMCPY_ASYNC", "REDUCE_INLINE"}) || s == "MEMCPY")
      return NpuTaskClass::kDma;
  }
  return NpuTaskClass::kCompute;
}

std::set<int64_t> npu_communication_streams(const Trace& t) {
  std::set<int64_t> streams;
  std::set<int64_t> hccl_pids, hw_pids;
  for (const auto& [pid, name] : t.process_names) {
    if (name == "HCCL") hccl_pids.insert(pid);
    if (name == "Ascend Hardware") hw_pids.insert(pid);
  }
  // The streams HCCL's own tasks name ("stream id" args of its Plane threads).
  for (const auto& [pid, stream] : t.task_streams)
    if (hccl_pids.count(pid)) streams.insert(stream);
  // Streams that hold notify tasks or hcom_* tasks (older traces without HCCL task args).
  for (const auto& e : t.events) {
    if (e.phase != 'X' || !hw_pids.count(e.pid)) continue;
    const std::string n = upper(t.strings.str(e.name));
    if (n.substr(0, 5) == "HCOM_" || is_notify(n) || is_notify(upper(t.strings.str(e.task_type))))
      streams.insert(e.tid);
  }
  return streams;
}

bool has_hccl_process_ops(const Trace& t) {
  for (const auto& e : t.events) {
    if (e.kind != EventKind::kCommunication) continue;
    auto pn = t.process_names.find(e.pid);
    if (pn != t.process_names.end() && pn->second == "HCCL") return true;
  }
  return false;
}

bool is_npu_comm_op(const Trace& t, const TraceEvent& e, bool hccl_process_ops) {
  if (e.kind != EventKind::kCommunication || e.phase != 'X') return false;
  if (t.strings.str(e.name).substr(0, 5) != "hcom_") return false;
  if (!hccl_process_ops) return true;
  auto pn = t.process_names.find(e.pid);
  return pn != t.process_names.end() && pn->second == "HCCL";
}

bool parse_trace_view(const simdjson::padded_string& json, const std::string& source, Trace& out,
                      io::Diagnostics& diag) {
  if (!parse_chrome_trace(json, source, {}, out, diag)) return false;
  if (out.process_names.empty() && !out.events.empty())
    diag.warn(source, 0, "no process_name metadata events",
              "device and overlap events cannot be told apart; was the trace exported completely?");
  for (auto& e : out.events) {
    auto it = out.process_names.find(e.pid);
    if (it == out.process_names.end()) continue;
    e.kind = npu_event_kind(it->second, out.strings.str(e.name), e.kind);
  }
  // Device tasks by what they are: the tasks of a collective's streams are communication; on
  // other streams, waits and DMA are told from compute by their task type.
  const std::set<int64_t> comm_streams = npu_communication_streams(out);
  for (auto& e : out.events) {
    if (e.kind != EventKind::kKernel) continue;
    if (comm_streams.count(e.tid)) {
      e.kind = EventKind::kCommunication;
      continue;
    }
    switch (npu_task_class(out.strings.str(e.task_type), out.strings.str(e.name))) {
      case NpuTaskClass::kCompute:
        break;
      case NpuTaskClass::kCommunication:
        e.kind = EventKind::kCommunication;
        break;
      case NpuTaskClass::kWait:
        e.kind = EventKind::kDeviceWait;
        break;
      case NpuTaskClass::kDma:
        e.kind = EventKind::kDeviceDma;
        break;
    }
  }
  return true;
}

bool read_trace_view(const std::string& path, Trace& out, io::Diagnostics& diag) {
  simdjson::padded_string json;
  if (!io::load_json_maybe_gzip(path, json, diag)) return false;
  return parse_trace_view(json, path, out, diag);
}

}  // namespace cs::readers
