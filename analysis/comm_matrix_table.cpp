#include "analysis/comm_matrix_table.h"

#include "analysis/comm_op_tables.h"

namespace cs::analysis {

struct CommMatrixTable::Columns {
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

  void add(const documents::GlobalLinks& links) {
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

CommMatrixTable::CommMatrixTable() : c_(std::make_unique<Columns>()) {}
CommMatrixTable::~CommMatrixTable() = default;

void CommMatrixTable::add(const documents::GlobalLinks& batch) {
  c_->add(batch);
}

size_t CommMatrixTable::rows() const {
  return c_->t.rows();
}

io::Table CommMatrixTable::take() {
  io::Table t = std::move(c_->t);
  // communication_matrix_table()'s order: step and op in natural order, then the ranks; equal
  // rows keep their link order.
  sort_table_rows(t, {{"step", true}, {"group"}, {"op", true}, {"src_rank"}, {"dst_rank"}});
  return t;
}

io::Table communication_matrix_rows(const documents::GlobalLinks& batch) {
  CommMatrixTable rows;
  rows.add(batch);
  return std::move(rows.c_->t);
}

}  // namespace cs::analysis
