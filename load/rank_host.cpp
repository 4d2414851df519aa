// parse_rank_host: the host block of a rank's parse (see rank_parser.h, host/).

#include <charconv>
#include <filesystem>
#include <string>
#include <string_view>

#include "db/database.h"
#include "host/data_queue.h"
#include "host/free_breakdown.h"
#include "host/rank_host.h"
#include "load/rank_parser.h"

namespace cs::load {

namespace fs = std::filesystem;

namespace {

// The rank's file holding its host timeline for its export, or "" when there is none.
std::string host_file(const RankEntry& e) {
  if (e.export_type == ExportType::kDb) {
    for (const auto& rel : e.files) {
      const std::string name = fs::path(rel).filename().string();
      if (name.starts_with("ascend_pytorch_profiler") && name.ends_with(".db"))
        return (fs::path(e.path) / rel).string();
    }
    return {};
  }
  const fs::path dir = e.output_dir.empty() ? fs::path(e.path) : fs::path(e.output_dir);
  for (const char* name : {"trace_view.json", "trace_view.json.gz"}) {
    std::error_code ec;
    if (fs::is_regular_file(dir / name, ec)) return (dir / name).string();
  }
  return {};
}

// MindSpore's device queue file of the rank (host/data_queue.h), in its output directory or the
// rank directory, or "" when there is none.
std::string data_queue_file(const RankEntry& e) {
  for (const char* prefix : {"device_queue_profiling_", "dataset_iterator_profiling_"}) {
    for (const std::string& d : {e.output_dir, e.path}) {
      if (d.empty()) continue;
      std::error_code ec;
      for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with(prefix) && name.ends_with(".txt") && it->is_regular_file(ec))
          return it->path().string();
      }
    }
  }
  return {};
}

// The step trace's Free per step ("" -> step -1), for a rank without a host timeline.
std::vector<std::pair<int64_t, double>> step_trace_free(const readers::StepTraceFile& st) {
  std::vector<std::pair<int64_t, double>> out;
  const int col = st.column("Free");
  if (col < 0) return out;
  for (const auto& row : st.rows) {
    int64_t step = -1;
    std::string_view s = row.step;
    if (s.starts_with("step")) s.remove_prefix(4);
    std::from_chars(s.data(), s.data() + s.size(), step);
    const double free = row.values[static_cast<size_t>(col)];
    if (free == free) out.emplace_back(step, free);  // N/A cells carry nothing
  }
  return out;
}

}  // namespace

void parse_rank_host(RankData& d, const ParseOptions& opts, const db::Database* open_db,
                     const std::string& open_path, const db::StringIds* open_strings) {
  const std::string path = host_file(d.entry);
  host::HostSummary& summary = d.host.edit();  // held while the rank is parsed
  bool read = false;
  if (!path.empty()) {
    const size_t before = d.diagnostics.error_count();
    if (d.entry.export_type != ExportType::kDb)
      read = host::read_text_host(path, summary, d.diagnostics);
    else if (open_db && open_path == path)
      read = host::read_db_host(*open_db, summary, d.diagnostics, open_strings);
    else
      read = host::read_db_host(path, summary, d.diagnostics);
    if (d.diagnostics.error_count() > before)
      d.entry.problems.push_back(fs::path(path).filename().string() +
                                 ": host side partly or not read (see diagnostics)");
    if (read && d.entry.export_type == ExportType::kText) {
      ++d.files_read;
      std::error_code ec;
      const auto size = fs::file_size(path, ec);
      if (!ec) d.bytes_read += size;
    }
  }
  if (!read) {
    summary = host::HostSummary{};
    readers::StepTraceFile scratch;
    if (d.has_step_trace)
      summary.steps = host::unattributed_free(step_trace_free(d.step_trace.read(scratch)));
  }
  if (opts.step)
    std::erase_if(summary.steps, [&](const host::StepFree& f) { return f.step != *opts.step; });
  // MindSpore's device queue: device_queue_profiling_* (sink mode), else
  // dataset_iterator_profiling_*.
  if (d.entry.framework == Framework::kMindSpore) {
    if (const std::string q = data_queue_file(d.entry); !q.empty()) {
      host::DataQueueStats qs;
      if (host::read_data_queue(q, qs, d.diagnostics)) {
        summary.queue_batches = qs.batches;
        summary.queue_empty = qs.empty;
      }
    }
  }
  d.has_host = !summary.empty() || summary.queue_batches > 0;
}

}  // namespace cs::load
