#include "analysis/comm_op_tables.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "analysis/comm_tables.h"
#include "msprof_analyze/documents/comm_batches.h"
#include "runtime/task_runner.h"

namespace cs::analysis {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Each distinct value's position in sorted order, by code.
std::vector<uint32_t> code_ordinals(const io::Column& c, bool natural) {
  std::vector<uint32_t> by_value(c.dict.size());
  for (uint32_t i = 0; i < by_value.size(); ++i) by_value[i] = i;
  if (natural) {
    std::vector<std::string> keys(c.dict.size());
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = natural_key(c.dict[i]);
    std::sort(by_value.begin(), by_value.end(),
              [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  } else {
    std::sort(by_value.begin(), by_value.end(),
              [&](uint32_t a, uint32_t b) { return c.dict[a] < c.dict[b]; });
  }
  std::vector<uint32_t> ord(by_value.size());
  for (uint32_t i = 0; i < by_value.size(); ++i) ord[by_value[i]] = i;
  return ord;
}

// v[first, first + order.size()) rearranged: position first + i takes v[order[i]].
template <class T>
void gather(std::vector<T>& v, const std::vector<uint32_t>& order, size_t first) {
  std::vector<T> out;
  out.reserve(order.size());
  for (uint32_t i : order) out.push_back(std::move(v[i]));
  std::move(out.begin(), out.end(), v.begin() + static_cast<long>(first));
}

}  // namespace

void sort_table_rows(io::Table& t, const std::vector<SortKey>& keys, size_t first, size_t last) {
  struct Key {
    const io::Column* col;
    std::vector<uint32_t> ord;  // encoded columns: each code's position
  };
  std::vector<Key> ks;
  for (const SortKey& k : keys) {
    const io::Column* c = t.find(k.column);
    if (!c || (c->type == io::ColumnType::kString && !c->encoded) ||
        c->type == io::ColumnType::kDouble)
      throw std::logic_error(std::string("sort_table_rows: no int or encoded column ") + k.column);
    ks.push_back(
        {c, c->encoded && !k.first_seen ? code_ordinals(*c, k.natural) : std::vector<uint32_t>{}});
  }
  last = std::min(last, t.rows());
  if (first >= last) return;
  std::vector<uint32_t> order(last - first);
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(first + i);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    for (const Key& k : ks) {
      const int64_t x = !k.col->encoded ? k.col->ints[a]
                        : k.ord.empty() ? k.col->codes[a]
                                        : k.ord[k.col->codes[a]];
      const int64_t y = !k.col->encoded ? k.col->ints[b]
                        : k.ord.empty() ? k.col->codes[b]
                                        : k.ord[k.col->codes[b]];
      if (x != y) return x < y;
    }
    return a < b;
  });
  for (io::Column& c : t.columns) {
    if (c.encoded) {
      gather(c.codes, order, first);
    } else if (c.type == io::ColumnType::kString) {
      gather(c.strings, order, first);
    } else if (c.type == io::ColumnType::kInt) {
      gather(c.ints, order, first);
    } else {
      gather(c.doubles, order, first);
    }
  }
}

void append_table_rows(io::Table& into, const io::Table& from) {
  if (into.columns.size() != from.columns.size())
    throw std::logic_error("append_table_rows: tables " + into.name + " and " + from.name +
                           " differ in columns");
  for (size_t k = 0; k < into.columns.size(); ++k) {
    io::Column& c = into.columns[k];
    const io::Column& f = from.columns[k];
    switch (c.type) {
      case io::ColumnType::kString:
        if (c.encoded) {
          std::unordered_map<std::string, uint32_t> code;
          for (uint32_t i = 0; i < c.dict.size(); ++i) code.emplace(c.dict[i], i);
          for (size_t i = 0; i < f.size(); ++i) {
            const std::string_view v = f.str(i);
            auto it = code.find(std::string(v));
            if (it == code.end()) {
              it = code.emplace(std::string(v), static_cast<uint32_t>(c.dict.size())).first;
              c.dict.emplace_back(v);
            }
            c.codes.push_back(it->second);
          }
        } else {
          for (size_t i = 0; i < f.size(); ++i) c.strings.emplace_back(f.str(i));
        }
        break;
      case io::ColumnType::kInt:
        c.ints.insert(c.ints.end(), f.ints.begin(), f.ints.end());
        break;
      case io::ColumnType::kDouble:
        c.doubles.insert(c.doubles.end(), f.doubles.begin(), f.doubles.end());
        break;
    }
  }
}

namespace {

// The two tables' columns; the chunks and the shapes share them. String columns are
// dictionary-encoded: a batch's rows repeat a few names.
struct OpTableColumns {
  io::Table ops{"communication_ops"}, bw{"communication_bandwidth"};
  io::DictionaryEncoder step{ops.add_encoded_string("step")};
  io::DictionaryEncoder group{ops.add_encoded_string("group")};
  io::DictionaryEncoder op{ops.add_encoded_string("op")};
  io::Column& rank = ops.add_int("rank");
  io::Column& elapse = ops.add_double("elapse_ms", "ms");
  io::Column& transit = ops.add_double("transit_ms", "ms");
  io::Column& wait = ops.add_double("wait_ms", "ms");
  io::Column& sync = ops.add_double("sync_ms", "ms");
  io::Column& idle = ops.add_double("idle_ms", "ms");
  io::Column& wait_ratio = ops.add_double("wait_ratio", "ratio");
  io::Column& sync_ratio = ops.add_double("sync_ratio", "ratio");
  io::DictionaryEncoder type{ops.add_encoded_string("type")};
  io::Column& tuple = ops.add_int("tuple");  // the batch's tuple, for the order only
  io::Column& start = ops.add_double("start_us", "us");
  io::DictionaryEncoder bw_step{bw.add_encoded_string("step")};
  io::DictionaryEncoder bw_group{bw.add_encoded_string("group")};
  io::Column& bw_rank = bw.add_int("rank");
  io::DictionaryEncoder bw_transport{bw.add_encoded_string("transport")};
  io::Column& bw_size = bw.add_double("size_mb", "MB");
  io::Column& bw_time = bw.add_double("time_ms", "ms");
  io::Column& bw_gbps = bw.add_double("bandwidth_gbps", "GB/s");
  io::Column& bw_tuple = bw.add_int("tuple");
};

// The group tuple ("(0, 1, 2, 3)") orders the rows (its position in the batch, which is the
// document's order) but is not written: on every row it would make the tables grow with ranks x
// group size (a 16,384-rank job's data-parallel groups: 1,792 bytes a row, 307 MB of
// communication_bandwidth.csv). A group's ranks are in comm_rank_summary (group, rank) and
// communication_group.json.
void drop_sort_columns(OpTableColumns& c) {
  for (io::Table* t : {&c.ops, &c.bw})
    std::erase_if(t->columns, [](const io::Column& col) { return col.name == "tuple"; });
}

}  // namespace

CommOpTableShapes comm_op_table_shapes(const documents::CommStringWidths& w) {
  OpTableColumns c;
  drop_sort_columns(c);
  CommOpTableShapes s{std::move(c.ops), std::move(c.bw), {}, {}};
  const size_t type = w.collective ? 10 : w.p2p ? 3 : 0;  // "collective", "p2p"
  auto mean = [](uint64_t bytes, uint64_t count) {
    return count == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(count);
  };
  const io::StringColumnSize step{w.step, mean(w.step_bytes, w.reports)},
      group{w.group, mean(w.group_bytes, w.reports)}, op{w.op, mean(w.op_bytes, w.reports)},
      transport{w.transport, mean(w.transport_bytes, w.transports)};
  s.ops_strings = {step, group, op, {type, static_cast<double>(type)}};
  s.bandwidth_strings = {step, group, transport};
  return s;
}

namespace {

// The rows of batch.groups[first, last): comm_op_chunk's, for a run of the batch's tuples.
CommOpChunk chunk_of(const documents::CommIndex& batch, size_t first, size_t last) {
  OpTableColumns c;
  // One block per column of the ops table (a row per rank of each op: counted first). The
  // bandwidth rows are known only as they are built.
  size_t op_rows = 0;
  for (size_t g = first; g < last; ++g) op_rows += documents::comm_group_reports(batch.groups[g]);
  c.ops.reserve_rows(op_rows);
  for (size_t g = first; g < last; ++g) {
    const documents::CommGroupEntry& ge = batch.groups[g];
    for (const documents::CommStepEntry& se : ge.steps) {
      for (const documents::CommOpEntry& oe : se.ops)
        for (const documents::CommOpRef& ref : oe.ranks) {
          const readers::CommOp& op = *ref.op;
          auto get = [&](readers::TimeField f) {
            return op.has_time_info && op.time.has(f) ? op.time.get(f) : kNaN;
          };
          c.step.push(se.step);
          c.group.push(documents::py_group_of(oe.key));
          c.op.push(documents::op_part_of(oe.key));
          c.rank.ints.push_back(ref.rank);
          c.elapse.doubles.push_back(get(readers::kElapseTimeMs));
          c.transit.doubles.push_back(get(readers::kTransitTimeMs));
          c.wait.doubles.push_back(get(readers::kWaitTimeMs));
          c.sync.doubles.push_back(get(readers::kSyncTimeMs));
          c.idle.doubles.push_back(get(readers::kIdleTimeMs));
          c.wait_ratio.doubles.push_back(get(readers::kWaitTimeRatio));
          c.sync_ratio.doubles.push_back(get(readers::kSyncTimeRatio));
          c.type.push(oe.p2p ? "p2p" : "collective");
          c.tuple.ints.push_back(static_cast<int64_t>(g));
          c.start.doubles.push_back(get(readers::kStartTimestampUs));
        }
      for (const documents::TotalGroup& tg : documents::compute_total_op_info(se))
        for (const documents::TotalRank& tr : tg.ranks)
          for (const documents::TotalTransport& tt : tr.transports) {
            c.bw_step.push(se.step);
            c.bw_group.push(tg.group);
            c.bw_rank.ints.push_back(tr.rank);
            c.bw_transport.push(tt.name);
            c.bw_size.doubles.push_back(tt.size_mb.v);
            c.bw_time.doubles.push_back(tt.time_ms.v);
            c.bw_gbps.doubles.push_back(
                std::fabs(tt.time_ms.v) < 1e-15 ? 0.0 : tt.size_mb.v / tt.time_ms.v);
            c.bw_tuple.ints.push_back(static_cast<int64_t>(g));
          }
    }
  }
  // Table order: the tuples stay in document order (the batch's), each tuple's rows sorted.
  sort_table_rows(c.ops, {{"tuple"}, {"step", true}, {"group"}, {"op", true}, {"rank"}});
  sort_table_rows(c.bw, {{"tuple"}, {"step", true}, {"group"}, {"rank"}, {"transport"}});
  drop_sort_columns(c);
  return CommOpChunk{std::move(c.ops), std::move(c.bw)};
}

}  // namespace

CommOpChunk comm_op_chunk(const documents::CommIndex& batch) {
  return chunk_of(batch, 0, batch.groups.size());
}

std::vector<CommOpChunk> comm_op_chunks(const documents::CommIndex& batch, int threads) {
  std::vector<size_t> reports;
  for (const documents::CommGroupEntry& ge : batch.groups)
    reports.push_back(documents::comm_group_reports(ge) + 1);
  const std::vector<size_t> runs =
      runtime::balanced_runs(reports, static_cast<size_t>(std::max(1, threads)));
  std::vector<CommOpChunk> out(runs.size() - 1);
  runtime::parallel_for(out.size(), threads,
                        [&](size_t p) { out[p] = chunk_of(batch, runs[p], runs[p + 1]); });
  return out;
}

io::Table communication_ops_table(const std::vector<load::RankData>& ranks,
                                  const documents::CommGroups& groups) {
  const documents::CommBatches batches(ranks, groups);
  io::Table t = comm_op_table_shapes(batches.widths()).ops;
  for (size_t b = 0; b < batches.size(); ++b)
    append_table_rows(t, comm_op_chunk(batches.load(b).index).ops);
  return t;
}

io::Table communication_bandwidth_table(const std::vector<load::RankData>& ranks,
                                        const documents::CommGroups& groups) {
  const documents::CommBatches batches(ranks, groups);
  io::Table t = comm_op_table_shapes(batches.widths()).bandwidth;
  for (size_t b = 0; b < batches.size(); ++b)
    append_table_rows(t, comm_op_chunk(batches.load(b).index).bandwidth);
  return t;
}

}  // namespace cs::analysis
