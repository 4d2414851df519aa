#include "top/top_profile.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "io/input_kind.h"
#include "readers/kernel_details.h"
#include "readers/timeline_reader.h"
#include "readers/trace_content.h"
#include "readers/trace_view.h"
#include "top/top_cost.h"
#include "top/top_db.h"
#include "top/top_formats.h"
#include "top/top_megengine.h"

namespace cs::top {

namespace fs = std::filesystem;

namespace {

bool is_trace(const io::InputClass& c) {
  return io::is_timeline_kind(c.kind);
}

// The file to read for a directory: a rank directory's kernel_details.csv (else its
// trace_view.json, else its ascend_pytorch_profiler_N.db), else the only kernel_details.csv or
// timeline up to three levels down (io/input_kind.h decides what a file is). "" with an error when
// none or many.
std::string resolve_dir(const std::string& dir, io::Diagnostics& diag) {
  const io::InputClass self = io::classify_input(dir);
  if (!self.kernel_details.empty()) return self.kernel_details;
  if (!self.trace_view.empty()) return self.trace_view;
  if (const std::string db = profiler_db_in(dir); !db.empty()) return db;
  std::vector<std::string> kernels, traces;
  std::error_code ec;
  for (auto it =
           fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() > 3) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    const std::string name = it->path().filename().string();
    if (name == "kernel_details.csv")
      kernels.push_back(it->path().string());
    else if ((name.ends_with(".json") || name.ends_with(".json.gz")) &&
             is_trace(io::classify_input(it->path().string())))
      traces.push_back(it->path().string());
  }
  std::sort(kernels.begin(), kernels.end());
  std::sort(traces.begin(), traces.end());
  if (kernels.size() == 1) return kernels[0];
  if (kernels.empty() && traces.size() == 1) return traces[0];
  const auto& many = kernels.size() > 1 ? kernels : traces;
  if (many.size() > 1) {
    diag.error(dir, 0,
               std::to_string(many.size()) + " profiles found (" + many[0] + ", " + many[1] +
                   (many.size() > 2 ? ", ..." : "") + ")",
               "pass one rank directory or one file");
  } else {
    diag.error(dir, 0,
               "no kernel_details.csv and no timeline (Kineto trace, trace_view.json) found",
               "pass a rank directory with ASCEND_PROFILER_OUTPUT/, a kernel_details.csv, an "
               "ascend_pytorch_profiler_N.db or a Kineto trace");
  }
  return {};
}

bool load_kernel_details(const std::string& path, std::vector<OpCall>& out, io::Diagnostics& diag) {
  return readers::read_kernel_details_csv(
      path,
      [&](const readers::KernelRecord& k) {
        OpCall c;
        c.name = std::string(k.name);
        c.type = std::string(k.type);
        c.input_shapes = std::string(k.input_shapes);
        c.input_dtypes = std::string(k.input_dtypes);
        c.output_shapes = std::string(k.output_shapes);
        c.dur_us = k.duration_us;
        const auto in = parse_shapes(k.input_shapes), outs = parse_shapes(k.output_shapes);
        c.flops = estimate_flops_with_formats(k.type, in, k.input_formats, outs, k.output_formats);
        c.bytes = estimate_bytes(in, k.input_dtypes, outs, "");
        out.push_back(std::move(c));
      },
      diag);
}

}  // namespace

namespace {

// A shape cell on one line: pretty-printed JSON loses its line breaks and indentation ("[[1, 2],
// [3]]", as compact traces write it), NPU "a,b;\r\nc;\r\n" its blanks ("a,b;c;").
std::string one_line_shapes(std::string_view s) {
  std::string out;
  const bool json = s.find('[') != std::string_view::npos;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') continue;
    out += c;
    if (c == ',' && json) out += ' ';
  }
  return out;
}

}  // namespace

std::string hcom_type(std::string_view name) {
  const size_t at = name.find("__");
  return std::string(at == std::string_view::npos ? name : name.substr(0, at + 1));
}

void calls_from_trace(const readers::Trace& t, std::vector<OpCall>& out) {
  using readers::EventKind;
  // Launch points: Kineto runtime calls (by correlation id) and NPU flow starts (async_npu,
  // HostToDevice...: by the (pid, tid, ts) where the flow ends on the device).
  struct Launch {
    int64_t pid, tid, ts;
    size_t event = SIZE_MAX;  // the runtime event, or
    size_t flow = SIZE_MAX;   // the flow start
  };
  std::vector<Launch> launches;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const auto& e = t.events[i];
    if (e.phase == 'X' && e.kind == EventKind::kRuntime && e.correlation >= 0)
      launches.push_back({e.pid, e.tid, e.ts_ns, i, SIZE_MAX});
  }
  std::unordered_map<uint64_t, size_t> flow_start;  // (id, cat) -> flow index
  const uint32_t fwdbwd = t.strings.find("fwdbwd");
  const uint32_t task_queue = t.strings.find("async_task_queue");
  auto flow_key = [](const readers::FlowEvent& f) { return f.id * 1000003u ^ f.cat; };
  for (size_t i = 0; i < t.flows.size(); ++i) {
    const auto& f = t.flows[i];
    if (f.phase == 's' && f.cat != fwdbwd && f.cat != task_queue) {
      flow_start.emplace(flow_key(f), i);
      launches.push_back({f.pid, f.tid, f.ts_ns, SIZE_MAX, i});
    }
  }
  // Framework ops and launch points per thread, in time order; a stack of open ops gives the
  // innermost op around each launch.
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> per_thread;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const auto& e = t.events[i];
    if (e.phase == 'X' && e.kind == EventKind::kCpuOp)
      per_thread[{e.pid, e.tid}].push_back({static_cast<int64_t>(i), 0});
  }
  for (size_t l = 0; l < launches.size(); ++l)
    per_thread[{launches[l].pid, launches[l].tid}].push_back({-1 - static_cast<int64_t>(l), 0});
  auto ts_of = [&](int64_t item) {
    return item >= 0 ? t.events[static_cast<size_t>(item)].ts_ns
                     : launches[static_cast<size_t>(-1 - item)].ts;
  };
  // The innermost op, and the innermost one with input dims (an aclnn* op inside aten::mm has
  // none), as event indexes.
  using Launcher = std::pair<size_t, size_t>;
  std::unordered_map<int64_t, Launcher> by_corr;  // correlation -> launcher
  std::unordered_map<size_t, Launcher> by_flow;   // flow start index -> launcher
  for (auto& [key, items] : per_thread) {
    std::sort(items.begin(), items.end(), [&](const auto& a, const auto& b) {
      const int64_t x = ts_of(a.first), y = ts_of(b.first);
      if (x != y) return x < y;
      const bool xo = a.first >= 0, yo = b.first >= 0;
      if (xo != yo) return xo;  // an op starting with its launch encloses it
      if (xo)
        return t.events[static_cast<size_t>(a.first)].dur_ns >
               t.events[static_cast<size_t>(b.first)].dur_ns;
      return false;
    });
    std::vector<size_t> open;
    for (const auto& [item, unused] : items) {
      const int64_t ts = ts_of(item);
      while (!open.empty() && t.events[open.back()].end_ns() < ts) open.pop_back();
      if (item >= 0) {
        open.push_back(static_cast<size_t>(item));
        continue;
      }
      if (open.empty()) continue;
      Launcher who{open.back(), open.back()};
      for (size_t k = open.size(); k-- > 0;)
        if (t.events[open[k]].input_dims != io::kNoString) {
          who.second = open[k];
          break;
        }
      const Launch& l = launches[static_cast<size_t>(-1 - item)];
      if (l.event != SIZE_MAX)
        by_corr[t.events[l.event].correlation] = who;
      else
        by_flow[l.flow] = who;
    }
  }
  // Device end of each flow: (pid, tid, ts) -> flow start index.
  std::multimap<std::tuple<int64_t, int64_t, int64_t>, size_t> flow_at;
  for (const auto& f : t.flows) {
    if (f.phase != 'f') continue;
    auto s = flow_start.find(flow_key(f));
    if (s != flow_start.end() && t.flows[s->second].id == f.id)
      flow_at.emplace(std::make_tuple(f.pid, f.tid, f.ts_ns), s->second);
  }
  const bool hccl_ops = readers::has_hccl_process_ops(t);
  for (const auto& e : t.events) {
    if (e.phase != 'X') continue;
    const bool comm = readers::is_npu_comm_op(t, e, hccl_ops);
    if (!comm && e.kind != EventKind::kKernel && e.kind != EventKind::kMemcpy &&
        e.kind != EventKind::kMemset)
      continue;
    OpCall c;
    c.name = std::string(t.strings.str(e.name));
    c.dur_us = e.dur_us;
    if (comm) {
      c.type = hcom_type(c.name);
    } else if (e.kind == EventKind::kKernel) {
      c.type = e.task_type != io::kNoString ? std::string(t.strings.str(e.task_type)) : "kernel";
    } else {
      c.type = std::string(t.strings.str(e.cat));
    }
    const Launcher* who = nullptr;
    if (auto it = by_corr.find(e.correlation); e.correlation >= 0 && it != by_corr.end())
      who = &it->second;
    if (!who) {
      auto [from, to] = flow_at.equal_range({e.pid, e.tid, e.ts_ns});
      for (auto f = from; f != to && !who; ++f)
        if (auto it = by_flow.find(f->second); it != by_flow.end()) who = &it->second;
    }
    if (who && !comm) {
      c.type = std::string(t.strings.str(t.events[who->first].name));
      c.input_shapes = one_line_shapes(t.strings.str(t.events[who->second].input_dims));
    }
    const auto in = parse_shapes(c.input_shapes);
    c.flops = estimate_flops(c.type, in, {});
    c.bytes = std::numeric_limits<double>::quiet_NaN();
    out.push_back(std::move(c));
  }
}

bool load_op_calls(const std::string& profile, std::vector<OpCall>& out, std::string& used,
                   io::Diagnostics& diag) {
  std::error_code ec;
  if (fs::is_directory(profile, ec)) {
    used = resolve_dir(profile, diag);
    if (used.empty()) return false;
  } else if (fs::is_regular_file(profile, ec)) {
    used = profile;
  } else {
    diag.error(profile, 0, "no such file or directory", "check the path");
    return false;
  }
  const io::InputClass c = io::classify_input(used);
  if (c.kind == io::InputKind::kKernelDetails) return load_kernel_details(used, out, diag);
  if (c.kind == io::InputKind::kDbExport) {
    if (fs::path(used).filename() != "analysis.db") return load_profiler_db(used, out, diag);
    diag.error(used, 0, "analysis.db holds the communication and step analyses, not kernels",
               "pass the rank directory or its ascend_pytorch_profiler_N.db");
    return false;
  }
  if (c.kind == io::InputKind::kMegEngineProfile) return load_megengine_profile(used, out, diag);
  if (!is_trace(c)) {
    diag.error(used, 0,
               std::string("not a kernel_details.csv or a timeline (") +
                   io::input_kind_name(c.kind) + ": " + c.reason + ")",
               "pass a rank directory, a kernel_details.csv, a Kineto trace or a MegEngine "
               "profile");
    return false;
  }
  readers::Trace trace;
  if (!readers::read_timeline(used, c.kind, trace, diag)) return false;
  const size_t before = out.size();
  calls_from_trace(trace, out);
  if (out.size() == before) {
    const readers::TraceContent content = readers::trace_content(trace);
    diag.error(used, 0, content.summary, content.hint);
    return false;
  }
  return true;
}

}  // namespace cs::top
