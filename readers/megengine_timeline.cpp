#include "readers/megengine_timeline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "io/json/gzip_input.h"
#include "io/json/json_input.h"

namespace cs::readers {

namespace dom = simdjson::dom;

namespace {

// A B or E event as written, before pairing.
struct Edge {
  int64_t pid = 0, tid = 0, ts_ns = 0;
  std::string name, cat;
  bool op_detail = false;  // args "__id__" (an op's details)
  bool exec_time = false;  // args "execution_time" (a CUPTI kernel)
  bool bytes = false;      // args "bytes" (a CUPTI memcpy / memset)
  char ph = 'B';
};

bool number(dom::element e, double& out) {
  if (e.is_double()) return e.get_double().get(out) == simdjson::SUCCESS;
  int64_t i;
  if (e.get_int64().get(i) == simdjson::SUCCESS) {
    out = static_cast<double>(i);
    return true;
  }
  uint64_t u;
  if (e.get_uint64().get(u) == simdjson::SUCCESS) {
    out = static_cast<double>(u);
    return true;
  }
  return false;
}

std::string string_member(dom::object o, std::string_view key) {
  std::string_view s;
  if (o[key].get_string().get(s)) return {};
  return std::string(s);
}

// µs as written -> ns; false when not a finite number in range.
bool ts_of(dom::object o, int64_t& ns) {
  dom::element e;
  double us;
  // Within +-2^62 ns (4.6e15 us, 146 years from 1970): an event's duration, the difference of
  // two such times, fits in 64 bits.
  if (o["ts"].get(e) || !number(e, us) || !std::isfinite(us) || std::fabs(us) >= 4.6e15)
    return false;
  ns = std::llround(us * 1000.0);
  return true;
}

// MegEngine ends a CUPTI kernel's KernelLink flow at the kernel's END on its stream (the launch
// starts it inside the op executing on the worker); every reader here links a flow where a
// kernel STARTS. Move each such flow end to the start of the kernel that ends there on that
// thread, so the kernel is linked to its op like any other.
void link_cupti_kernels(Trace& t) {
  const uint32_t link = t.strings.find("KernelLink");
  if (link == io::kNoString) return;
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> start_of;  // (pid, tid, end) -> start
  for (const auto& e : t.events)
    if (e.kind == EventKind::kKernel)
      start_of.emplace(std::make_tuple(e.pid, e.tid, e.end_ns()), e.ts_ns);
  for (auto& f : t.flows) {
    if (f.phase != 'f' || f.cat != link) continue;
    auto it = start_of.find({f.pid, f.tid, f.ts_ns});
    if (it != start_of.end()) f.ts_ns = it->second;
  }
}

}  // namespace

bool is_megengine_collective(std::string_view n) {
  return n == "CollectiveComm" || n == "RemoteSend" || n == "RemoteRecv";
}

bool is_megengine_device_name(std::string_view n) {
  for (std::string_view p : {"gpu", "cpu", "xpu", "atlas", "rocm", "cambricon", "multithread"}) {
    if (!n.starts_with(p)) continue;
    const std::string_view rest = n.substr(p.size());
    const size_t colon = rest.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    const std::string_view dev = rest.substr(0, colon);
    return dev == "x" ||
           std::all_of(dev.begin(), dev.end(), [](char c) { return c >= '0' && c <= '9'; });
  }
  return false;
}

bool parse_megengine_timeline(const simdjson::padded_string& json, const std::string& source,
                              Trace& out, io::Diagnostics& diag) {
  out.bytes = json.size();
  dom::parser parser;
  dom::element doc;
  if (auto err = parser.parse(json).get(doc)) {
    io::report_json_error(json, source, err, diag);
    return false;
  }
  dom::array events;
  if (doc["traceEvents"].get_array().get(events)) {
    diag.error(source, 0, "no traceEvents array",
               "this is not a MegEngine chrome_timeline.json; pass the file "
               "megengine.utils.profiler wrote with the chrome_timeline format");
    return false;
  }
  std::vector<Edge> edges;
  size_t bad = 0;
  for (dom::element el : events) {
    ++out.total_events;
    dom::object o;
    std::string_view ph;
    if (el.get_object().get(o) || o["ph"].get_string().get(ph) || ph.size() != 1) {
      ++bad;
      continue;
    }
    int64_t pid = 0, tid = 0;
    if (o["pid"].get_int64().get(pid)) pid = 0;  // absent: one process
    if (o["tid"].get_int64().get(tid)) tid = 0;
    dom::object args;
    const bool has_args = o["args"].get_object().get(args) == simdjson::SUCCESS;
    const char p = ph[0];
    if (p == 'M') {
      const std::string name = string_member(o, "name");
      const std::string value = has_args ? string_member(args, "name") : "";
      if (name == "thread_name") out.thread_names[{pid, tid}] = value;
      if (name == "process_name") out.process_names[pid] = value;
      continue;
    }
    if (p != 'B' && p != 'E' && p != 's' && p != 't' && p != 'f' && p != 'X') continue;
    int64_t ts;
    if (!ts_of(o, ts)) {
      ++bad;
      continue;
    }
    if (p == 's' || p == 't' || p == 'f') {
      FlowEvent f;
      f.ts_ns = ts;
      f.pid = pid;
      f.tid = tid;
      f.phase = p;
      uint64_t id;
      if (o["id"].get_uint64().get(id)) {
        ++bad;
        continue;
      }
      f.id = id;
      f.cat = out.strings.intern(string_member(o, "cat"));
      f.bind_enclosing = string_member(o, "bp") == "e";
      out.flows.push_back(f);
      continue;
    }
    if (p == 'X') {  // TensorGetProp instants (dur 0): kept as they are
      TraceEvent e;
      e.ts_ns = ts;
      e.pid = pid;
      e.tid = tid;
      e.name = out.strings.intern(string_member(o, "name"));
      out.events.push_back(e);
      continue;
    }
    Edge e;
    e.pid = pid;
    e.tid = tid;
    e.ts_ns = ts;
    e.ph = p;
    e.name = string_member(o, "name");
    e.cat = string_member(o, "cat");
    if (has_args) {
      dom::element v;
      e.op_detail = args["__id__"].get(v) == simdjson::SUCCESS;
      e.exec_time = args["execution_time"].get(v) == simdjson::SUCCESS;
      e.bytes = args["bytes"].get(v) == simdjson::SUCCESS;
    }
    edges.push_back(std::move(e));
  }
  bool cupti = false;
  for (const auto& e : edges) cupti = cupti || e.exec_time;
  std::map<std::pair<int64_t, int64_t>, bool> device_thread;
  for (const auto& [key, name] : out.thread_names)
    device_thread[key] = is_megengine_device_name(name);
  // Pair per thread: an E closes the innermost open B of its name.
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> open;
  size_t unpaired = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    const Edge& e = edges[i];
    auto& stack = open[{e.pid, e.tid}];
    if (e.ph == 'B') {
      stack.push_back(i);
      continue;
    }
    auto it = std::find_if(stack.rbegin(), stack.rend(),
                           [&](size_t b) { return edges[b].name == e.name; });
    if (it == stack.rend()) {
      ++unpaired;
      continue;
    }
    const Edge& b = edges[*it];
    unpaired += static_cast<size_t>(std::distance(stack.rbegin(), it));
    stack.erase(std::next(it).base(), stack.end());
    if (e.ts_ns < b.ts_ns) {
      ++bad;
      continue;
    }
    TraceEvent x;
    x.ts_ns = b.ts_ns;
    x.dur_ns = e.ts_ns - b.ts_ns;
    x.dur_us = static_cast<double>(x.dur_ns) / 1000.0;
    x.pid = e.pid;
    x.tid = e.tid;
    x.name = out.strings.intern(e.name);
    const std::string& cat = b.cat.empty() ? e.cat : b.cat;
    if (!cat.empty()) x.cat = out.strings.intern(cat);
    const bool device = device_thread[{e.pid, e.tid}] || cat == "Kernel";
    const bool detail = b.op_detail || e.op_detail;
    if (b.exec_time || e.exec_time) {
      x.kind = EventKind::kKernel;  // CUPTI kernel on a stream
    } else if ((b.bytes || e.bytes) && (e.name == "Memcpy" || e.name == "Memset")) {
      x.kind = e.name == "Memcpy" ? EventKind::kMemcpy : EventKind::kMemset;
    } else if (device && cat == "Kernel") {
      x.kind = cupti ? EventKind::kGpuUserAnnotation : EventKind::kKernel;
    } else if (device && e.name == "HostToDevice") {
      x.kind = cupti ? EventKind::kGpuUserAnnotation : EventKind::kMemcpy;
      if (x.cat == io::kNoString) x.cat = out.strings.intern("Memcpy");
    } else if (!device && detail && e.name != "OpDispatch") {
      x.kind = EventKind::kCpuOp;  // an op's execution on the worker
    }
    out.events.push_back(x);
  }
  for (const auto& [key, stack] : open) unpaired += stack.size();
  std::stable_sort(out.events.begin(), out.events.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.ts_ns < b.ts_ns; });
  link_cupti_kernels(out);
  for (const auto& [key, name] : out.thread_names)
    if (!out.process_names.count(key.first)) out.process_names[key.first] = "MegEngine";
  out.skipped_events = bad;
  if (bad)
    diag.warn(source, 0, std::to_string(bad) + " events are malformed (no ph, ts or id)",
              "they were left out; check the file is complete");
  if (unpaired)
    diag.warn(source, 0, std::to_string(unpaired) + " begin/end events have no partner",
              "they were left out (a profile stopped mid-op?)");
  return true;
}

bool read_megengine_timeline(const std::string& path, Trace& out, io::Diagnostics& diag) {
  simdjson::padded_string json;
  if (!io::load_json_maybe_gzip(path, json, diag)) return false;
  return parse_megengine_timeline(json, path, out, diag);
}

}  // namespace cs::readers
