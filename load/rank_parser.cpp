#include "load/rank_parser.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "io/int_range.h"
#include "load/msprof_rank.h"
#include "memory/memory_text.h"
#include "readers/communication.h"
#include "readers/kernel_details.h"
#include "readers/matrix.h"
#include "readers/msprof_step_trace.h"
#include "readers/profiler_info.h"
#include "readers/step_trace.h"

namespace cs::load {

namespace fs = std::filesystem;

std::optional<OperatorKey> parse_operator_key(const std::string& s) {
  return runtime::enum_from_name(kOperatorKeyNames, s);
}

namespace {

// Tracks one file's reading: found? read? bytes? damaged?
struct FileRead {
  RankData& data;
  fs::path path;
  bool exists = false;
  std::string note;  // " (not readable by process 3 on host n7)" when another process listed it

  // "Missing" only when the file is not there: a file that cannot be reached (permission
  // denied, a symlink loop) or is not a regular one (a FIFO) goes to its reader, whose error
  // says what it is.
  FileRead(RankData& d, fs::path p, const std::string& process_note)
      : data(d),
        path(std::move(p)),
        note(process_note.empty() ? "" : " (read by " + process_note + ")") {
    struct stat st {};
    exists =
        ::stat(path.c_str(), &st) == 0 ? !S_ISDIR(st.st_mode) : errno != ENOENT && errno != ENOTDIR;
  }

  // Records the outcome of a reader call that appended to `diag`.
  // Returns true when the data is usable (read, maybe with skipped parts).
  bool finish(bool ok, const io::Diagnostics& diag, size_t errors_before) {
    std::error_code ec;
    auto size = fs::file_size(path, ec);
    if (ok) {
      ++data.files_read;
      if (!ec) data.bytes_read += size;
    }
    size_t new_errors = diag.error_count() - errors_before;
    std::string name = path.filename().string();
    if (!ok) {
      data.entry.problems.push_back(name + ": unreadable (" + first_error(diag, errors_before) +
                                    ")" + note);
    } else if (new_errors > 0) {
      data.entry.problems.push_back(name + ": " + std::to_string(new_errors) +
                                    " problem(s), partly read (" +
                                    first_error(diag, errors_before) + ")");
    }
    return ok;
  }

  static std::string first_error(const io::Diagnostics& diag, size_t errors_before) {
    size_t seen = 0;
    for (const auto& d : diag.items()) {
      if (d.severity != io::Severity::kError) continue;
      if (seen++ >= errors_before) {
        std::string s = d.what;
        if (d.line > 0) s = "line " + std::to_string(d.line) + ": " + s;
        return s;
      }
    }
    return "see diagnostics";
  }
};

// "step12" / "12" -> 12; nullopt for anything else.
std::optional<int64_t> step_number(std::string_view s) {
  if (s.starts_with("step")) s.remove_prefix(4);
  int64_t n = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return n;
}

void note_step(std::set<int64_t>& seen, std::string_view s) {
  if (auto n = step_number(s)) seen.insert(*n);
}

void keep_step(std::vector<readers::CommStep>& steps, const std::string& want,
               std::set<int64_t>& seen) {
  for (const auto& s : steps) note_step(seen, s.step);
  std::erase_if(steps, [&](const readers::CommStep& s) { return s.step != want; });
}
void keep_step(std::vector<readers::MatrixStep>& steps, const std::string& want,
               std::set<int64_t>& seen) {
  for (const auto& s : steps) note_step(seen, s.step);
  std::erase_if(steps, [&](const readers::MatrixStep& s) { return s.step != want; });
}

// A PROF_ directory's step trace, from its timeline (readers/msprof_step_trace.h): one row
// without a step, so --step keeps it. True when it was read.
bool read_prof_step_trace(RankData& d, const ParseOptions& opts) {
  const std::vector<std::string> rel = msprof_timeline_of(d.entry);
  if (rel.empty()) {
    d.entry.problems.push_back(
        "mindstudio_profiler_output/msprof_{timestamp}.json: missing (needed for step trace "
        "analysis)");
    return false;
  }
  std::vector<std::string> paths;
  for (const auto& r : rel) paths.push_back((fs::path(d.entry.path) / r).string());
  FileRead f(d, paths.front(), opts.process_note);
  const size_t before = d.diagnostics.error_count();
  const bool ok = readers::read_msprof_step_trace(paths, d.step_trace.edit(), d.diagnostics);
  d.has_step_trace = f.finish(ok, d.diagnostics, before);
  return d.has_step_trace;
}

}  // namespace

std::string operator_key(const readers::KernelRecord& k, OperatorKey how) {
  switch (how) {
    case OperatorKey::kType:
      return std::string(k.type.empty() ? k.name : k.type);
    case OperatorKey::kName:
      return std::string(k.name);
    case OperatorKey::kNameShapes: {
      std::string key(k.name);
      key += " [";
      key += k.input_shapes;
      key += ']';
      return key;
    }
  }
  return std::string(k.name);
}

RankData parse_rank(const RankEntry& entry, const ParseOptions& opts) {
  if (entry.export_type == ExportType::kDb) return parse_rank_db(entry, opts);
  RankData d;
  d.entry = entry;
  const size_t discovery_problems = d.entry.problems.size();  // notes from discovery, not damage
  const fs::path dir = entry.output_dir.empty() ? fs::path(entry.path) : fs::path(entry.output_dir);
  const std::string step_name = opts.step ? "step" + std::to_string(*opts.step) : std::string();
  int wanted = 0, usable = 0;
  std::set<int64_t> steps_seen;  // with --step: every step the files hold

  // Metadata is optional: its absence is noted, not a problem.
  {
    FileRead f(d, fs::path(entry.path) / kMetadataJson, opts.process_note);
    if (f.exists) {
      size_t before = d.diagnostics.error_count();
      bool ok = readers::read_profiler_metadata(f.path.string(), d.metadata, d.diagnostics);
      d.has_metadata = f.finish(ok, d.diagnostics, before);
    }
  }

  // A file discovery listed (on another process) but absent here: this process cannot see it.
  const auto listed = [&](const char* name) {
    return std::any_of(entry.files.begin(), entry.files.end(),
                       [&](const std::string& f) { return fs::path(f).filename() == name; });
  };
  auto missing = [&](const char* name, const char* what_for) {
    std::string p = std::string(name) + ": missing (needed for " + what_for + ")";
    if (!opts.process_note.empty() && listed(name))
      p = std::string(name) + ": listed by discovery but not visible to " + opts.process_note +
          " (needed for " + what_for + "; is the directory on a file system every host shares?)";
    d.entry.problems.push_back(std::move(p));
  };

  if (opts.communication) {
    ++wanted;
    FileRead f(d, dir / kCommunicationJson, opts.process_note);
    if (f.exists) {
      size_t before = d.diagnostics.error_count();
      bool ok =
          readers::read_communication_json(f.path.string(), d.communication.edit(), d.diagnostics);
      if (ok && opts.step) keep_step(d.communication.edit().steps, step_name, steps_seen);
      d.has_communication = f.finish(ok, d.diagnostics, before);
      usable += d.has_communication;
    } else {
      missing(kCommunicationJson, "communication analysis");
    }
  }
  if (opts.matrix) {
    ++wanted;
    FileRead f(d, dir / kMatrixJson, opts.process_note);
    if (f.exists) {
      size_t before = d.diagnostics.error_count();
      bool ok =
          readers::read_communication_matrix_json(f.path.string(), d.matrix.edit(), d.diagnostics);
      if (ok && opts.step) keep_step(d.matrix.edit().steps, step_name, steps_seen);
      d.has_matrix = f.finish(ok, d.diagnostics, before);
      usable += d.has_matrix;
    } else {
      missing(kMatrixJson, "the communication matrix");
    }
  }
  if (opts.step_trace && entry.framework == Framework::kMsprof) {
    ++wanted;
    if (read_prof_step_trace(d, opts)) ++usable;
  } else if (opts.step_trace) {
    ++wanted;
    FileRead f(d, dir / kStepTraceCsv, opts.process_note);
    if (f.exists) {
      size_t before = d.diagnostics.error_count();
      readers::StepTraceFile& st = d.step_trace.edit();
      bool ok = readers::read_step_trace_csv(f.path.string(), st, d.diagnostics);
      if (ok && opts.step) {
        const std::string want = std::to_string(*opts.step);
        for (const auto& r : st.rows) note_step(steps_seen, r.step);
        std::erase_if(st.rows, [&](const readers::StepTraceRow& r) {
          return !r.step.empty() && r.step != want;
        });
      }
      d.has_step_trace = f.finish(ok, d.diagnostics, before);
      usable += d.has_step_trace;
    } else {
      missing(kStepTraceCsv, "step trace analysis");
    }
  }
  std::map<int64_t, memory::StepRange> step_ranges;  // from the kernels' Step Id, for memory
  if (opts.kernels) {
    ++wanted;
    FileRead f(d, dir / kKernelDetailsCsv, opts.process_note);
    const int rank = entry.rank;
    if (f.exists) {
      size_t before = d.diagnostics.error_count();
      bool ok = readers::read_kernel_details_csv(
          f.path.string(),
          [&](const readers::KernelRecord& k) {
            if (opts.memory && k.step_id >= 0)
              memory::widen_step(step_ranges, k.step_id, k.start_us, k.duration_us);
            if (opts.step && k.step_id >= 0) {
              steps_seen.insert(k.step_id);
              if (k.step_id != *opts.step) return;
            }
            d.operators.edit().add(operator_key(k, opts.group_by), k.duration_us, rank);
          },
          d.diagnostics);
      d.has_kernels = f.finish(ok, d.diagnostics, before);
      usable += d.has_kernels;
    } else {
      // A PROF_ directory's operator statistics: mindstudio_profiler_output/op_statistic_*.csv.
      const std::string prof_statistic =
          entry.framework == Framework::kMsprof ? msprof_op_statistic_of(entry) : std::string();
      FileRead g(
          d, prof_statistic.empty() ? dir / kOpStatisticCsv : fs::path(entry.path) / prof_statistic,
          opts.process_note);
      if (g.exists) {
        std::vector<readers::OpStatisticRow> rows;
        size_t before = d.diagnostics.error_count();
        bool ok = readers::read_op_statistic_csv(g.path.string(), rows, d.diagnostics);
        size_t out_of_range = 0;
        for (const auto& r : rows) {
          // The reader reports unusable cells; rows without a count or total carry nothing.
          if (!std::isfinite(r.count) || !std::isfinite(r.total_us) || r.count < 1) continue;
          int64_t count = 0;
          if (!io::double_to_int64(r.count, count)) {  // 1e300 calls cannot be: never cast
            ++out_of_range;
            continue;
          }
          const double mn = std::isfinite(r.min_us) ? r.min_us : r.total_us / r.count;
          const double mx = std::isfinite(r.max_us) ? r.max_us : r.total_us / r.count;
          d.operators.edit().add_aggregate(r.op_type, count, r.total_us, mn, mx, rank);
        }
        if (out_of_range > 0)
          d.diagnostics.warn(
              g.path.string(), 0,
              std::to_string(out_of_range) + " row(s) with a Count beyond 64-bit integers",
              "those rows were skipped");
        d.has_kernels = g.finish(ok, d.diagnostics, before);
        usable += d.has_kernels;
      } else {
        missing(kKernelDetailsCsv, "operator statistics; op_statistic.csv is absent too");
      }
    }
  }

  if (opts.memory) {  // optional: a rank without memory files has no RankData::memory
    std::vector<memory::StepRange> ranges;
    for (const auto& [id, r] : step_ranges) ranges.push_back(r);
    // CANN msprof's PROF_ text layout keeps its memory CSVs with the timelines.
    const fs::path mem_dir = entry.framework == Framework::kMsprof
                                 ? fs::path(entry.path) / "mindstudio_profiler_output"
                                 : dir;
    d.memory = memory::read_memory_text(mem_dir.string(), ranges, d.diagnostics, &d.files_read,
                                        &d.bytes_read);
  }

  d.steps_present.assign(steps_seen.begin(), steps_seen.end());
  if (opts.host) parse_rank_host(d, opts);
  if (wanted > 0 && usable == 0) {
    d.entry.status = RankStatus::kSkipped;
  } else if (d.entry.problems.size() > discovery_problems) {
    d.entry.status = RankStatus::kPartial;
  } else {
    d.entry.status = RankStatus::kOk;
  }
  return d;
}

}  // namespace cs::load
