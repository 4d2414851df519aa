#include "io/trace_view.h"

#include "io/gzip_input.h"

namespace cs::io {

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

bool parse_trace_view(const simdjson::padded_string& json, const std::string& source, Trace& out,
                      Diagnostics& diag) {
  if (!parse_chrome_trace(json, source, {}, out, diag)) return false;
  if (out.process_names.empty() && !out.events.empty())
    diag.warn(source, 0, "no process_name metadata events",
              "device and overlap events cannot be told apart; was the trace exported completely?");
  for (auto& e : out.events) {
    auto it = out.process_names.find(e.pid);
    if (it == out.process_names.end()) continue;
    e.kind = npu_event_kind(it->second, out.strings.str(e.name), e.kind);
  }
  return true;
}

bool read_trace_view(const std::string& path, Trace& out, Diagnostics& diag) {
  simdjson::padded_string json;
  if (!load_json_maybe_gzip(path, json, diag)) return false;
  return parse_trace_view(json, path, out, diag);
}

}  // namespace cs::io
