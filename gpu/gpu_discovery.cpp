#include "gpu/gpu_discovery.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include <zlib.h>

#include "io/input_kind.h"

namespace cs::gpu {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

bool json_name(const std::string& name) {
  return ends_with(name, ".json") || ends_with(name, ".json.gz");
}

struct Walk {
  std::vector<std::string> candidates;  // .json / .json.gz outside rank directories
  int rank_dirs = 0;
  std::vector<std::string> unreadable;
};

// Depth-first, sorted, at most io::kSearchDepth levels; rank directories and clusterscope's own
// output folder are counted, not entered.
void walk(const fs::path& dir, int depth, Walk& w, bool stop_at_first) {
  if (depth > io::kSearchDepth) return;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    w.unreadable.push_back(dir.string());
    return;
  }
  std::vector<fs::directory_entry> entries;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    entries.push_back(*it);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path() < b.path(); });
  for (const auto& e : entries) {
    const std::string name = e.path().filename().string();
    std::error_code ec2;
    if (e.is_directory(ec2)) {
      if (io::is_rank_dir_name(name) || fs::exists(e.path() / "ASCEND_PROFILER_OUTPUT", ec2)) {
        ++w.rank_dirs;
        continue;
      }
      if (name == "cluster_analysis_output") continue;
      walk(e.path(), depth + 1, w, stop_at_first);
    } else if (json_name(name) && e.is_regular_file(ec2)) {
      w.candidates.push_back(e.path().string());
    }
  }
}

// What a file is, from its first 64 KiB (inflated): io::classify_head on a head that short costs
// a sixteenth of io::classify_input's 1 MiB for the same answer on a trace (its marks come
// first); a file the short head leaves undecided (kOtherJson, kOtherFile) goes to classify_input.
io::InputKind classify_quickly(const std::string& path) {
  constexpr unsigned kHead = 64 * 1024;
  gzFile g = gzopen(path.c_str(), "rb");  // plain files are read as they are
  if (g) {
    std::string head(kHead, '\0');
    const int n = gzread(g, head.data(), kHead);
    gzclose(g);
    if (n > 0) {
      head.resize(static_cast<size_t>(n));
      const io::InputKind k = io::classify_head(fs::path(path).filename().string(), head).kind;
      if (k != io::InputKind::kOtherJson && k != io::InputKind::kOtherFile) return k;
    }
  }
  return io::classify_input(path).kind;
}

}  // namespace

int rank_from_file_name(const std::string& file_name) {
  std::string stem = fs::path(file_name).filename().string();
  const size_t dot = stem.find('.');
  if (dot != std::string::npos) stem.resize(dot);
  std::string lower;
  for (char c : stem)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  auto digits_at = [&](size_t at) -> int {
    size_t end = at;
    while (end < stem.size() && std::isdigit(static_cast<unsigned char>(stem[end]))) ++end;
    if (end == at || end - at > 9) return -1;
    return std::stoi(stem.substr(at, end - at));
  };
  // "rank-3", "rank_3", "rank3", "worker3": the number after the word.
  for (const char* word : {"rank", "worker"}) {
    for (size_t at = lower.rfind(word); at != std::string::npos;
         at = at == 0 ? std::string::npos : lower.rfind(word, at - 1)) {
      size_t p = at + std::string_view(word).size();
      if (p < stem.size() && (stem[p] == '-' || stem[p] == '_')) ++p;
      const int r = digits_at(p);
      if (r >= 0) return r;
    }
  }
  // Else the last run of digits.
  size_t end = stem.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(stem[end - 1]))) --end;
  if (end == 0) return -1;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(stem[begin - 1]))) --begin;
  return digits_at(begin);
}

bool looks_like_gpu_job(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  if (io::is_rank_dir_name(fs::path(dir).filename().string())) return false;
  Walk w;
  walk(dir, 0, w, true);
  for (const auto& c : w.candidates)
    if (classify_quickly(c) == io::InputKind::kKinetoTrace) return true;
  return false;
}

GpuDiscovery discover_gpu_traces(const std::string& dir) {
  GpuDiscovery d;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    d.diag.error(dir, 0, "not a directory", "give the directory holding the job's traces");
    d.fatal = true;
    return d;
  }
  Walk w;
  walk(dir, 0, w, false);
  d.ascend_rank_dirs = w.rank_dirs;
  for (const auto& u : w.unreadable)
    d.diag.warn(u, 0, "directory cannot be read", "its traces are not analysed; check permissions");
  for (const auto& c : w.candidates) {
    const io::InputKind kind = classify_quickly(c);
    if (kind == io::InputKind::kUnreadable)
      d.diag.warn(c, 0, "cannot be read (damaged gzip or unreadable file)",
                  "it is not analysed; check the file");
    if (kind != io::InputKind::kKinetoTrace) continue;
    GpuTraceFile f;
    f.path = c;
    f.bytes = fs::file_size(c, ec);
    if (ec) f.bytes = 0;
    f.name_rank = rank_from_file_name(c);
    d.traces.push_back(std::move(f));
  }
  if (d.traces.empty()) {
    d.diag.error(dir, 0, "no PyTorch profiler (Kineto) trace found",
                 "give the directory holding one trace per rank (*.json or *.json.gz)");
    d.fatal = true;
  } else if (d.ascend_rank_dirs > 0) {
    d.diag.error(dir, 0,
                 "the job mixes " + std::to_string(d.traces.size()) + " Kineto trace(s) with " +
                     std::to_string(d.ascend_rank_dirs) + " Ascend rank director" +
                     (d.ascend_rank_dirs == 1 ? "y" : "ies"),
                 "give a directory holding one kind: GPU traces or Ascend rank directories");
    d.fatal = true;
  }
  return d;
}

}  // namespace cs::gpu
