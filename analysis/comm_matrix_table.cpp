#include "analysis/comm_matrix_table.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/comm_op_tables.h"
#include "io/text_hash.h"

namespace cs::analysis {

namespace {

// One batch's rows, in link order.
io::Table batch_rows(const documents::GlobalLinks& links) {
  io::Table t("communication_matrix");
  // ~700k rows at 1,024 ranks with a few thousand distinct names: 4 bytes a string cell.
  io::DictionaryEncoder step(t.add_encoded_string("step"));
  io::DictionaryEncoder group(t.add_encoded_string("group"));
  io::DictionaryEncoder op(t.add_encoded_string("op"));
  io::Column& src = t.add_int("src_rank");
  io::Column& dst = t.add_int("dst_rank");
  io::DictionaryEncoder transport(t.add_encoded_string("transport"));
  io::Column& size = t.add_double("size_mb", "MB");
  io::Column& time = t.add_double("time_ms", "ms");
  io::Column& bw = t.add_double("bandwidth_gbps", "GB/s");
  io::DictionaryEncoder op_name(t.add_encoded_string("op_name"));
  for (io::Column& c : t.columns) {
    c.codes.reserve(c.encoded ? links.size() : 0);
    c.ints.reserve(c.type == io::ColumnType::kInt ? links.size() : 0);
    c.doubles.reserve(c.type == io::ColumnType::kDouble ? links.size() : 0);
  }
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
  return t;
}

// Frees a vector's memory (clear() keeps it).
template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

}  // namespace

// The batches' rows, each batch a table of its own (exact size), joined into one table only at
// the end, a column at a time: one growing table would hold up to twice its size while it grows.
struct CommMatrixTable::Columns {
  std::vector<io::Table> chunks;
  size_t rows = 0;
};

CommMatrixTable::CommMatrixTable() : c_(std::make_unique<Columns>()) {}
CommMatrixTable::~CommMatrixTable() = default;

void CommMatrixTable::add(const documents::GlobalLinks& batch) {
  if (batch.empty()) return;
  c_->rows += batch.size();
  c_->chunks.push_back(batch_rows(batch));
}

size_t CommMatrixTable::rows() const {
  return c_->rows;
}

io::Table CommMatrixTable::take() {
  io::Table t = batch_rows({});  // the columns, no row
  for (size_t k = 0; k < t.columns.size(); ++k) {
    io::Column& out = t.columns[k];
    if (out.encoded) {
      out.codes.reserve(c_->rows);
      std::unordered_map<std::string, uint32_t, io::TextHash, std::equal_to<>> code_of;
      for (io::Table& chunk : c_->chunks) {
        io::Column& in = chunk.columns[k];
        std::vector<uint32_t> map(in.dict.size());  // the chunk's codes -> the table's
        for (size_t i = 0; i < in.dict.size(); ++i) {
          auto [it, added] =
              code_of.try_emplace(in.dict[i], static_cast<uint32_t>(out.dict.size()));
          if (added) out.dict.push_back(in.dict[i]);
          map[i] = it->second;
        }
        for (uint32_t c : in.codes) out.codes.push_back(map[c]);
        release(in.codes);
        release(in.dict);
      }
    } else if (out.type == io::ColumnType::kInt) {
      out.ints.reserve(c_->rows);
      for (io::Table& chunk : c_->chunks) {
        std::vector<int64_t>& in = chunk.columns[k].ints;
        out.ints.insert(out.ints.end(), in.begin(), in.end());
        release(in);
      }
    } else {
      out.doubles.reserve(c_->rows);
      for (io::Table& chunk : c_->chunks) {
        std::vector<double>& in = chunk.columns[k].doubles;
        out.doubles.insert(out.doubles.end(), in.begin(), in.end());
        release(in);
      }
    }
  }
  release(c_->chunks);
  c_->rows = 0;
  // communication_matrix_table()'s order: step and op in natural order, then the ranks; equal
  // rows keep their link order.
  sort_table_rows(t, {{"step", true}, {"group"}, {"op", true}, {"src_rank"}, {"dst_rank"}});
  return t;
}

io::Table communication_matrix_rows(const documents::GlobalLinks& batch) {
  return batch_rows(batch);
}

}  // namespace cs::analysis
