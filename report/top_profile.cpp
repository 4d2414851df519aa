#include "report/top_profile.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <unordered_map>

#include "io/kernel_details.h"
#include "io/trace_view.h"
#include "report/top_cost.h"

namespace cs::report {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_trace_name(const std::string& name) {
  return ends_with(name, ".json") || ends_with(name, ".json.gz");
}

// The file to read for a directory: kernel_details.csv in ASCEND_PROFILER_OUTPUT (or anywhere up
// to three levels down), else the only Chrome/Kineto trace. "" with an error when none or many.
std::string resolve_dir(const std::string& dir, io::Diagnostics& diag) {
  for (const char* rel : {"ASCEND_PROFILER_OUTPUT/kernel_details.csv", "kernel_details.csv"}) {
    const fs::path p = fs::path(dir) / rel;
    if (fs::is_regular_file(p)) return p.string();
  }
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
    else if (is_trace_name(name) && name.find("trace") != std::string::npos)
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
    diag.error(dir, 0, "no kernel_details.csv and no trace (*trace*.json[.gz]) found",
               "pass a rank directory with ASCEND_PROFILER_OUTPUT/, a kernel_details.csv or a "
               "Kineto trace");
  }
  return {};
}

bool load_kernel_details(const std::string& path, std::vector<OpCall>& out, io::Diagnostics& diag) {
  return io::read_kernel_details_csv(
      path,
      [&](const io::KernelRecord& k) {
        OpCall c;
        c.name = std::string(k.name);
        c.type = std::string(k.type);
        c.input_shapes = std::string(k.input_shapes);
        c.input_dtypes = std::string(k.input_dtypes);
        c.output_shapes = std::string(k.output_shapes);
        c.dur_us = k.duration_us;
        const auto in = parse_shapes(k.input_shapes), outs = parse_shapes(k.output_shapes);
        c.flops = estimate_flops(k.type, in, outs);
        c.bytes = estimate_bytes(in, k.input_dtypes, outs, "");
        out.push_back(std::move(c));
      },
      diag);
}

bool starts_with_bracket(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  int c;
  while ((c = std::fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
  }
  std::fclose(f);
  return c == '[';
}

}  // namespace

void calls_from_trace(const io::Trace& t, std::vector<OpCall>& out) {
  using io::EventKind;
  // Framework ops and runtime launches per thread, in time order; a stack of open ops gives the
  // innermost op around each launch.
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> per_thread;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const auto& e = t.events[i];
    if (e.phase != 'X') continue;
    if (e.kind == EventKind::kCpuOp || (e.kind == EventKind::kRuntime && e.correlation >= 0))
      per_thread[{e.pid, e.tid}].push_back(i);
  }
  std::unordered_map<int64_t, size_t> launcher;  // correlation -> op event index
  for (auto& [key, idx] : per_thread) {
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      const auto &x = t.events[a], &y = t.events[b];
      if (x.ts_ns != y.ts_ns) return x.ts_ns < y.ts_ns;
      const bool xo = x.kind == EventKind::kCpuOp, yo = y.kind == EventKind::kCpuOp;
      if (xo != yo) return xo;  // an op starting with its launch encloses it
      return x.dur_ns > y.dur_ns;
    });
    std::vector<size_t> open;
    for (size_t i : idx) {
      const auto& e = t.events[i];
      while (!open.empty() && t.events[open.back()].end_ns() < e.ts_ns) open.pop_back();
      if (e.kind == EventKind::kCpuOp) {
        open.push_back(i);
      } else if (!open.empty()) {
        launcher[e.correlation] = open.back();
      }
    }
  }
  for (const auto& e : t.events) {
    if (e.phase != 'X') continue;
    if (e.kind != EventKind::kKernel && e.kind != EventKind::kMemcpy &&
        e.kind != EventKind::kMemset)
      continue;
    OpCall c;
    c.name = std::string(t.strings.str(e.name));
    c.dur_us = e.dur_us;
    c.type = e.kind == EventKind::kKernel ? "kernel" : std::string(t.strings.str(e.cat));
    if (auto it = launcher.find(e.correlation); e.correlation >= 0 && it != launcher.end()) {
      const auto& op = t.events[it->second];
      c.type = std::string(t.strings.str(op.name));
      c.input_shapes = std::string(t.strings.str(op.input_dims));
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
  if (ends_with(used, ".csv")) return load_kernel_details(used, out, diag);
  if (!is_trace_name(used)) {
    diag.error(used, 0, "not a kernel_details.csv or a trace (.json / .json.gz)",
               "pass a rank directory, a kernel_details.csv or a Kineto trace");
    return false;
  }
  io::Trace trace;
  const bool array = ends_with(used, ".json") && starts_with_bracket(used);
  const bool ok =
      array ? io::read_trace_view(used, trace, diag) : io::read_kineto_trace(used, trace, diag);
  if (!ok) return false;
  const size_t before = out.size();
  calls_from_trace(trace, out);
  if (out.size() == before) {
    diag.error(used, 0, "the trace holds no device kernels",
               "profile with device activities on (ProfilerActivity.CUDA / NPU)");
    return false;
  }
  return true;
}

}  // namespace cs::report
