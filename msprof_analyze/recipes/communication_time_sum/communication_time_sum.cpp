#include "msprof_analyze/recipes/communication_time_sum/communication_time_sum.h"

#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/pandas_math.h"
#include "msprof_analyze/recipes/communication_group_map/communication_group_map.h"
#include "msprof_analyze/recipes/communication_time_sum/time_sum_stream.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "runtime/allocator_tuning.h"
#include "runtime/ordered_parallel.h"

namespace cs::recipes::communication_time_sum {

namespace {

const std::vector<std::string> kTimeColumns = {"step",
                                               "rank_id",
                                               "hccl_op_name",
                                               "group_name",
                                               "start_timestamp",
                                               "elapsed_time",
                                               "transit_time",
                                               "wait_time",
                                               "synchronization_time",
                                               "idle_time",
                                               "synchronization_time_ratio",
                                               "wait_time_ratio"};
const std::vector<std::string> kBandwidthColumns = {
    "step",         "rank_id",       "hccl_op_name", "group_name",         "band_type",
    "transit_size", "transit_time",  "bandwidth",    "large_packet_ratio", "package_size",
    "count",        "total_duration"};

}  // namespace

const std::vector<std::string>& table_columns(std::string_view key) {
  return key == "time" ? kTimeColumns : kBandwidthColumns;
}

std::vector<std::string> input_columns(std::string_view key) {
  std::vector<std::string> names = table_columns(key);
  if (key == "time")
    names[5] = "elapse_time";
  else
    names[4] = "transport_type";
  return names;
}

namespace {

// A table's rows as the recipe keeps them: with the rank id, and a "step" column when the table
// has none.
void with_rank_and_step(frame::Frame& rows, int rank) {
  const size_t n = rows.rows();
  rows.add("rank_id").cells.assign(n, frame::Cell::integer(rank));
  if (!frame::find_column(rows, "step"))
    rows.add("step").cells.assign(n, frame::Cell::text("step"));
}

// Reads a whole table with the rank id (and a "step" column when the table has none).
bool read_table(recipes::RankDb& db, const std::string& table, int rank, frame::Frame& out,
                io::Diagnostics& diag) {
  if (!db.has_table(table)) return true;
  if (!db.query("SELECT * FROM " + table, {}, out, table, diag)) return false;
  with_rank_and_step(out, rank);
  return true;
}

// pd.merge(df, rank_set_df, on="group_name", how="left") repeats each row once per mapping row
// of its group (once when there is none): the row order with those repeats.
std::vector<size_t> merged_rows(const frame::Frame& f, const GroupRepeats& repeats) {
  std::vector<size_t> rows;
  rows.reserve(f.rows());
  const frame::FrameColumn* g = frame::find_column(f, "group_name");
  for (size_t r = 0; r < f.rows(); ++r) {
    const size_t m = g ? repeats.of(g->cells[r]) : 1;
    for (size_t k = 0; k < m; ++k) rows.push_back(r);
  }
  return rows;
}

// (a / b.replace(0, nan)).fillna(0).round(4)
frame::Cell ratio4(const frame::Cell& a, const frame::Cell& b) {
  const double den = b.num();
  if (den == 0.0 || std::isnan(den) || std::isnan(a.num())) return frame::Cell::real(0.0);
  const double q = a.num() / den;
  return frame::Cell::real(std::isnan(q) ? 0.0 : frame::numpy_round(q, 4));
}

frame::Cell add_cells(const frame::Cell& a, const frame::Cell& b) {
  if (a.kind == frame::Cell::Kind::kInt && b.kind == frame::Cell::Kind::kInt)
    return frame::Cell::integer(a.i() + b.i());
  return frame::Cell::real(a.num() + b.num());
}

const std::vector<std::string> kTimeKeys = {"step", "rank_id", "group_name"};
const std::vector<std::string> kBandwidthKeys = {"group_name", "step", "rank_id", "transport_type",
                                                 "package_size"};

// How many groups of `keys` the frames have, each alone (a rank's rows group only together).
size_t key_groups(const std::vector<const frame::Frame*>& frames,
                  const std::vector<std::string>& keys) {
  size_t n = 0;
  for (const frame::Frame* f : frames) n += frame::group_rows_flat(*f, keys, false).size();
  return n;
}

frame::Frame empty_frame(const std::vector<std::string>& names) {
  frame::Frame f;
  for (const auto& n : names) f.add(n);
  return f;
}

}  // namespace

namespace {

// A column's dtype: the whole table's when the frame is one rank of it (`whole`), else its own.
frame::Dtype dtype_in(const frame::FrameColumn& c, const WholeDtypes* whole) {
  if (whole)
    if (auto it = whole->find(c.name); it != whole->end()) return it->second;
  return c.dtype();
}

}  // namespace

GroupRepeats::GroupRepeats(const frame::Frame& mapping) {
  std::set<std::string> seen;
  const frame::FrameColumn* rs = frame::find_column(mapping, "rank_set");
  const frame::FrameColumn* gn = frame::find_column(mapping, "group_name");
  for (size_t r = 0; r < mapping.rows(); ++r) {
    const frame::Cell& g = gn->cells[r];
    if (seen.insert(frame::cell_key(rs->cells[r]) + '\x1f' + frame::cell_key(g)).second)
      ++counts_[g];
  }
}

size_t GroupRepeats::of(const frame::Cell& group) const {
  auto it = counts_.find(group);
  return it == counts_.end() ? 1 : it->second;
}

frame::Frame communication_time_with_totals(frame::Frame time, const frame::Frame& mapping,
                                            const WholeDtypes* whole) {
  return communication_time_with_totals(std::move(time), GroupRepeats(mapping), whole);
}

frame::Frame communication_bandwidth_with_totals(frame::Frame bandwidth,
                                                 const frame::Frame& mapping,
                                                 const WholeDtypes* whole) {
  return communication_bandwidth_with_totals(std::move(bandwidth), GroupRepeats(mapping), whole);
}

frame::Frame communication_time_with_totals(frame::Frame time, const GroupRepeats& repeats,
                                            const WholeDtypes* whole) {
  // merged_rows keeps every row, in order, repeated or not: no repeat, no copy.
  const std::vector<size_t> merged_order = merged_rows(time, repeats);
  frame::Frame repeated;
  if (merged_order.size() != time.rows()) repeated = frame::take(time, merged_order);
  const frame::Frame& merged = merged_order.size() != time.rows() ? repeated : time;
  const std::vector<std::string> sums = {"elapse_time", "transit_time", "wait_time",
                                         "synchronization_time", "idle_time"};
  frame::Frame summed;
  for (const char* k : {"step", "rank_id", "group_name"}) summed.add(k);
  for (const auto& s : sums) summed.add(s);
  std::vector<frame::Dtype> types;
  for (const auto& s : sums) {
    const frame::FrameColumn* c = frame::find_column(merged, s);
    types.push_back(c ? dtype_in(*c, whole) : frame::Dtype::kObject);
  }
  std::vector<const frame::FrameColumn*> cols;  // the 3 keys, then the sums (nullptr: missing)
  for (const auto& c : summed.columns) cols.push_back(frame::find_column(merged, c.name));
  for (const std::span<const size_t> rows : frame::group_rows_flat(merged, kTimeKeys, true)) {
    const size_t r0 = rows.front();
    for (size_t k = 0; k < 3; ++k) summed.columns[k].push_back(cols[k]->cells[r0]);
    for (size_t k = 0; k < sums.size(); ++k) {
      const frame::FrameColumn* c = cols[3 + k];
      summed.columns[3 + k].push_back(c ? frame::group_sum(*c, types[k], rows)
                                        : frame::Cell::integer(0));
    }
  }
  const size_t n = summed.rows();
  auto& op = summed.add("hccl_op_name");
  auto& start = summed.add("start_timestamp");
  auto& sync_ratio = summed.add("synchronization_time_ratio");
  auto& wait_ratio = summed.add("wait_time_ratio");
  const auto& transit = frame::find_column(summed, "transit_time")->cells;
  const auto& wait = frame::find_column(summed, "wait_time")->cells;
  const auto& sync = frame::find_column(summed, "synchronization_time")->cells;
  const frame::Cell total_op = frame::Cell::text("Total Op Info");
  for (size_t r = 0; r < n; ++r) {
    op.push_back(total_op);
    start.push_back(frame::Cell::integer(0));
    sync_ratio.push_back(ratio4(sync[r], add_cells(transit[r], sync[r])));
    wait_ratio.push_back(ratio4(wait[r], add_cells(transit[r], wait[r])));
  }
  // The op rows have ratio 0 (int): concatenated without the ratio columns (NULL there), then
  // filled, rather than copied once more to add them.
  const std::vector<std::string> order = input_columns("time");
  const size_t tn = time.rows();
  std::vector<const char*> zero_ratios;  // (a table with the column keeps its values)
  for (const char* k : {"synchronization_time_ratio", "wait_time_ratio"})
    if (!frame::find_column(time, k)) zero_ratios.push_back(k);
  frame::Frame out = frame::append_frames(std::move(time), summed, order);
  out.columns[5].name = "elapsed_time";
  for (const char* k : zero_ratios) {
    auto& cells = frame::find_column(out, k)->cells;
    for (size_t r = 0; r < tn; ++r) cells[r] = frame::Cell::integer(0);
  }
  return out;
}

frame::Frame communication_bandwidth_with_totals(frame::Frame bandwidth,
                                                 const GroupRepeats& repeats,
                                                 const WholeDtypes* whole) {
  const std::vector<size_t> merged_order = merged_rows(bandwidth, repeats);
  frame::Frame repeated;
  if (merged_order.size() != bandwidth.rows()) repeated = frame::take(bandwidth, merged_order);
  const frame::Frame& merged = merged_order.size() != bandwidth.rows() ? repeated : bandwidth;
  const std::vector<std::string> keys4 = {"group_name", "step", "rank_id", "transport_type"};
  // Per (group, step, rank, transport): the sizes and times of its distinct ops (first row of
  // each op name), summed as DataFrame.sum does.
  const frame::FrameColumn* op = frame::find_column(merged, "hccl_op_name");
  const frame::FrameColumn* size = frame::find_column(merged, "transit_size");
  const frame::FrameColumn* ttime = frame::find_column(merged, "transit_time");
  const frame::Dtype size_t_ = dtype_in(*size, whole), time_t_ = dtype_in(*ttime, whole);
  auto distinct_sum = [](const frame::FrameColumn& c, frame::Dtype t,
                         const std::vector<size_t>& rows) {
    if (t == frame::Dtype::kInt64) {
      int64_t s = 0;
      for (size_t r : rows) s += c.cells[r].i();
      return frame::Cell::integer(s);
    }
    std::vector<double> v;
    for (size_t r : rows) {
      const frame::Cell& x = c.cells[r];
      v.push_back(x.is_number() && !std::isnan(x.num()) ? x.num() : 0.0);
    }
    return frame::Cell::real(frame::numpy_sum(v));
  };
  // Per keys4 group its two sums, and each row's keys4 group.
  std::vector<std::pair<frame::Cell, frame::Cell>> sums4;
  std::vector<size_t> group4_of(merged.rows(), 0);
  std::unordered_set<frame::Cell, frame::CellKeyHash, frame::CellKeyEqual> ops;
  for (const std::span<const size_t> rows : frame::group_rows_flat(merged, keys4, false)) {
    ops.clear();
    std::vector<size_t> distinct;
    for (size_t r : rows) {
      if (ops.insert(op->cells[r]).second) distinct.push_back(r);
      group4_of[r] = sums4.size();
    }
    sums4.emplace_back(distinct_sum(*size, size_t_, distinct),
                       distinct_sum(*ttime, time_t_, distinct));
  }
  const std::vector<std::string>& keys5 = kBandwidthKeys;
  frame::Frame agg;
  for (const auto& k : keys5) agg.add(k);
  auto& count = agg.add("count");
  auto& duration = agg.add("total_duration");
  auto& agg_op = agg.add("hccl_op_name");
  auto& agg_size = agg.add("transit_size");
  auto& agg_time = agg.add("transit_time");
  auto& ratio = agg.add("large_packet_ratio");
  auto& bw = agg.add("bandwidth");
  const frame::FrameColumn* count_c = frame::find_column(merged, "count");
  const frame::FrameColumn* dur_c = frame::find_column(merged, "total_duration");
  const frame::Dtype count_t = dtype_in(*count_c, whole), dur_t = dtype_in(*dur_c, whole);
  const frame::Cell total_op = frame::Cell::text("Total Op Info");
  std::vector<const frame::FrameColumn*> key_cols;
  for (const auto& k : keys5) key_cols.push_back(frame::find_column(merged, k));
  for (const std::span<const size_t> rows : frame::group_rows_flat(merged, keys5, true)) {
    const size_t r0 = rows.front();
    for (size_t k = 0; k < keys5.size(); ++k) agg.columns[k].push_back(key_cols[k]->cells[r0]);
    count.push_back(frame::group_sum(*count_c, count_t, rows));
    duration.push_back(frame::group_sum(*dur_c, dur_t, rows));
    agg_op.push_back(total_op);
    const auto& s = sums4[group4_of[r0]];
    agg_size.push_back(s.first);
    agg_time.push_back(s.second);
    ratio.push_back(frame::Cell::integer(0));
    bw.push_back(ratio4(s.first, s.second));
  }
  const std::vector<std::string> order = input_columns("bandwidth");
  frame::Frame out = frame::append_frames(std::move(bandwidth), agg, order);
  out.columns[4].name = "band_type";
  return out;
}

namespace {

// The time and bandwidth frames of a rank whose groups are in `out` already.
bool map_time_tables(recipes::RankDb& db, const RankDbPaths& paths, frame::Frame time,
                     bool time_read, frame::FrameSet& out, io::Diagnostics& diag) {
  frame::Frame bandwidth;
  if ((!time_read && !read_table(db, "CommAnalyzerTime", paths.rank, time, diag)) ||
      !read_table(db, "CommAnalyzerBandwidth", paths.rank, bandwidth, diag))
    return false;
  if (time.rows() == 0 || bandwidth.rows() == 0) {
    diag.warn(paths.analysis_db, 0,
              "communication_time_sum: no CommAnalyzerTime or "
              "CommAnalyzerBandwidth rows",
              "this rank adds no communication times");
    return true;
  }
  out["time"] = std::move(time);
  out["bandwidth"] = std::move(bandwidth);
  return true;
}

// The map step as two reads of CommAnalyzerTime (its groups, then the whole table): what a rank
// whose table cannot be read whole with both columns says.
bool map_in_two_reads(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) {
  if (!communication_group_map::map_communication_groups(paths, out, diag)) return false;
  recipes::RankDb db(paths.analysis_db, diag);
  if (!db.ok()) return false;
  return map_time_tables(db, paths, frame::Frame{}, false, out, diag);
}

}  // namespace

bool map_communication_time(recipes::RankDb& db, const RankDbPaths& paths, frame::FrameSet& out,
                            io::Diagnostics& diag) {
  if (!db.ok()) return map_in_two_reads(paths, out, diag);
  frame::Frame time;
  const bool has_time = db.has_table("CommAnalyzerTime");
  if (has_time) {
    io::Diagnostics unused;  // a failure is said by the two reads, as it always was
    if (!db.query("SELECT * FROM CommAnalyzerTime", {}, time, "CommAnalyzerTime", unused) ||
        !frame::find_column(time, "hccl_op_name") || !frame::find_column(time, "group_name"))
      return map_in_two_reads(paths, out, diag);
  }
  communication_group_map::communication_groups_from(paths, has_time ? &time : nullptr, out, diag);
  if (has_time) with_rank_and_step(time, paths.rank);
  return map_time_tables(db, paths, std::move(time), true, out, diag);
}

bool CommunicationTimeSum::map(const RankDbPaths& paths, frame::FrameSet& out,
                               io::Diagnostics& diag) const {
  recipes::RankDb db(paths.analysis_db, diag);
  if (!db.ok()) return false;
  return map_communication_time(db, paths, out, diag);
}

bool CommunicationTimeSum::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                                  io::Diagnostics& diag) const {
  std::vector<RankPartial> copy = parts;  // merge takes the frames
  return merge(copy, out.threads, diag)(out, diag);
}

namespace {

// Drops each rank's "comm_groups" and "parallel_info" frames, held or parked, once the group
// mapping is built from them.
void drop_group_frames(std::vector<RankPartial>& parts) {
  auto group_frame = [](const std::string& key) {
    return key == "comm_groups" || key == "parallel_info";
  };
  for (RankPartial& p : parts) {
    std::erase_if(p.frames, [&](const auto& f) { return group_frame(f.first); });
    std::erase_if(p.parked, [&](const ParkedFrame& f) { return group_frame(f.key); });
  }
}

// The merge of ranks parked on disk: the two big tables are written a rank at a time
// (time_sum_stream.h), the group mapping as before.
Recipe::WriteStep merge_streamed(std::vector<RankPartial>& parts,
                                 std::shared_ptr<frame::Frame> mapping) {
  std::shared_ptr<StreamedTables> tables;
  std::string problem;
  try {
    tables = prepare_streamed_tables(parts, *mapping);
  } catch (const std::runtime_error& e) {
    problem = e.what();
  }
  return [mapping, tables, problem](const RecipeOutput& out, io::Diagnostics& diag) {
    const std::string db = out.db_path("CommunicationTimeSum");
    if (!problem.empty()) {
      diag.error(db, 0, "communication_time_sum: " + problem,
                 "check the free space of the temporary directory ($TMPDIR)");
      return false;
    }
    for (const StreamedTable* t : {&tables->time, &tables->bandwidth})
      if (!t->totals->problem().empty()) {
        diag.warn(out.cluster_output_dir, 0,
                  "communication_time_sum: the totals of " + t->table +
                      " could not be parked on disk (" + t->totals->problem() +
                      "): they were held in memory",
                  "check the free space of the temporary directory ($TMPDIR)");
        break;
      }
    return recipes::write_frame_sqlite(*mapping, db, "CommunicationGroupMapping", diag) &&
           write_streamed_tables(*tables, db, diag);
  };
}

}  // namespace

Recipe::WriteStep CommunicationTimeSum::merge(std::vector<RankPartial>& parts, int threads,
                                              io::Diagnostics& /*diag*/) const {
  auto mapping = std::make_shared<frame::Frame>();
  if (!communication_group_map::build_group_mapping(parts, *mapping)) {
    return [](const RecipeOutput& out, io::Diagnostics& d) {
      d.error(out.cluster_output_dir, 0,
              "communication_time_sum: no communication group found, so no CommunicationGroup"
              "Mapping",
              "check that analysis.db has CommAnalyzerTime rows");
      return false;
    };
  }
  drop_group_frames(parts);  // the mapping has what they said
  if (has_parked_tables(parts)) return merge_streamed(parts, mapping);
  // The ranks' frames taken from the parts: each rank's rows are freed as they are concatenated.
  std::vector<frame::Frame> times = take_used_frames(parts, "time");
  std::vector<frame::Frame> bands = take_used_frames(parts, "bandwidth");
  auto time_out = std::make_shared<frame::Frame>(empty_frame(kTimeColumns));
  auto band_out = std::make_shared<frame::Frame>(empty_frame(kBandwidthColumns));
  // The ranks' rows with room for the totals (one row per key of each rank's rows), which are
  // then appended in place. The two tables are independent: the bandwidth one built on another
  // thread when there is one.
  auto with_totals = [&mapping](std::vector<frame::Frame>& frames,
                                const std::vector<std::string>& keys, auto totals) {
    std::vector<const frame::Frame*> ptrs;
    for (const frame::Frame& f : frames) ptrs.push_back(&f);
    const std::vector<std::string> names = frame::column_union(ptrs);
    const size_t spare = key_groups(ptrs, keys);
    return totals(
        frame::concat_frames(std::move(frames), names, spare, runtime::release_freed_memory),
        *mapping, nullptr);
  };
  auto bandwidth = [&] {
    if (!bands.empty())
      *band_out = with_totals(bands, kBandwidthKeys,
                              [](frame::Frame f, const frame::Frame& m, const WholeDtypes* w) {
                                return communication_bandwidth_with_totals(std::move(f), m, w);
                              });
  };
  runtime::run_both(threads > 1, bandwidth, [&] {
    if (!times.empty())
      *time_out = with_totals(times, kTimeKeys,
                              [](frame::Frame f, const frame::Frame& m, const WholeDtypes* w) {
                                return communication_time_with_totals(std::move(f), m, w);
                              });
  });
  const std::string name = dir_name();
  return [mapping, time_out, band_out, name](const RecipeOutput& out, io::Diagnostics& diag) {
    const std::string db = out.db_path(name);
    if (!recipes::write_frame_sqlite(*mapping, db, "CommunicationGroupMapping", diag)) return false;
    if (out.export_type == ExportType::kDb)
      return recipes::write_frame_sqlite(*time_out, db, "ClusterCommunicationTime", diag,
                                         out.threads) &&
             recipes::write_frame_sqlite(*band_out, db, "ClusterCommunicationBandwidth", diag,
                                         out.threads);
    const std::string dir = out.dir(name);
    return recipes::write_frame_csv(*time_out, dir + "/cluster_communication_time.csv", diag) &&
           recipes::write_frame_csv(*band_out, dir + "/cluster_communication_bandwidth.csv", diag);
  };
}

}  // namespace cs::recipes::communication_time_sum
