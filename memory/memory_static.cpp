#include "memory/memory_static.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "io/csv/csv_reader.h"
#include "memory/memory_text.h"

namespace cs::memory {

namespace fs = std::filesystem;

namespace {

// One graph's blocks as (index, +size at start / -size after end) events, and its TOTAL row.
struct Graph {
  std::vector<std::pair<int64_t, int64_t>> events;
  int64_t sizes = 0;
  int64_t total = -1;
};

int64_t graph_peak(std::vector<std::pair<int64_t, int64_t>>& ev) {
  // At one index, releases (after the previous index) come before allocations: sorting by
  // (index, delta) puts the negative deltas first.
  std::sort(ev.begin(), ev.end());
  int64_t live = 0, peak = 0;
  for (const auto& [idx, delta] : ev) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace

bool read_static_op_mem(const std::string& path, RankMemory& m, io::Diagnostics& diag,
                        uint64_t* files_read, uint64_t* bytes_read) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  io::CsvReader r(path, diag);
  r.set_allow_short_rows(true);
  if (!r.open()) return false;
  const int name = r.column("Op Name");
  const int model = r.column("Model Name");
  const int graph = r.column("Graph ID");
  const int start = r.column("Node Index Start");
  const int end = r.column("Node Index End");
  int size = -1;
  double unit = 0;
  for (size_t i = 0; i < r.header().size(); ++i) {
    const std::string_view h = io::trim(r.header()[i]);
    if (h.starts_with("Size(") && (unit = header_unit_bytes(h)) > 0) {
      size = static_cast<int>(i);
      break;
    }
  }
  if (name < 0 || model < 0 || graph < 0 || start < 0 || end < 0 || size < 0) {
    diag.warn(path, 1,
              "static_op_mem.csv lacks one of Op Name, Model Name, Graph ID, Node Index Start, "
              "Node Index End, Size(<unit>)",
              "the static graph memory of this rank is left out; re-export the profile");
    return false;
  }
  if (files_read) ++*files_read;
  if (bytes_read) *bytes_read += fs::file_size(path, ec);

  std::map<std::pair<std::string, std::string>, Graph> graphs;
  int64_t bad = 0, first_bad = 0;
  io::CsvRow row;
  while (r.next(row)) {
    double kb = 0;
    const bool size_ok = io::parse_number_status(row[size], kb) == io::NumberStatus::kOk &&
                         kb >= 0 && kb * unit < 1125899906842624.0;  // 1 PiB: plausible_bytes
    Graph& g = graphs[{std::string(io::trim(row[model])), std::string(io::trim(row[graph]))}];
    if (size_ok && io::trim(row[name]) == "TOTAL") {
      g.total = std::max<int64_t>(g.total, 0) + std::llround(kb * unit);
      continue;
    }
    int64_t s = 0, e = 0;
    if (!size_ok || !io::parse_int(io::trim(row[start]), s) ||
        !io::parse_int(io::trim(row[end]), e) || e < s || e == INT64_MAX) {
      if (bad++ == 0) first_bad = row.line;
      continue;
    }
    const int64_t bytes = std::llround(kb * unit);
    g.events.emplace_back(s, bytes);
    g.events.emplace_back(e + 1, -bytes);  // e <= 4294967295: no overflow
    g.sizes += bytes;
  }
  if (bad > 0)
    diag.warn(path, first_bad,
              std::to_string(bad) +
                  " row(s) skipped, the first: Size or a Node Index is not a number, or the end "
                  "comes before the start",
              "the static graph memory of this rank leaves those rows out");
  if (graphs.empty()) return false;
  int64_t peak = 0, total = 0;
  for (auto& [key, g] : graphs) {
    peak += graph_peak(g.events);
    total += g.total >= 0 ? g.total : g.sizes;
  }
  m.static_graph_peak = peak;
  m.static_graph_total = total;
  return true;
}

}  // namespace cs::memory
