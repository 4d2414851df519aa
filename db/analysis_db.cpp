#include "db/analysis_db.h"

#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "db/column_checks.h"
#include "readers/msprof_matrix_adapter.h"

namespace cs::db {

namespace {

// StepTraceTime column -> step_trace_time.csv header, in the producer's order.
constexpr std::array<std::pair<const char*, const char*>, 9> kStepColumns = {{
    {"computing", "Computing"},
    {"communication_not_overlapped", "Communication(Not Overlapped)"},
    {"overlapped", "Overlapped"},
    {"communication", "Communication"},
    {"free", "Free"},
    {"stage", "Stage"},
    {"bubble", "Bubble"},
    {"communication_not_overlapped_and_exclude_receive",
     "Communication(Not Overlapped and Exclude Receive)"},
    {"preparing", "Preparing"},
}};

// Where an op lives while the tables are read: steps[step].collective/p2p[index].
struct OpRef {
  size_t step;
  bool p2p;
  size_t index;
};

// Builds the communication structure from rows in any order.
class CommBuilder {
 public:
  explicit CommBuilder(readers::CommunicationFile& out) : out_(out) {}

  // The op for (step, type, name@group), created at the end of its step when new.
  readers::CommOp& op(std::string_view step, std::string_view type, std::string_view op_name,
                      std::string_view group) {
    std::string name(op_name);
    if (!group.empty()) {
      name += '@';
      name += group;
    }
    const bool p2p = type == "p2p" || (type.empty() && readers::is_p2p_op_name(op_name));
    std::string key(step);
    key += '\x1f';
    key += p2p ? 'p' : 'c';
    key += name;
    auto it = ops_.find(key);
    if (it != ops_.end()) return at(it->second);
    size_t s = step_index(step);
    auto& list = p2p ? out_.steps[s].p2p : out_.steps[s].collective;
    list.emplace_back().name = std::move(name);
    OpRef ref{s, p2p, list.size() - 1};
    ops_.emplace(std::move(key), ref);
    pending_.emplace_back();
    refs_.push_back(ref);
    return list.back();
  }

  // The pending size buckets of an op's transport (its index in op.transports).
  std::vector<readers::SizeBucket>& buckets(const readers::CommOp& op, size_t transport) {
    auto& p = pending_[pending_index(op)];
    if (p.size() <= transport) p.resize(transport + 1);
    return p[transport];
  }

  // Lays every op's buckets out transport after transport.
  void finish() {
    for (size_t i = 0; i < refs_.size(); ++i) {
      readers::CommOp& op = at(refs_[i]);
      for (size_t t = 0; t < op.transports.size(); ++t) {
        if (t >= pending_[i].size()) break;
        auto& list = pending_[i][t];
        size_t n = std::min<size_t>(list.size(), readers::TransportInfo::kMaxBuckets);
        op.transports[t].bucket_count = static_cast<uint16_t>(n);
        for (size_t b = 0; b < n; ++b) op.buckets.push_back(std::move(list[b]));
      }
    }
  }

 private:
  readers::CommOp& at(const OpRef& r) {
    auto& list = r.p2p ? out_.steps[r.step].p2p : out_.steps[r.step].collective;
    return list[r.index];
  }
  size_t pending_index(const readers::CommOp& op) {
    for (size_t i = cached_; i < refs_.size(); ++i) {
      if (&at(refs_[i]) == &op) return cached_ = i;
    }
    for (size_t i = 0; i < refs_.size(); ++i) {
      if (&at(refs_[i]) == &op) return cached_ = i;
    }
    return 0;
  }
  size_t step_index(std::string_view step) {
    auto it = steps_.find(std::string(step));
    if (it != steps_.end()) return it->second;
    out_.steps.emplace_back().step = std::string(step);
    steps_.emplace(std::string(step), out_.steps.size() - 1);
    return out_.steps.size() - 1;
  }

  readers::CommunicationFile& out_;
  std::unordered_map<std::string, OpRef> ops_;
  std::unordered_map<std::string, size_t> steps_;
  std::vector<OpRef> refs_;                                             // creation order
  std::vector<std::vector<std::vector<readers::SizeBucket>>> pending_;  // per op, per transport
  size_t cached_ = 0;
};

// round(x, 4) of a / (a + b), 0 when the sum is 0: the producer's per-op ratios.
double ratio4(double a, double b) {
  const double d = a + b;
  return d == 0 ? 0.0 : io::py_round(a / d, 4);
}

// Column index of each name in a statement over "SELECT * FROM table".
int column_index(const Statement& st, std::string_view name) {
  for (int i = 0; i < st.column_count(); ++i) {
    if (st.column_name(i) == name) return i;
  }
  return -1;
}

}  // namespace

bool read_step_trace_db(const Database& db, readers::StepTraceFile& out, io::Diagnostics& diag) {
  out = {};
  if (!db.require(kStepTraceTimeTable, {"step"}, diag)) return false;
  auto st = db.prepare("SELECT * FROM StepTraceTime", kStepTraceTimeTable, diag);
  if (!st) return false;
  std::vector<int> cols;
  for (const auto& [db_name, csv_name] : kStepColumns) {
    int i = column_index(*st, db_name);
    if (i < 0) continue;  // older producers have no preparing column
    cols.push_back(i);
    out.columns.emplace_back(csv_name);
  }
  const int step_col = column_index(*st, "step");
  BadCells bad(db.path(), kStepTraceTimeTable);
  StepResult r;
  while ((r = st->step(diag)) == StepResult::kRow) {
    readers::StepTraceRow row;
    row.step = std::string(st->text_at(step_col));
    row.values.reserve(cols.size());
    for (size_t c = 0; c < cols.size(); ++c) {
      auto v = st->double_at(cols[c]);
      if (!v) bad.add(kStepColumns[c].first);
      row.values.push_back(v ? *v : std::numeric_limits<double>::quiet_NaN());
    }
    out.rows.push_back(std::move(row));
  }
  bad.report(diag);
  return r != StepResult::kError;
}

bool read_communication_db(const Database& db, readers::CommunicationFile& out,
                           io::Diagnostics& diag) {
  out = {};
  // CANN msprof's communication_analyzer.db (also MindSpore's) has no step and type columns:
  // one step "step", p2p by op name, as msprof-analyze reads it (docs/formats.md §9).
  const bool flat = db.has_table(kCommTimeTable) && !db.has_column(kCommTimeTable, "step") &&
                    !db.has_column(kCommTimeTable, "type");
  std::vector<std::string> time_cols = {
      "hccl_op_name", "group_name", "start_timestamp",      "elapse_time", "transit_time",
      "wait_time",    "idle_time",  "synchronization_time", "step",        "type"};
  if (flat) time_cols.resize(time_cols.size() - 2);
  if (!db.require(kCommTimeTable, time_cols, diag)) return false;
  const std::string step_type = flat ? "'step', ''" : "step, type";
  CommBuilder builder(out);
  {
    auto st = db.prepare("SELECT hccl_op_name, group_name, " + step_type +
                             ", start_timestamp, elapse_time, transit_time, wait_time, "
                             "synchronization_time, idle_time FROM CommAnalyzerTime",
                         kCommTimeTable, diag);
    if (!st) return false;
    static constexpr std::array<std::pair<int, const char*>, 6> kFields = {{
        {readers::kStartTimestampUs, "start_timestamp"},
        {readers::kElapseTimeMs, "elapse_time"},
        {readers::kTransitTimeMs, "transit_time"},
        {readers::kWaitTimeMs, "wait_time"},
        {readers::kSyncTimeMs, "synchronization_time"},
        {readers::kIdleTimeMs, "idle_time"},
    }};
    BadCells bad(db.path(), kCommTimeTable);
    StepResult r;
    while ((r = st->step(diag)) == StepResult::kRow) {
      if (st->is_null(0)) {
        bad.skip_row();
        continue;
      }
      readers::CommOp& op =
          builder.op(st->text_at(2), st->text_at(3), st->text_at(0), st->text_at(1));
      op.has_time_info = true;
      for (size_t f = 0; f < kFields.size(); ++f) {
        auto n = st->num_at(4 + static_cast<int>(f));
        if (n) {
          op.time.set(kFields[f].first, *n);
        } else {
          bad.add(kFields[f].second);
        }
      }
      if (op.time.has(readers::kWaitTimeMs) && op.time.has(readers::kTransitTimeMs)) {
        op.time.set(readers::kWaitTimeRatio,
                    io::Num::real(ratio4(op.time.get(readers::kWaitTimeMs),
                                         op.time.get(readers::kTransitTimeMs))));
      }
      if (op.time.has(readers::kSyncTimeMs) && op.time.has(readers::kTransitTimeMs)) {
        op.time.set(readers::kSyncTimeRatio,
                    io::Num::real(ratio4(op.time.get(readers::kSyncTimeMs),
                                         op.time.get(readers::kTransitTimeMs))));
      }
    }
    bad.report(diag);
    if (r == StepResult::kError) return false;
  }
  std::vector<std::string> band_cols = {"hccl_op_name",       "group_name",   "transport_type",
                                        "transit_size",       "transit_time", "bandwidth",
                                        "large_packet_ratio", "package_size", "count",
                                        "total_duration",     "step",         "type"};
  if (flat) band_cols.resize(band_cols.size() - 2);
  // Bandwidth is optional (an export without it still has the times); a damaged table is an error.
  if (db.has_table(kCommBandwidthTable) && db.require(kCommBandwidthTable, band_cols, diag)) {
    auto st = db.prepare("SELECT hccl_op_name, group_name, " + step_type +
                             ", transport_type, transit_size, transit_time, bandwidth, "
                             "large_packet_ratio, package_size, count, total_duration "
                             "FROM CommAnalyzerBandwidth",
                         kCommBandwidthTable, diag);
    if (!st) return false;
    BadCells bad(db.path(), kCommBandwidthTable);
    static constexpr std::array<const char*, 4> kTrCols = {"transit_size", "transit_time",
                                                           "bandwidth", "large_packet_ratio"};
    StepResult r;
    while ((r = st->step(diag)) == StepResult::kRow) {
      readers::TransportName tn;
      if (st->is_null(0) || st->is_null(4) || !readers::TransportName::make(st->text_at(4), tn)) {
        bad.skip_row();
        continue;
      }
      readers::CommOp& op =
          builder.op(st->text_at(2), st->text_at(3), st->text_at(0), st->text_at(1));
      op.has_bandwidth_info = true;
      size_t t = 0;
      while (t < op.transports.size() && !(op.transports[t].name == tn)) ++t;
      if (t == op.transports.size()) {
        readers::TransportInfo& tr = op.transports.emplace_back();
        tr.name = tn;
        tr.has_size_distribution = true;
        for (int f = 0; f < readers::kTransportFieldCount; ++f) {
          auto n = st->num_at(5 + f);
          if (n) {
            tr.set(f, *n);
          } else {
            bad.add(kTrCols[f]);
          }
        }
      }
      auto size = st->num_at(9);
      auto count = st->num_at(10);
      auto dur = st->num_at(11);
      if (!size || !count || !dur) {
        if (!size) bad.add("package_size");
        if (!count) bad.add("count");
        if (!dur) bad.add("total_duration");
        continue;
      }
      // A transport without packets is written as one row of zeros.
      if (size->v == 0 && count->v == 0 && dur->v == 0) continue;
      builder.buckets(op, t).push_back({io::py_repr(size->v), *count, *dur});
    }
    bad.report(diag);
    if (r == StepResult::kError) return false;
  }
  builder.finish();
  // msprof-analyze's adapter of the flat layout lists a rank's p2p ops first (as the text
  // PROF_ layout is read: readers/communication.h).
  if (flat)
    for (auto& step : out.steps) step.p2p_first = true;
  return true;
}

namespace {

// One CommAnalyzerMatrix row's link: its transport, local ranks and "src-dst" id, and the
// transit size, time and bandwidth from column `first_num` on (a missing one is a bad cell).
void fill_matrix_link(readers::MatrixLink& link, readers::TransportName tn, int64_t src,
                      int64_t dst, Statement& st, int first_num, readers::MatrixFile& out,
                      BadCells& bad) {
  link.transport = tn;
  link.src_local = static_cast<int>(src);
  link.dst_local = static_cast<int>(dst);
  link.link_id = out.keep(std::to_string(src) + "-" + std::to_string(dst));
  static constexpr std::array<std::pair<int, const char*>, 3> kNums = {{
      {readers::kLinkSizeMb, "transit_size"},
      {readers::kLinkTimeMs, "transit_time"},
      {readers::kLinkBandwidthGbps, "bandwidth"},
  }};
  for (size_t f = 0; f < kNums.size(); ++f) {
    auto n = st.num_at(first_num + static_cast<int>(f));
    if (n) {
      link.set(kNums[f].first, *n);
    } else {
      bad.add(kNums[f].second);
    }
  }
}

// CANN msprof's CommAnalyzerMatrix (also MindSpore's): one row per link of each op INSTANCE,
// without step, type and op_name, adapted as the flat communication_matrix.json is
// (readers/msprof_matrix_adapter.h).
bool read_flat_matrix_db(const Database& db, readers::MatrixFile& out, io::Diagnostics& diag) {
  static const std::vector<std::string> kCols = {"hccl_op_name", "group_name",     "src_rank",
                                                 "dst_rank",     "transport_type", "transit_size",
                                                 "transit_time", "bandwidth"};
  if (!db.require(kCommMatrixTable, kCols, diag)) return false;
  auto st = db.prepare(
      "SELECT hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size, "
      "transit_time, bandwidth FROM CommAnalyzerMatrix",
      kCommMatrixTable, diag);
  if (!st) return false;
  std::vector<readers::MatrixOp> instances;
  std::unordered_map<std::string, size_t> index;
  BadCells bad(db.path(), kCommMatrixTable);
  StepResult r;
  while ((r = st->step(diag)) == StepResult::kRow) {
    auto src = st->int64_at(2);
    auto dst = st->int64_at(3);
    readers::TransportName tn;
    if (st->is_null(0) || !src || !dst || !readers::TransportName::make(st->text_at(4), tn)) {
      bad.skip_row();
      continue;
    }
    std::string key(st->text_at(0));
    if (!st->is_null(1)) {
      key += '@';
      key += st->text_at(1);
    }
    auto [it, fresh] = index.try_emplace(key, instances.size());
    if (fresh) instances.emplace_back().key = key;
    readers::MatrixLink& link = instances[it->second].links.emplace_back();
    fill_matrix_link(link, tn, *src, *dst, *st, 5, out, bad);
  }
  bad.report(diag);
  if (r == StepResult::kError) return false;
  std::vector<std::string> unknown;
  out.steps.push_back(readers::adapt_msprof_matrix(std::move(instances), out, &unknown));
  if (!unknown.empty())
    diag.warn(db.path(), 0,
              "table CommAnalyzerMatrix: " + std::to_string(unknown.size()) +
                  " op type(s) match no known communication type; named by the op name before "
                  "its first \"__\", as msprof-analyze does",
              "check the op names; their matrix rows are keyed by that name");
  return true;
}

}  // namespace

bool read_matrix_db(const Database& db, readers::MatrixFile& out, io::Diagnostics& diag) {
  out = {};
  if (db.has_table(kCommMatrixTable) && !db.has_column(kCommMatrixTable, "step") &&
      !db.has_column(kCommMatrixTable, "op_name"))
    return read_flat_matrix_db(db, out, diag);
  static const std::vector<std::string> kCols = {
      "hccl_op_name", "group_name", "src_rank", "dst_rank", "transport_type", "transit_size",
      "transit_time", "bandwidth",  "step",     "type",     "op_name"};
  if (!db.require(kCommMatrixTable, kCols, diag)) return false;
  auto st = db.prepare(
      "SELECT hccl_op_name, group_name, step, type, src_rank, dst_rank, transport_type, "
      "transit_size, transit_time, bandwidth, op_name FROM CommAnalyzerMatrix",
      kCommMatrixTable, diag);
  if (!st) return false;
  std::unordered_map<std::string, OpRef> ops;
  std::unordered_map<std::string, size_t> steps;
  BadCells bad(db.path(), kCommMatrixTable);
  StepResult r;
  while ((r = st->step(diag)) == StepResult::kRow) {
    auto src = st->int64_at(4);
    auto dst = st->int64_at(5);
    readers::TransportName tn;
    if (st->is_null(0) || !src || !dst || !readers::TransportName::make(st->text_at(6), tn)) {
      bad.skip_row();
      continue;
    }
    std::string step(st->text_at(2));
    std::string_view type = st->text_at(3);
    std::string opkey(st->text_at(0));
    if (!st->is_null(1)) {
      opkey += '@';
      opkey += st->text_at(1);
    }
    const bool p2p = type == "p2p";
    std::string key = step + '\x1f' + (p2p ? 'p' : 'c') + opkey;
    auto it = ops.find(key);
    if (it == ops.end()) {
      auto sit = steps.find(step);
      if (sit == steps.end()) {
        out.steps.emplace_back().step = step;
        sit = steps.emplace(step, out.steps.size() - 1).first;
      }
      auto& list = p2p ? out.steps[sit->second].p2p : out.steps[sit->second].collective;
      list.emplace_back().key = opkey;
      it = ops.emplace(key, OpRef{sit->second, p2p, list.size() - 1}).first;
    }
    auto& list =
        it->second.p2p ? out.steps[it->second.step].p2p : out.steps[it->second.step].collective;
    readers::MatrixOp& op = list[it->second.index];
    readers::MatrixLink& link = op.links.emplace_back();
    fill_matrix_link(link, tn, *src, *dst, *st, 7, out, bad);
    if (!st->is_null(10)) {
      link.has_op_name = true;
      link.op_name_id = out.keep(st->text_at(10));
    }
  }
  bad.report(diag);
  return r != StepResult::kError;
}

}  // namespace cs::db
