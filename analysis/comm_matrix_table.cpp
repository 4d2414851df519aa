#include "analysis/comm_matrix_table.h"

#include <algorithm>

#include "analysis/comm_op_tables.h"
#include "runtime/task_runner.h"

namespace cs::analysis {

namespace {

struct Columns {
  io::Table t{"communication_matrix"};
  // ~700k rows at 1,024 ranks with a few thousand distinct names: 4 bytes a string cell.
  io::DictionaryEncoder step{t.add_encoded_string("step")};
  io::DictionaryEncoder group{t.add_encoded_string("group")};
  io::DictionaryEncoder op{t.add_encoded_string("op")};
  io::Column& src = t.add_int("src_rank");
  io::Column& dst = t.add_int("dst_rank");
  io::DictionaryEncoder transport{t.add_encoded_string("transport")};
  io::Column& size = t.add_double("size_mb", "MB");
  io::Column& time = t.add_double("time_ms", "ms");
  io::Column& bw = t.add_double("bandwidth_gbps", "GB/s");
  io::DictionaryEncoder op_name{t.add_encoded_string("op_name")};

  void add(const std::vector<documents::GlobalLink>& links) {
    for (const documents::GlobalLink& l : links) {
      std::string_view o = documents::op_part_of(l.op_key());
      if (o.empty()) o = l.op_key();
      step.push(l.step());
      group.push(l.group());
      op.push(o);
      src.ints.push_back(l.src_rank);
      dst.ints.push_back(l.dst_rank);
      transport.push(l.transport);
      size.doubles.push_back(l.size_mb);
      time.doubles.push_back(l.time_ms);
      bw.doubles.push_back(l.bandwidth_gbps());
      op_name.push(l.op_name());
    }
  }
};

double mean(uint64_t bytes, uint64_t count) {
  return count == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(count);
}

}  // namespace

CommMatrixShape comm_matrix_shape(const documents::MatrixStringWidths& w) {
  Columns c;
  CommMatrixShape s{std::move(c.t), {}};
  s.strings = {{w.step, mean(w.step_bytes, w.links)},
               {w.group, mean(w.group_bytes, w.links)},
               {w.op, mean(w.op_bytes, w.links)},
               {w.transport, mean(w.transport_bytes, w.links)},
               {w.op_name, mean(w.op_name_bytes, w.links)}};
  return s;
}

namespace {

// The rows of the batch's tuples [first, last) (its chunks: one per tuple), in table order.
io::Table rows_of(const documents::GlobalLinks& batch, size_t first, size_t last) {
  Columns c;
  for (size_t k = first; k < last; ++k) {
    const size_t from = c.t.rows();
    c.add(batch.chunks()[k].links);
    // Each tuple's rows sorted apart: the tuples stay in document order.
    sort_table_rows(c.t, {{"step", true}, {"group"}, {"op", true}, {"src_rank"}, {"dst_rank"}},
                    from, c.t.rows());
  }
  return std::move(c.t);
}

}  // namespace

io::Table communication_matrix_rows(const documents::GlobalLinks& batch) {
  return rows_of(batch, 0, batch.chunks().size());
}

std::vector<io::Table> communication_matrix_row_parts(const documents::GlobalLinks& batch,
                                                      int threads) {
  std::vector<size_t> links;
  for (const documents::GlobalLinks::Chunk& tuple : batch.chunks())
    links.push_back(tuple.links.size());
  const std::vector<size_t> runs =
      runtime::balanced_runs(links, static_cast<size_t>(std::max(1, threads)));
  std::vector<io::Table> out(runs.size() - 1);
  runtime::parallel_for(out.size(), threads,
                        [&](size_t p) { out[p] = rows_of(batch, runs[p], runs[p + 1]); });
  return out;
}

}  // namespace cs::analysis
