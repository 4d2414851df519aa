#include "io/input_kind.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "io/input_file.h"

namespace cs::io {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
constexpr std::string_view kMergedMark = "\"merged_by\":\"clusterscope merge\"";

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// First non-blank character (after a UTF-8 BOM), '\0' when none.
char first_char(std::string_view s) {
  if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  for (char c : s)
    if (!is_space(c)) return c;
  return '\0';
}

// True when `key` appears as a JSON key whose value starts with `value_start` ('"' for a
// string), allowing blanks around the colon (pretty-printed traces).
bool has_key_with(std::string_view head, std::string_view key, char value_start) {
  for (size_t at = head.find(key); at != std::string_view::npos; at = head.find(key, at + 1)) {
    size_t i = at + key.size();
    while (i < head.size() && is_space(head[i])) ++i;
    if (i >= head.size() || head[i] != ':') continue;
    ++i;
    while (i < head.size() && is_space(head[i])) ++i;
    if (i < head.size() && head[i] == value_start) return true;
  }
  return false;
}

// distributedInfo.rank from the text of a trace's head, -1 when not there.
int rank_in_head(std::string_view head) {
  const size_t at = head.find("\"distributedInfo\"");
  if (at == std::string_view::npos) return -1;
  const size_t end = head.find('}', at);
  const std::string_view info =
      head.substr(at, end == std::string_view::npos ? head.npos : end - at);
  const size_t k = info.find("\"rank\"");
  if (k == std::string_view::npos) return -1;
  size_t i = k + 6;
  while (i < info.size() && is_space(info[i])) ++i;
  if (i >= info.size() || info[i] != ':') return -1;
  ++i;
  while (i < info.size() && is_space(info[i])) ++i;
  int64_t r = 0;
  size_t digits = 0;
  for (; i < info.size() && std::isdigit(static_cast<unsigned char>(info[i])) && digits < 9;
       ++i, ++digits)
    r = r * 10 + (info[i] - '0');
  return digits > 0 ? static_cast<int>(r) : -1;
}

// The Ascend marks of an NPU timeline in the head of a JSON array, "" when none.
std::string_view ascend_mark(std::string_view head) {
  for (std::string_view m : {"\"Ascend Hardware\"", "\"Overlap Analysis\"", "\"Task Type\"",
                             "\"async_npu\"", "\"HostToDevice\"", "\"CANN\"", "\"HCCL\""})
    if (head.find(m) != std::string_view::npos) return m;
  if (has_key_with(head, "\"ts\"", '"')) return "string \"ts\" values";
  return {};
}

bool is_db_export_name(std::string_view n) {
  if (n == "analysis.db") return true;
  if (!n.ends_with(".db")) return false;
  for (std::string_view p : {"ascend_pytorch_profiler", "ascend_mindspore_profiler", "msprof_"})
    if (n.starts_with(p)) return true;
  return false;
}

struct Head {
  std::string text;
  bool gzip = false;
  bool full = false;  // kSniffBytes were read: the file goes on
  std::string error;  // when unreadable
};

Head read_head(const std::string& path) {
  Head h;
  {
    // A FIFO or device is refused here (gzopen would block on a FIFO), with the errno's words.
    Diagnostics d;
    uint64_t size = 0;
    const int fd = open_input_file(path, d, size, /*allow_empty=*/true);
    if (fd < 0) {
      h.error = d.items().empty() ? std::string("cannot open") : d.items()[0].what;
      return h;
    }
    unsigned char magic[2] = {0, 0};
    h.gzip = ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    ::close(fd);
  }
  gzFile g = gzopen(path.c_str(), "rb");  // reads plain files as they are
  if (!g) {
    h.error = std::string("cannot open: ") + std::strerror(errno);
    return h;
  }
  h.text.resize(kSniffBytes);
  const int n = gzread(g, h.text.data(), static_cast<unsigned>(h.text.size()));
  if (n < 0) {
    int zerr = 0;
    const char* msg = gzerror(g, &zerr);
    std::string_view why = msg ? msg : "corrupt gzip data";
    if (why.starts_with(path + ": ")) why.remove_prefix(path.size() + 2);
    h.error = "cannot read: " + std::string(why);
    h.text.clear();
  } else if (n == 0 && h.gzip) {
    int zerr = 0;
    const char* msg = gzerror(g, &zerr);
    h.error = std::string("cannot read: ") +
              (zerr != Z_OK && msg && *msg ? msg : "gzip data holds nothing or is corrupt");
  } else {
    h.text.resize(static_cast<size_t>(n));
    h.full = static_cast<size_t>(n) == kSniffBytes;
  }
  gzclose(g);
  return h;
}

// Searches the rest of a file (past its head) for `needle`; for a JSON object whose
// "traceEvents" comes after a large metadata block.
bool found_later(const std::string& path, std::string_view needle) {
  gzFile g = gzopen(path.c_str(), "rb");
  if (!g) return false;
  std::string buf(kSniffBytes, '\0');
  std::string carry;
  bool found = false;
  for (;;) {
    const int n = gzread(g, buf.data(), static_cast<unsigned>(buf.size()));
    if (n <= 0) break;
    std::string window = carry + buf.substr(0, static_cast<size_t>(n));
    if (window.find(needle) != std::string::npos) {
      found = true;
      break;
    }
    carry = window.substr(window.size() > needle.size() ? window.size() - needle.size() : 0);
  }
  gzclose(g);
  return found;
}

// MegEngine's dynamic-graph timeline: its flow categories and the op details ("__id__",
// "__device__") of its events. "" when none is in `head`.
std::string_view megengine_mark(std::string_view head) {
  for (std::string_view m :
       {"\"OpDispatch\"", "\"KernelLaunch\"", "\"TensorLink\"", "\"__device__\"", "\"__id__\""})
    if (head.find(m) != std::string_view::npos) return m;
  return {};
}

InputClass classify_file(const std::string& path) {
  Head h = read_head(path);
  if (!h.error.empty()) {
    InputClass c;
    c.kind = InputKind::kUnreadable;
    c.reason = h.error;
    return c;
  }
  InputClass c = classify_head(fs::path(path).filename().string(), h.text);
  c.gzip = h.gzip;
  if (c.kind == InputKind::kOtherJson && h.full && first_char(h.text) == '{' &&
      found_later(path, "\"traceEvents\"")) {
    c.kind = InputKind::kKinetoTrace;
    c.reason = "Kineto trace (JSON object, traceEvents after a long header)";
  }
  if (h.gzip) c.reason += ", gzip";
  return c;
}

void fill_rank_dir(const fs::path& dir, InputClass& c) {
  std::error_code ec;
  fs::path out = dir;
  if (dir.filename() != "ASCEND_PROFILER_OUTPUT" &&
      fs::is_directory(dir / "ASCEND_PROFILER_OUTPUT", ec))
    out = dir / "ASCEND_PROFILER_OUTPUT";
  c.output_dir = out.string();
  for (const fs::path& d : {out, dir}) {
    if (c.trace_view.empty() && fs::is_regular_file(d / "trace_view.json", ec))
      c.trace_view = (d / "trace_view.json").string();
    if (c.kernel_details.empty() && fs::is_regular_file(d / "kernel_details.csv", ec))
      c.kernel_details = (d / "kernel_details.csv").string();
  }
  for (auto it = fs::directory_iterator(out, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (is_db_export_name(n) && (c.db.empty() || n != "analysis.db")) c.db = it->path().string();
  }
}

bool holds_profiler_info(const fs::path& dir) {
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.starts_with("profiler_info") && n.ends_with(".json")) return true;
  }
  return false;
}

InputClass classify_dir(const std::string& path) {
  InputClass c;
  fs::path p(path);
  while (p.has_relative_path() && p.filename().empty()) p = p.parent_path();  // "dir/"
  const std::string name = p.filename().string();
  std::error_code ec;
  if (name.starts_with("PROF_")) {
    c.kind = InputKind::kProfDir;
    c.reason = "msprof PROF_* directory";
    return c;
  }
  if (is_rank_dir_name(name) || fs::is_directory(p / "ASCEND_PROFILER_OUTPUT", ec) ||
      holds_profiler_info(p)) {
    c.kind = InputKind::kRankDir;
    c.reason = name.ends_with("_ascend_ms")       ? "MindSpore rank directory"
               : name == "ASCEND_PROFILER_OUTPUT" ? "ASCEND_PROFILER_OUTPUT of a rank"
                                                  : "torch_npu rank directory";
    fill_rank_dir(p, c);
    return c;
  }
  // Below: rank directories or timelines make a cluster directory.
  int ranks = 0, traces = 0;
  for (auto it =
           fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string n = it->path().filename().string();
    std::error_code ec2;
    if (it->is_directory(ec2)) {
      if (is_rank_dir_name(n)) {
        ++ranks;
        it.disable_recursion_pending();
      } else if (it.depth() >= kSearchDepth) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (ranks == 0 && (n.ends_with(".json") || n.ends_with(".json.gz")) &&
        it->is_regular_file(ec2)) {
      const InputKind k = classify_file(it->path().string()).kind;
      if (is_timeline_kind(k)) ++traces;
    }
  }
  if (ranks > 0 || traces > 0) {
    c.kind = InputKind::kClusterDir;
    c.reason = ranks > 0 ? std::to_string(ranks) + " rank directories below"
                         : std::to_string(traces) + " timeline(s) below";
    return c;
  }
  c.kind = InputKind::kOtherDir;
  c.reason = "no rank directory (*_ascend_pt, *_ascend_ms, PROF_*) and no trace below";
  return c;
}

}  // namespace

const char* input_kind_name(InputKind k) {
  switch (k) {
    case InputKind::kMissing:
      return "missing path";
    case InputKind::kUnreadable:
      return "unreadable file";
    case InputKind::kKinetoTrace:
      return "Kineto trace";
    case InputKind::kTraceView:
      return "NPU trace_view.json";
    case InputKind::kMergedTrace:
      return "merged trace";
    case InputKind::kKernelDetails:
      return "kernel_details.csv";
    case InputKind::kMegEngineProfile:
      return "MegEngine static-graph profile";
    case InputKind::kMegEngineTimeline:
      return "MegEngine chrome_timeline.json";
    case InputKind::kDbExport:
      return "DB export";
    case InputKind::kOtherSqlite:
      return "SQLite file";
    case InputKind::kOtherJson:
      return "JSON file";
    case InputKind::kOtherFile:
      return "file";
    case InputKind::kRankDir:
      return "rank directory";
    case InputKind::kProfDir:
      return "msprof PROF_* directory";
    case InputKind::kClusterDir:
      return "cluster directory";
    case InputKind::kOtherDir:
      return "directory";
  }
  return "?";
}

bool is_timeline_kind(InputKind k) {
  return k == InputKind::kKinetoTrace || k == InputKind::kTraceView ||
         k == InputKind::kMegEngineTimeline;
}

bool is_rank_dir_name(std::string_view n) {
  return n.ends_with("_ascend_pt") || n.ends_with("_ascend_ms") || n.starts_with("PROF_") ||
         n == "ASCEND_PROFILER_OUTPUT";
}

InputClass classify_head(std::string_view name, std::string_view head) {
  InputClass c;
  if (head.starts_with(kSqliteMagic)) {
    const bool db = is_db_export_name(name);
    c.kind = db ? InputKind::kDbExport : InputKind::kOtherSqlite;
    c.reason = db ? "profiler DB export (SQLite)" : "SQLite file of unknown content";
    return c;
  }
  const char first = first_char(head);
  if (first == '{') {
    if (head.find("\"traceEvents\"") == std::string_view::npos) {
      if (head.find("\"graph_exec\"") != std::string_view::npos ||
          head.find("\"opr_footprint\"") != std::string_view::npos) {
        c.kind = InputKind::kMegEngineProfile;
        c.reason = "JSON object with graph_exec (MegEngine static-graph profile)";
        return c;
      }
      c.kind = InputKind::kOtherJson;
      c.reason = "JSON object without traceEvents";
      return c;
    }
    if (head.find(kMergedMark) != std::string_view::npos) {
      c.kind = InputKind::kMergedTrace;
      c.reason = "output of clusterscope merge";
      return c;
    }
    if (const std::string_view mark = megengine_mark(head); !mark.empty()) {
      c.kind = InputKind::kMegEngineTimeline;
      c.reason = "trace with MegEngine's marks (" + std::string(mark) + ")";
      return c;
    }
    c.kind = InputKind::kKinetoTrace;
    c.rank = rank_in_head(head);
    c.reason = "Kineto trace (JSON object)";
    return c;
  }
  if (first == '[') {
    c.array_form = true;
    if (head.find("\"ph\"") == std::string_view::npos) {
      c.kind = InputKind::kOtherJson;
      c.reason = "JSON array without trace events";
      return c;
    }
    const std::string_view mark = ascend_mark(head);
    if (!mark.empty()) {
      c.kind = InputKind::kTraceView;
      c.reason = "JSON array of events with Ascend marks (" + std::string(mark) + ")";
    } else {
      c.kind = InputKind::kKinetoTrace;
      c.reason = "Kineto trace in Chrome's JSON Array Format (no Ascend marks)";
    }
    return c;
  }
  const size_t eol = head.find('\n');
  const std::string_view line = head.substr(0, eol);
  if (line.find("Name") != std::string_view::npos &&
      line.find("Duration(us)") != std::string_view::npos &&
      line.find("Type") != std::string_view::npos) {
    c.kind = InputKind::kKernelDetails;
    c.reason = "CSV with Name, Type and Duration(us) columns";
    return c;
  }
  c.kind = InputKind::kOtherFile;
  c.reason = "neither a profiler timeline, a kernel_details.csv nor a DB export";
  return c;
}

InputClass classify_input(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory) {
    InputClass c;  // there, but not reachable: permission denied, a symlink loop
    c.kind = InputKind::kUnreadable;
    c.reason = errno_text(ec.value());
    return c;
  }
  if (ec || !fs::exists(st)) {
    InputClass c;
    c.kind = InputKind::kMissing;
    c.reason = "does not exist";
    return c;
  }
  if (fs::is_directory(st)) return classify_dir(path);
  return classify_file(path);
}

std::vector<std::string> timelines_below(const std::string& dir,
                                         std::vector<std::pair<std::string, InputClass>>* other) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it =
           fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string n = it->path().filename().string();
    std::error_code ec2;
    if (it->is_directory(ec2)) {
      if (is_rank_dir_name(n) || it.depth() >= kSearchDepth) it.disable_recursion_pending();
      continue;
    }
    if (!(n.ends_with(".json") || n.ends_with(".json.gz")) || !it->is_regular_file(ec2)) continue;
    InputClass c = classify_file(it->path().string());
    if (is_timeline_kind(c.kind))
      out.push_back(it->path().string());
    else if (other)
      other->emplace_back(it->path().string(), std::move(c));
  }
  std::sort(out.begin(), out.end());
  if (other)
    std::sort(other->begin(), other->end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace cs::io
