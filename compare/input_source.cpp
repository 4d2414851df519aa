#include "compare/input_source.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "cluster/discovery.h"
#include "io/kineto_trace.h"
#include "io/trace_view.h"

namespace cs::compare {

namespace fs = std::filesystem;

namespace {

// First non-blank character of a (possibly gzip) file, '\0' when unreadable or blank.
char first_json_char(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files as they are
  if (!f) return '\0';
  char buf[4096];
  const int n = gzread(f, buf, sizeof buf);
  gzclose(f);
  for (int i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(buf[i]);
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xEF || c == 0xBB || c == 0xBF)
      continue;
    return static_cast<char>(c);
  }
  return '\0';
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_json_name(const std::string& name) {
  return ends_with(name, ".json") || ends_with(name, ".json.gz");
}

// Kineto traces below `dir` (at most 10 levels), sorted by path.
std::vector<std::string> kineto_traces_below(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 10) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    const auto name = it->path().filename().string();
    if (!is_json_name(name) || name == "trace_view.json") continue;
    if (first_json_char(it->path().string()) == '{') {
      // Only traces: the object must hold traceEvents near the start (a quick look).
      gzFile f = gzopen(it->path().c_str(), "rb");
      if (!f) continue;
      std::string head(1 << 16, '\0');
      const int n = gzread(f, head.data(), static_cast<unsigned>(head.size()));
      gzclose(f);
      if (n > 0 &&
          head.substr(0, static_cast<size_t>(n)).find("\"traceEvents\"") != std::string::npos)
        out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool file_side(const std::string& path, SideInput& out, io::Diagnostics& diag) {
  const char c = first_json_char(path);
  out.timeline = path;
  if (c == '{') {
    out.kind = SideKind::kKinetoTrace;
    out.npu = false;
    out.note = "PyTorch profiler (Kineto) trace, GPU";
    return true;
  }
  if (c == '[') {
    out.kind = SideKind::kTraceView;
    out.npu = true;
    out.note = "NPU trace_view.json";
    return true;
  }
  diag.error(path, 1, "not a profiler timeline (neither a JSON object nor a JSON array)",
             "pass a Kineto trace (*.json, *.json.gz), a trace_view.json, a rank directory or a "
             "cluster directory");
  return false;
}

}  // namespace

const char* side_kind_name(SideKind k) {
  switch (k) {
    case SideKind::kKinetoTrace:
      return "Kineto trace";
    case SideKind::kTraceView:
      return "NPU trace_view.json";
    case SideKind::kRankDirectory:
      return "rank directory";
    case SideKind::kClusterDirectory:
      return "cluster directory";
  }
  return "?";
}

bool detect_side(const std::string& path, SideInput& out, io::Diagnostics& diag) {
  out.path = path;
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    diag.error(path, 0, "does not exist", "check the path");
    return false;
  }
  if (fs::is_regular_file(st)) return file_side(path, out, diag);
  if (!fs::is_directory(st)) {
    diag.error(path, 0, "is neither a file nor a directory", "pass a trace file or a directory");
    return false;
  }
  for (const auto& candidate : {fs::path(path) / "ASCEND_PROFILER_OUTPUT" / "trace_view.json",
                                fs::path(path) / "trace_view.json"}) {
    if (fs::is_regular_file(candidate, ec)) {
      out.kind = SideKind::kRankDirectory;
      out.timeline = candidate.string();
      out.npu = true;
      out.note = "NPU rank directory, timeline " + out.timeline;
      return true;
    }
  }
  // Many ranks: NPU rank directories first, then Kineto traces.
  cluster::DiscoveryResult found = cluster::discover_ranks(path);
  if (!found.ranks.empty()) {
    for (const auto& r : found.ranks) {
      const auto tv = fs::path(r.output_dir.empty() ? r.path : r.output_dir) / "trace_view.json";
      const auto tv2 = fs::path(r.path) / "ASCEND_PROFILER_OUTPUT" / "trace_view.json";
      for (const auto& c : {tv, tv2}) {
        if (!fs::is_regular_file(c, ec)) continue;
        out.kind = SideKind::kClusterDirectory;
        out.timeline = c.string();
        out.npu = true;
        out.ranks = static_cast<int>(found.ranks.size());
        out.note = "NPU cluster directory with " + std::to_string(found.ranks.size()) +
                   " ranks; comparing rank " + std::to_string(r.rank) + " (" + out.timeline + ")";
        return true;
      }
    }
    // No timeline: only run vs run (against another cluster directory) can use it.
    out.kind = SideKind::kClusterDirectory;
    out.timeline.clear();
    out.npu = true;
    out.ranks = static_cast<int>(found.ranks.size());
    out.note = "NPU cluster directory with " + std::to_string(found.ranks.size()) +
               " ranks, no trace_view.json";
    return true;
  }
  const auto traces = kineto_traces_below(path);
  if (traces.empty()) {
    diag.error(path, 0, "no profiler timeline found in this directory",
               "pass a Kineto trace, a trace_view.json, a rank directory (*_ascend_pt) or a "
               "directory holding them");
    return false;
  }
  out.timeline = traces.front();
  out.npu = false;
  if (traces.size() == 1) {
    out.kind = SideKind::kKinetoTrace;
    out.note = "directory with one Kineto trace: " + out.timeline;
  } else {
    out.kind = SideKind::kClusterDirectory;
    out.ranks = static_cast<int>(traces.size());
    out.note = "GPU cluster directory with " + std::to_string(traces.size()) +
               " Kineto traces; comparing the first, " + out.timeline;
  }
  return true;
}

bool load_side(const SideInput& in, std::optional<int64_t> step, Profile& out,
               io::Diagnostics& diag) {
  if (in.timeline.empty()) {
    diag.error(in.path, 0, "cluster directory has no trace_view.json in any rank directory",
               "profile with the timeline export on, pass a Kineto trace, or compare it with "
               "another cluster directory (run vs run)");
    return false;
  }
  io::Trace trace;
  const bool ok = in.npu ? io::read_trace_view(in.timeline, trace, diag)
                         : io::read_kineto_trace(in.timeline, trace, diag);
  if (!ok) return false;
  out.source = in.timeline;
  return build_profile(std::move(trace), in.npu, step, out, diag);
}

}  // namespace cs::compare
