#include "load/msprof_rank.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "readers/msprof_info.h"
#include "readers/msprof_step_trace.h"

namespace cs::load {

namespace fs = std::filesystem;

namespace {

// The entries of `dir` (names), sorted; empty when it cannot be listed.
std::vector<std::string> sorted_names(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool is_msprof_db_name(std::string_view name) {
  if (name.size() != 24 || !name.starts_with("msprof_") || !name.ends_with(".db")) return false;
  return std::all_of(name.begin() + 7, name.begin() + 21,
                     [](char c) { return c >= '0' && c <= '9'; });
}

void read_msprof_rank(RankEntry& e) {
  for (const auto& d : sorted_names(e.path)) {
    std::error_code ec;
    if (!fs::is_directory(fs::path(e.path) / d, ec)) continue;
    for (const auto& n : sorted_names(fs::path(e.path) / d)) {
      if (!readers::device_from_msprof_info_name(n)) continue;
      const std::string rel = d + "/" + n;
      const fs::path file = fs::path(e.path) / rel;
      readers::MsprofInfo info;
      io::Diagnostics diag;
      if (!readers::read_msprof_info(file.string(), info, diag)) {
        e.problems.push_back(diag.items().empty() ? "cannot read " + rel
                                                  : diag.items().front().to_string());
        return;
      }
      if (std::find(e.files.begin(), e.files.end(), rel) == e.files.end()) {
        e.files.push_back(rel);
        e.bytes += fs::file_size(file, ec);
      }
      if (info.rank)
        e.rank = *info.rank;
      else
        e.msprof_device = MsprofDeviceKey{info.host_uid, info.device};
      return;
    }
  }
}

constexpr const char* kTimelineDir = "mindstudio_profiler_output";

// "op_statistic_20240101120000.csv": CANN's per-device operator statistics.
bool is_op_statistic_name(std::string_view n) {
  if (!n.starts_with("op_statistic_") || !n.ends_with(".csv") || n.size() <= 17) return false;
  return std::all_of(n.begin() + 13, n.end() - 4, [](char c) { return c >= '0' && c <= '9'; });
}

void add_msprof_text_files(RankEntry& e) {
  const fs::path dir = fs::path(e.path) / kTimelineDir;
  const std::vector<std::string> names = sorted_names(dir);
  std::vector<std::string> files = readers::msprof_timeline_files(names);
  std::string newest_statistic;  // names are sorted: the last is the newest
  for (const auto& n : names)
    if (is_op_statistic_name(n)) newest_statistic = n;
  if (!newest_statistic.empty()) files.push_back(newest_statistic);
  for (const auto& n : files) {
    const std::string rel = std::string(kTimelineDir) + "/" + n;
    if (std::find(e.files.begin(), e.files.end(), rel) != e.files.end()) continue;
    std::error_code ec;
    const auto size = fs::file_size(dir / n, ec);
    if (ec) continue;  // not a regular file
    e.files.push_back(rel);
    e.bytes += size;
  }
}

std::vector<std::string> msprof_timeline_of(const RankEntry& e) {
  std::vector<std::string> out;
  const std::string prefix = std::string(kTimelineDir) + "/";
  for (const auto& f : e.files)
    if (f.starts_with(prefix) && f.ends_with(".json")) out.push_back(f);
  return out;
}

std::string msprof_op_statistic_of(const RankEntry& e) {
  const std::string prefix = std::string(kTimelineDir) + "/";
  for (const auto& f : e.files)
    if (f.starts_with(prefix) && is_op_statistic_name(std::string_view(f).substr(prefix.size())))
      return f;
  return {};
}

// Several runs of one device share its number; discovery's run choice keeps one.
void number_msprof_ranks(std::vector<RankEntry>& found, const std::string& dir,
                         io::Diagnostics& diag) {
  std::map<MsprofDeviceKey, int> order;
  bool ranks_known = false;
  for (const auto& e : found) {
    if (e.framework != Framework::kMsprof) continue;
    ranks_known |= e.rank >= 0;
    if (e.msprof_device) order.emplace(*e.msprof_device, 0);
  }
  if (order.empty()) return;
  if (ranks_known) {  // the others stay unknown, as in msprof-analyze
    for (auto& e : found)
      if (e.framework == Framework::kMsprof && e.rank < 0 && e.msprof_device) {
        e.status = RankStatus::kSkipped;
        e.problems.push_back("info.json has no rank_id while other PROF_ directories have one");
      }
    return;
  }
  int next = 0;
  for (auto& [key, rank] : order) rank = next++;
  for (auto& e : found)
    if (e.framework == Framework::kMsprof && e.msprof_device) {
      e.rank = order.at(*e.msprof_device);
      e.problems.push_back(
          "rank numbered from (hostUid, device id) order: info.json has no rank_id");
    }
  diag.warn(dir, 0,
            std::to_string(order.size()) +
                " CANN PROF_ device(s) have no rank_id in info.json; numbered 0-" +
                std::to_string(order.size() - 1) +
                " in (hostUid, device id) order, as msprof-analyze does",
            "set the rank (RANK_ID) when profiling so the ranks match the job's");
}

}  // namespace cs::load
