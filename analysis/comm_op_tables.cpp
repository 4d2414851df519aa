#include "analysis/comm_op_tables.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/comm_tables.h"
#include "msprof_analyze/documents/comm_batches.h"

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

template <class T>
void gather(std::vector<T>& v, const std::vector<uint32_t>& order) {
  std::vector<T> out;
  out.reserve(v.size());
  for (uint32_t i : order) out.push_back(std::move(v[i]));
  v = std::move(out);
}

}  // namespace

void sort_table_rows(io::Table& t, const std::vector<SortKey>& keys) {
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
    ks.push_back({c, c->encoded ? code_ordinals(*c, k.natural) : std::vector<uint32_t>{}});
  }
  const size_t n = t.rows();
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    for (const Key& k : ks) {
      const int64_t x = k.col->encoded ? k.ord[k.col->codes[a]] : k.col->ints[a];
      const int64_t y = k.col->encoded ? k.ord[k.col->codes[b]] : k.col->ints[b];
      if (x != y) return x < y;
    }
    return a < b;
  });
  for (io::Column& c : t.columns) {
    if (c.encoded) {
      gather(c.codes, order);
    } else if (c.type == io::ColumnType::kString) {
      gather(c.strings, order);
    } else if (c.type == io::ColumnType::kInt) {
      gather(c.ints, order);
    } else {
      gather(c.doubles, order);
    }
  }
}

struct CommOpTables::Columns {
  io::Table ops{"communication_ops"}, bw{"communication_bandwidth"};
  // communication_ops. String columns are dictionary-encoded: 170k rows at 1,024 ranks repeat a
  // few thousand names.
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
  io::DictionaryEncoder group_ranks{ops.add_encoded_string("group_ranks")};
  io::Column& start = ops.add_double("start_us", "us");
  // communication_bandwidth
  io::DictionaryEncoder bw_step{bw.add_encoded_string("step")};
  io::DictionaryEncoder bw_group{bw.add_encoded_string("group")};
  io::Column& bw_rank = bw.add_int("rank");
  io::DictionaryEncoder bw_transport{bw.add_encoded_string("transport")};
  io::Column& bw_size = bw.add_double("size_mb", "MB");
  io::Column& bw_time = bw.add_double("time_ms", "ms");
  io::Column& bw_gbps = bw.add_double("bandwidth_gbps", "GB/s");
  io::DictionaryEncoder bw_group_ranks{bw.add_encoded_string("group_ranks")};
};

CommOpTables::CommOpTables() : c_(std::make_unique<Columns>()) {}
CommOpTables::~CommOpTables() = default;

void CommOpTables::add(const documents::CommIndex& batch) {
  Columns& c = *c_;
  for (const documents::CommGroupEntry& ge : batch.groups)
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
          c.group_ranks.push(ge.tuple_key);
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
            c.bw_group_ranks.push(ge.tuple_key);
          }
    }
}

io::Table CommOpTables::take_ops() {
  io::Table t = std::move(c_->ops);
  sort_table_rows(t, {{"step", true}, {"group"}, {"op", true}, {"rank"}});
  return t;
}

io::Table CommOpTables::take_bandwidth() {
  io::Table t = std::move(c_->bw);
  sort_table_rows(t, {{"step", true}, {"group"}, {"rank"}, {"transport"}});
  return t;
}

io::Table communication_ops_table(const std::vector<load::RankData>& ranks,
                                  const documents::CommGroups& groups) {
  const documents::CommBatches batches(ranks, groups);
  CommOpTables tables;
  for (size_t b = 0; b < batches.size(); ++b) tables.add(batches.load(b).index);
  return tables.take_ops();
}

io::Table communication_bandwidth_table(const std::vector<load::RankData>& ranks,
                                        const documents::CommGroups& groups) {
  const documents::CommBatches batches(ranks, groups);
  CommOpTables tables;
  for (size_t b = 0; b < batches.size(); ++b) tables.add(batches.load(b).index);
  return tables.take_bandwidth();
}

}  // namespace cs::analysis
