#include "memory/memory_text.h"

#include <cmath>
#include <filesystem>

#include "io/csv/csv_reader.h"
#include "memory/memory_builder.h"
#include "memory/memory_static.h"

namespace cs::memory {

namespace fs = std::filesystem;

bool parse_us_timestamp(std::string_view cell, int64_t& ns) {
  cell = io::trim(cell);
  if (cell.empty()) return false;
  // The largest whole microseconds whose nanoseconds (with any three decimals) fit in int64.
  constexpr int64_t kMaxWhole = (INT64_MAX - 999) / 1000;
  int64_t whole = 0;
  size_t i = 0;
  for (; i < cell.size() && cell[i] != '.'; ++i) {
    const char c = cell[i];
    if (c < '0' || c > '9' || whole > (kMaxWhole - (c - '0')) / 10) return false;
    whole = whole * 10 + (c - '0');
  }
  if (i == 0) return false;
  int64_t frac = 0;
  int digits = 0;
  if (i < cell.size()) {
    for (++i; i < cell.size(); ++i) {
      const char c = cell[i];
      if (c < '0' || c > '9') return false;
      if (digits < 3) {
        frac = frac * 10 + (c - '0');
        ++digits;
      }
    }
  }
  while (digits < 3) {
    frac *= 10;
    ++digits;
  }
  ns = whole * 1000 + frac;
  return true;
}

double header_unit_bytes(std::string_view h) {
  h = io::trim(h);
  const size_t open = h.rfind('(');
  if (open == std::string_view::npos || h.back() != ')') return 0;
  const std::string_view u = h.substr(open + 1, h.size() - open - 2);
  if (u == "B" || u == "Byte" || u == "bytes") return 1;
  if (u == "KB") return 1024.0;
  if (u == "MB") return 1048576.0;
  if (u == "GB") return 1073741824.0;
  return 0;
}

namespace {

// The column whose header starts with `stem` ("Total Allocated"), with its unit in bytes.
struct UnitColumn {
  int index = -1;
  double unit = 0;
};

UnitColumn unit_column(const io::CsvReader& r, std::string_view stem) {
  const auto& h = r.header();
  for (size_t i = 0; i < h.size(); ++i) {
    const std::string_view name = io::trim(h[i]);
    if (name.starts_with(stem) && name.size() > stem.size() && name[stem.size()] == '(') {
      const double unit = header_unit_bytes(name);
      if (unit > 0) return UnitColumn{static_cast<int>(i), unit};
    }
  }
  return {};
}

// An amount cell in `unit` -> bytes; nullopt when empty; false (bad) when not a number.
bool amount(std::string_view cell, double unit, std::optional<int64_t>& out) {
  out.reset();
  double v = 0;
  const io::NumberStatus st = io::parse_number_status(cell, v);
  if (st == io::NumberStatus::kMissing) return true;
  if (st != io::NumberStatus::kOk || std::fabs(v * unit) > 9e18) return false;
  out = std::llround(v * unit);
  return true;
}

// Counts a file's skipped rows and says them once.
struct BadRows {
  BadRows(const std::string& p, io::Diagnostics& d) : path(p), diag(d) {}
  BadRows(const BadRows&) = delete;
  BadRows& operator=(const BadRows&) = delete;
  const std::string& path;
  io::Diagnostics& diag;
  int64_t count = 0, first_line = 0;
  std::string first_what;
  void add(int64_t line, std::string what) {
    if (count++ == 0) {
      first_line = line;
      first_what = std::move(what);
    }
  }
  ~BadRows() {
    if (count > 0)
      diag.warn(path, first_line,
                std::to_string(count) + " row(s) skipped, the first: " + first_what,
                "the memory figures of this rank leave those rows out; re-export the profile if "
                "the file was damaged");
  }
};

// Opens one CSV and checks the columns; nullopt-like false when absent or unusable.
bool open_csv(io::CsvReader& r, const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  r.set_allow_short_rows(true);
  return r.open();
}

void count_file(const std::string& path, uint64_t* files, uint64_t* bytes) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (files) ++*files;
  if (bytes && !ec) *bytes += size;
}

}  // namespace

std::string memory_file(const std::string& dir, std::string_view stem) {
  const fs::path exact = fs::path(dir) / (std::string(stem) + ".csv");
  std::error_code ec;
  if (fs::is_regular_file(exact, ec)) return exact.string();
  // CANN's PROF_ text layout: {stem}_{digits}.csv (the newest by name when there are several).
  std::string best;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= stem.size() + 5 || !name.starts_with(stem) || name[stem.size()] != '_' ||
        !name.ends_with(".csv"))
      continue;
    const std::string_view digits =
        std::string_view(name).substr(stem.size() + 1, name.size() - stem.size() - 5);
    if (digits.find_first_not_of("0123456789_") != std::string_view::npos) continue;
    if (name > best) best = name;
  }
  return best.empty() ? exact.string() : (fs::path(dir) / best).string();
}

std::optional<RankMemory> read_memory_text(const std::string& dir,
                                           const std::vector<StepRange>& steps,
                                           io::Diagnostics& diag, uint64_t* files_read,
                                           uint64_t* bytes_read) {
  RankMemoryBuilder b(steps);
  const std::string record_path = memory_file(dir, "memory_record");
  {
    io::CsvReader r(record_path, diag);
    if (!open_csv(r, record_path)) return std::nullopt;
    const int comp = r.column("Component");
    const int ts = r.column("Timestamp(us)");
    const UnitColumn alloc = unit_column(r, "Total Allocated");
    const UnitColumn res = unit_column(r, "Total Reserved");
    if (comp < 0 || ts < 0 || alloc.index < 0 || res.index < 0) {
      diag.error(
          record_path, 1,
          "memory_record.csv lacks one of Component, Timestamp(us), Total Allocated(<unit>), "
          "Total Reserved(<unit>)",
          "memory figures are left out for this rank; re-export the profile");
      return std::nullopt;
    }
    count_file(record_path, files_read, bytes_read);
    BadRows bad(record_path, diag);
    io::CsvRow row;
    while (r.next(row)) {
      int64_t t = 0;
      std::optional<int64_t> a, rv;
      if (!parse_us_timestamp(row[ts], t)) {
        bad.add(row.line, "Timestamp(us) is not a time in microseconds");
        continue;
      }
      if (!amount(row[alloc.index], alloc.unit, a) || !amount(row[res.index], res.unit, rv)) {
        bad.add(row.line, "Total Allocated or Total Reserved is not a number");
        continue;
      }
      b.record(io::trim(row[comp]), t, a, rv);
    }
  }
  const std::string module_path = memory_file(dir, "npu_module_mem");
  {
    io::CsvReader r(module_path, diag);
    if (open_csv(r, module_path)) {
      const int comp = r.column("Component");
      const int ts = r.column("Timestamp(us)");
      const UnitColumn res = unit_column(r, "Total Reserved");
      if (comp >= 0 && ts >= 0 && res.index >= 0) {
        count_file(module_path, files_read, bytes_read);
        BadRows bad(module_path, diag);
        io::CsvRow row;
        while (r.next(row)) {
          int64_t t = 0;
          std::optional<int64_t> rv;
          if (!parse_us_timestamp(row[ts], t) || !amount(row[res.index], res.unit, rv)) {
            bad.add(row.line, "Timestamp(us) or Total Reserved is not a number");
            continue;
          }
          if (rv) b.module(io::trim(row[comp]), t, *rv);
        }
      } else {
        diag.warn(module_path, 1,
                  "npu_module_mem.csv lacks Component, Timestamp(us) or Total Reserved(<unit>)",
                  "module peaks are left out for this rank");
      }
    }
  }
  if (!b.end_records()) return std::nullopt;
  const std::string op_path = memory_file(dir, "operator_memory");
  {
    io::CsvReader r(op_path, diag);
    if (open_csv(r, op_path)) {
      const int name = r.column("Name");
      const UnitColumn size = unit_column(r, "Size");
      const int at = r.column("Allocation Time(us)");
      const int rel = r.column("Release Time(us)");
      // CANN's operator_memory_*.csv has Duration(us) instead of Release Time(us).
      const int dur = rel < 0 ? r.column("Duration(us)") : -1;
      if (name >= 0 && size.index >= 0 && at >= 0 && (rel >= 0 || dur >= 0)) {
        count_file(op_path, files_read, bytes_read);
        BadRows bad(op_path, diag);
        io::CsvRow row;
        while (r.next(row)) {
          int64_t t = 0, tr = 0;
          std::optional<int64_t> sz;
          const std::string_view alloc_cell = io::trim(row[at]);
          if (alloc_cell.empty() && !amount(row[size.index], size.unit, sz)) {
            bad.add(row.line, "Size is not a number");
            continue;
          }
          // CANN: a release whose allocation came before the capture (negative Size, empty
          // Allocation Time): not a block of this capture.
          if (alloc_cell.empty() && sz && *sz < 0) continue;
          if (!parse_us_timestamp(alloc_cell, t) || !amount(row[size.index], size.unit, sz) ||
              !sz) {
            bad.add(row.line, "Size or Allocation Time(us) is not a number");
            continue;
          }
          const std::string_view release = io::trim(row[rel >= 0 ? rel : dur]);
          std::optional<int64_t> released;
          if (!release.empty()) {
            if (!parse_us_timestamp(release, tr)) {
              bad.add(row.line, rel >= 0 ? "Release Time(us) is not a time in microseconds"
                                         : "Duration(us) is not a duration in microseconds");
              continue;
            }
            // A duration ends at t + tr. Both are checked first, so the sum cannot overflow;
            // an implausible one stands for itself and the builder leaves the block out.
            released = rel >= 0 || !plausible_time(t) || !plausible_time(tr) ? tr : t + tr;
          }
          b.block(io::trim(row[name]), *sz, t, released);
        }
      } else {
        diag.warn(op_path, 1,
                  "operator_memory.csv lacks Name, Size(<unit>), Allocation Time(us) or Release "
                  "Time(us) / Duration(us)",
                  "the blocks live at the peak are left out for this rank");
      }
    }
  }
  RankMemory m = b.finish();
  read_static_op_mem(memory_file(dir, "static_op_mem"), m, diag, files_read, bytes_read);
  return m;
}

}  // namespace cs::memory

namespace cs::memory {

void widen_step(std::map<int64_t, StepRange>& ranges, int64_t step, double start_us,
                double duration_us) {
  // Past kTimeLimitNs either way the sum below could overflow: not a step's time.
  const double start_ns = start_us * 1000.0;
  const double duration_ns = duration_us * 1000.0;
  constexpr auto kLimit = static_cast<double>(kTimeLimitNs);  // NaN fails both tests too
  if (!(std::fabs(start_ns) < kLimit) || !(std::fabs(duration_ns) < kLimit)) return;
  const auto start = static_cast<int64_t>(std::llround(start_ns));
  const auto end = start + static_cast<int64_t>(std::llround(std::max(0.0, duration_ns)));
  auto [it, fresh] = ranges.try_emplace(step, StepRange{step, start, end});
  if (!fresh) {
    it->second.start_ns = std::min(it->second.start_ns, start);
    it->second.end_ns = std::max(it->second.end_ns, end);
  }
}

}  // namespace cs::memory
