#include "msprof_analyze/recipes/communication_time_sum/time_sum_stream.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/communication_time_sum/communication_time_sum.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/parked_frames.h"

namespace cs::recipes::communication_time_sum {

namespace {

// The totals' sort keys, as the table names them.
std::vector<std::string> total_keys(const std::string& key) {
  if (key == "time") return {"step", "rank_id", "group_name"};
  return {"group_name", "step", "rank_id", "band_type", "package_size"};
}

// A rank's frame with the whole table's columns (NULL where it lacks one), its rows and totals.
frame::Frame with_totals(const StreamedTable& t, const frame::Frame& rank_rows,
                         const GroupRepeats& repeats) {
  WholeDtypes whole;
  for (size_t c = 0; c < t.names.size(); ++c) whole[t.names[c]] = t.dtypes[c];
  frame::Frame f = frame::concat_frames({&rank_rows}, t.names, rank_rows.rows());
  return t.key == "time" ? communication_time_with_totals(std::move(f), repeats, &whole)
                         : communication_bandwidth_with_totals(std::move(f), repeats, &whole);
}

// The rows of a run of totals: about 4 MiB of cells, or CS_TIME_SUM_RUN_ROWS=N (tests: several
// runs on a small job).
size_t default_run_rows(size_t columns) {
  if (const char* n = std::getenv("CS_TIME_SUM_RUN_ROWS"); n && std::atol(n) > 0)
    return static_cast<size_t>(std::atol(n));
  return std::max<size_t>(1024, (size_t{4} << 20) / (std::max<size_t>(columns, 1) * 16));
}

// The totals are stored in chunks of this many rows (the merge holds one a run).
constexpr size_t kTotalsChunkRows = 1024;

// The first walk over one table's frames: the column kinds, and the totals into sorted runs.
void prepare(StreamedTable& t, const std::vector<RankPartial>& ranks, const GroupRepeats& repeats,
             size_t run_rows, const std::shared_ptr<runtime::SpillFile>& file) {
  const std::vector<ColumnKinds> in = concat_columns(ranks, t.key);
  for (const ColumnKinds& c : in) {
    t.names.push_back(*c.name);
    t.dtypes.push_back(frame::dtype_of_kinds(c.kinds, c.force_object));
  }
  const std::vector<std::string>& out_names = table_columns(t.key);
  const std::vector<std::string> from = input_columns(t.key);
  for (size_t c = 0; c < out_names.size(); ++c) {
    ColumnKinds k{frame::intern_text(out_names[c]), 0, false};
    for (const ColumnKinds& i : in)
      if (*i.name == from[c]) k.force_object = i.force_object;
    t.columns.push_back(k);
  }
  // Each rank's totals are sorted already and no two ranks' keys are equal (the rank is one of
  // them): runs stably sorted and merged, the earlier run first on equal keys, give groupby's
  // sorted order over the whole table.
  std::vector<size_t> keys;
  for (const auto& k : total_keys(t.key))
    keys.push_back(
        static_cast<size_t>(std::find(out_names.begin(), out_names.end(), k) - out_names.begin()));
  t.totals = std::make_unique<SortedRuns>(
      out_names.size(), std::move(keys),
      run_rows > 0 ? run_rows : default_run_rows(out_names.size()), kTotalsChunkRows, file);
  for (const RankPartial& p : ranks) {
    if (frame_rows(p, t.key) == 0) continue;
    const frame::Frame rows = read_frame(p, t.key);
    const size_t n = rows.rows();
    const frame::Frame out = with_totals(t, rows, repeats);
    for (size_t c = 0; c < out.columns.size(); ++c)
      t.columns[c].kinds |= frame::cell_kinds(out.columns[c]);
    t.totals->add(out, n);
  }
  t.totals->finish();
}

// A rank's own rows as the table has them: its columns in the table's order (NULL where it lacks
// one), the ratio columns 0 where the whole table lacks them (communication_time_with_totals).
frame::Frame table_rows(const StreamedTable& t, const frame::Frame& rows) {
  const std::vector<std::string> from = input_columns(t.key);
  frame::Frame out;
  for (size_t c = 0; c < from.size(); ++c) {
    frame::FrameColumn& dst = out.add(*t.columns[c].name);
    const bool in_table = std::find(t.names.begin(), t.names.end(), from[c]) != t.names.end();
    if (const frame::FrameColumn* src = frame::find_column(rows, from[c])) {
      dst.cells = src->cells;
    } else if (t.key == "time" && c >= 10 && !in_table) {
      dst.cells.assign(rows.rows(), frame::Cell::integer(0));
    } else {
      dst.cells.assign(rows.rows(), frame::Cell::null());
    }
  }
  return out;
}

// The totals go to the table this many rows at a time.
constexpr size_t kTotalsBatchRows = 4096;

bool write_table(const StreamedTable& t, const std::vector<RankPartial>& ranks,
                 const std::string& db, io::Diagnostics& diag) {
  FrameTableStream out(db, t.table, t.columns, diag);
  for (const RankPartial& p : ranks) {
    if (frame_rows(p, t.key) == 0) continue;
    if (!out.add(table_rows(t, read_frame(p, t.key)))) return false;
  }
  frame::Frame totals;
  for (const ColumnKinds& c : t.columns) totals.add(*c.name);
  SortedRuns::Merger merged(*t.totals);
  std::vector<std::vector<frame::Cell>> cells;
  while (merged.next(cells, kTotalsBatchRows)) {
    for (size_t c = 0; c < cells.size(); ++c) totals.columns[c].cells = std::move(cells[c]);
    if (!out.add(totals)) return false;
  }
  return out.finish();
}

}  // namespace

bool has_parked_tables(const std::vector<RankPartial>& parts) {
  for (const auto& p : parts)
    if (p.used)
      for (const auto& f : p.parked)
        if (f.key == "time" || f.key == "bandwidth") return true;
  return false;
}

std::shared_ptr<StreamedTables> prepare_streamed_tables(std::vector<RankPartial>& parts,
                                                        const frame::Frame& mapping,
                                                        size_t run_rows) {
  auto out = std::make_shared<StreamedTables>();
  for (auto& p : parts) {
    if (!p.used) continue;
    RankPartial r;
    r.rank = p.rank;
    r.used = true;
    for (const char* key : {"time", "bandwidth"}) {
      if (auto it = p.frames.find(key); it != p.frames.end()) {
        r.frames[key] = std::move(it->second);
        p.frames.erase(it);
      }
    }
    for (auto it = p.parked.begin(); it != p.parked.end();) {
      if (it->key == "time" || it->key == "bandwidth") {
        r.parked.push_back(std::move(*it));
        it = p.parked.erase(it);
      } else {
        ++it;
      }
    }
    out->ranks.push_back(std::move(r));
  }
  out->time.key = "time";
  out->time.table = "ClusterCommunicationTime";
  out->bandwidth.key = "bandwidth";
  out->bandwidth.table = "ClusterCommunicationBandwidth";
  const GroupRepeats repeats(mapping);  // once, not once a rank
  // The totals' runs go to the parked frames' spill file (held when nothing is parked).
  std::shared_ptr<runtime::SpillFile> file;
  for (const RankPartial& r : out->ranks)
    for (const ParkedFrame& f : r.parked)
      if (!file) file = f.file;
  prepare(out->time, out->ranks, repeats, run_rows, file);
  prepare(out->bandwidth, out->ranks, repeats, run_rows, file);
  return out;
}

bool write_streamed_tables(const StreamedTables& tables, const std::string& db,
                           io::Diagnostics& diag) {
  try {
    return write_table(tables.time, tables.ranks, db, diag) &&
           write_table(tables.bandwidth, tables.ranks, db, diag);
  } catch (const std::runtime_error& e) {
    diag.error(db, 0, std::string("communication_time_sum: ") + e.what(),
               "check the free space of the temporary directory ($TMPDIR)");
    return false;
  }
}

}  // namespace cs::recipes::communication_time_sum
