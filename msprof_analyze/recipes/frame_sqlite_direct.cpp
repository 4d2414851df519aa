#include "msprof_analyze/recipes/frame_sqlite_direct.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string_view>

#include "io/output_file.h"
#include "io/sqlite/database_file_appender.h"
#include "io/sqlite/page_database.h"
#include "io/sqlite/sqlite_record.h"
#include "runtime/ordered_parallel.h"

namespace cs::recipes {

namespace {

using io::sqlite::Affinity;

// True when SQLite would store every cell of a column of cells of `kinds` (frame::kind_bit
// bits) unchanged (no conversion by the column's affinity other than integers made REAL).
bool stored_as_is(uint8_t kinds, Affinity a) {
  using K = frame::Cell::Kind;
  if ((kinds & frame::kind_bit(K::kText)) && a != Affinity::kText) return false;
  if ((kinds & frame::kind_bit(K::kInt)) && a == Affinity::kText) return false;
  if ((kinds & frame::kind_bit(K::kReal)) && a != Affinity::kReal) return false;
  return true;
}

// A value of a REAL column as SQLite stores it: a whole number within 48 bits as an integer
// (read back as REAL by the column's affinity; -0.0 becomes 0), anything else as 8 bytes.
void put_real(io::sqlite::RecordEncoder& record, double v) {
  constexpr double kLimit = 140737488355328.0;  // 2^47
  if (v > -kLimit && v < kLimit && v == std::trunc(v)) {
    record.integer(static_cast<int64_t>(v));
  } else {
    record.real(v);
  }
}

// Row `r` of `f` as SQLite's record of it, appended to `out`.
void encode_row(const frame::Frame& f, size_t r, const std::vector<Affinity>& affinity,
                io::sqlite::RecordEncoder& record, std::string& out) {
  for (size_t c = 0; c < f.columns.size(); ++c) {
    const frame::Cell& cell = f.columns[c].cells[r];
    switch (cell.kind) {
      case frame::Cell::Kind::kNull:
        record.null();
        break;
      case frame::Cell::Kind::kText:
        record.text(cell.str());
        break;
      case frame::Cell::Kind::kInt:
        if (affinity[c] == Affinity::kReal)
          put_real(record, static_cast<double>(cell.i()));
        else
          record.integer(cell.i());
        break;
      case frame::Cell::Kind::kReal:
        if (std::isnan(cell.num()))  // SQLite binds NaN as NULL
          record.null();
        else
          put_real(record, cell.num());
        break;
    }
  }
  record.finish_into(out);
}

}  // namespace

DirectWrite write_frame_sqlite_direct(const frame::Frame& f,
                                      const std::vector<const char*>& sql_types,
                                      const std::string& db_path, const std::string& table,
                                      const std::string& create, const std::string& shown,
                                      io::Diagnostics& diag, int threads) {
  if (f.index_columns > 0) return DirectWrite::kNotApplicable;
  std::vector<Affinity> affinity;
  for (size_t c = 0; c < f.columns.size(); ++c) {
    // The writers' types are INTEGER, REAL and TEXT: SQLite's affinity of each is the one read.
    affinity.push_back(io::sqlite::affinity_of(sql_types[c]));
    if (!stored_as_is(frame::cell_kinds(f.columns[c]), affinity.back()))
      return DirectWrite::kNotApplicable;
  }
  io::sqlite::DatabaseFileAppender file(db_path);
  if (const int err = file.read_errno()) {
    diag.error(shown, 0,
               "cannot read the database to add table " + table + ": " + std::strerror(err),
               io::output_errno_hint(err));
    return DirectWrite::kFailed;
  }
  if (!file.unsupported().empty() || file.has_table(table) || !file.schema_has_room(table, create))
    return DirectWrite::kNotApplicable;
  io::sqlite::TableBtreeBuilder tree = file.new_streamed_table();
  // Rows encoded in blocks on `threads` threads, added to the tree in order as each block is
  // done; the tree's complete pages go to the file meanwhile. (Small blocks: the blocks encoded
  // ahead of the tree are all the memory this takes.)
  constexpr size_t kBlockRows = 1024;
  struct Block {
    std::string bytes;          // the records, back to back
    std::vector<uint32_t> end;  // each record's end in `bytes`
  };
  const size_t n = f.rows();
  std::vector<Block> blocks((n + kBlockRows - 1) / kBlockRows);
  auto encode = [&](size_t b) {
    io::sqlite::RecordEncoder record;
    Block& out = blocks[b];
    const size_t last = std::min(n, (b + 1) * kBlockRows);
    out.end.reserve(last - b * kBlockRows);
    out.bytes.reserve((last - b * kBlockRows) * 16 * f.columns.size());
    for (size_t r = b * kBlockRows; r < last; ++r) {
      encode_row(f, r, affinity, record, out.bytes);
      out.end.push_back(static_cast<uint32_t>(out.bytes.size()));
    }
  };
  auto add = [&](size_t b) {
    Block& in = blocks[b];
    uint32_t begin = 0;
    for (uint32_t end : in.end) {
      tree.add_row(std::string_view(in.bytes).substr(begin, end - begin));
      begin = end;
    }
    // Freed now (moving an empty string into `in.bytes` would keep its buffer: every block's
    // records stayed held until the table was written, the size of the table).
    std::string().swap(in.bytes);
    std::vector<uint32_t>().swap(in.end);
  };
  runtime::ordered_parallel_for(blocks.size(), blocks.size() > 1 ? threads : 1, encode, add);
  if (!file.append(table, create, tree)) {
    const int err = errno;
    diag.error(shown, 0, "table " + table + ": cannot write the database: " + std::strerror(err),
               io::output_errno_hint(err));
    return DirectWrite::kFailed;
  }
  return DirectWrite::kWritten;
}

}  // namespace cs::recipes

namespace cs::recipes {

DirectTableStream::DirectTableStream() = default;
DirectTableStream::~DirectTableStream() = default;

DirectWrite DirectTableStream::open(const std::vector<uint8_t>& kinds,
                                    const std::vector<const char*>& sql_types,
                                    const std::string& db_path, const std::string& table,
                                    const std::string& create, const std::string& shown,
                                    io::Diagnostics& diag) {
  affinity_.clear();
  for (size_t c = 0; c < kinds.size(); ++c) {
    affinity_.push_back(io::sqlite::affinity_of(sql_types[c]));
    if (!stored_as_is(kinds[c], affinity_.back())) return DirectWrite::kNotApplicable;
  }
  file_ = std::make_unique<io::sqlite::DatabaseFileAppender>(db_path);
  if (const int err = file_->read_errno()) {
    diag.error(shown, 0,
               "cannot read the database to add table " + table + ": " + std::strerror(err),
               io::output_errno_hint(err));
    file_.reset();
    return DirectWrite::kFailed;
  }
  if (!file_->unsupported().empty() || file_->has_table(table) ||
      !file_->schema_has_room(table, create)) {
    file_.reset();
    return DirectWrite::kNotApplicable;
  }
  tree_ = std::make_unique<io::sqlite::TableBtreeBuilder>(file_->new_streamed_table());
  table_ = table;
  create_ = create;
  shown_ = shown;
  return DirectWrite::kWritten;
}

void DirectTableStream::add(const frame::Frame& rows) {
  io::sqlite::RecordEncoder record;
  for (size_t r = 0; r < rows.rows(); ++r) {
    bytes_.clear();
    encode_row(rows, r, affinity_, record, bytes_);
    tree_->add_row(bytes_);
  }
}

bool DirectTableStream::finish(io::Diagnostics& diag) {
  const bool ok = file_->append(table_, create_, *tree_);
  const int err = errno;
  tree_.reset();
  file_.reset();
  if (!ok)
    diag.error(shown_, 0, "table " + table_ + ": cannot write the database: " + std::strerror(err),
               io::output_errno_hint(err));
  return ok;
}

}  // namespace cs::recipes
