#pragma once
// An SQLite database file read from its pages (https://www.sqlite.org/fileformat2.html) without
// the SQLite library: pages read (pread, a few at a time) when first needed and kept, the schema
// read once, then any of its tables scanned in rowid order with the values SQLite's `SELECT * FROM
// table` returns (a column with REAL affinity gives integers stored to save space back as reals, an
// INTEGER PRIMARY KEY column gives the rowid).
//
// Only what can be read exactly is read: a UTF-8 database in rollback-journal mode whose header
// is SQLite's, with no non-empty -wal or hot -journal beside it (io/sqlite/pending_sidecar: their
// committed changes are not in the file's pages), and rowid tables whose CREATE TABLE lists plain
// columns (a name, type words, optionally PRIMARY KEY [ASC] or NOT NULL). Anything else, and any
// inconsistency found in the pages (the whole table is checked before a row is given out), makes
// the answer "declined": the caller then asks SQLite, which also reports what is wrong with the
// file.
//
//   PagedDatabase db(path);
//   if (const PagedTable* t = db.table("TASK"))
//     if (auto rows = db.rows(*t))
//       for (size_t r = 0; r < rows->size(); ++r) rows->decode(r, values);

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cs::io::sqlite {

// One value as SQLite returns it (text and blobs point into the database's pages or the rows'
// copy).
struct StoredValue {
  enum class Kind : uint8_t { kNull, kInt, kReal, kText, kBlob };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  double r = 0;
  std::string_view bytes;
};

// A column's type affinity (https://www.sqlite.org/datatype3.html, section 3.1).
enum class Affinity : uint8_t { kInteger, kText, kBlob, kReal, kNumeric };

// The affinity SQLite gives a column declared with type name `type` (empty: no type).
Affinity affinity_of(std::string_view type);

// One table of the schema.
struct PagedTable {
  std::string name;
  uint32_t root = 0;
  std::vector<std::string> columns;  // as SELECT * names them
  std::vector<Affinity> affinity;    // per column
  int rowid_column = -1;             // the INTEGER PRIMARY KEY column, if any
  bool readable = false;             // a rowid table this reader understands
  // The columns of each index on the table (automatic ones included); an empty list when they
  // cannot be told (an automatic index, an expression).
  std::vector<std::vector<std::string>> indexes;
  // True when some index may hold every one of `columns` (besides the rowid, which every index
  // holds): SQLite could then read that index instead of the table.
  bool index_may_cover(const std::vector<std::string>& columns) const;
};

class PagedDatabase;

// Every row of one table, checked, in rowid order. Valid while its PagedDatabase lives.
class TableRows {
 public:
  size_t size() const { return rows_.size(); }
  int64_t rowid(size_t r) const { return rows_[r].rowid; }
  // Row r's values, one per column of the table; with `limit`, only the first `limit` columns
  // are decoded (the others are left NULL).
  void decode(size_t r, std::vector<StoredValue>& out, size_t limit = SIZE_MAX) const;
  // Row r's values of the columns `pick` names (a table column, or -1: the rowid), one per entry,
  // as decode() gives them; only those values are decoded.
  void decode_picked(size_t r, const std::vector<int>& pick, std::vector<StoredValue>& out) const;

 private:
  friend class PagedDatabase;
  struct Row {
    int64_t rowid;
    const unsigned char* payload;
    uint32_t size;
  };
  const PagedTable* table_ = nullptr;
  std::vector<Row> rows_;
  // Payloads continued on overflow pages (shared by the copies rows() hands out).
  std::vector<std::shared_ptr<const std::string>> spilled_;
};

// Not for concurrent use: rows() reads pages into the object. The rows it returns may be read by
// any thread while the object lives.
class PagedDatabase {
 public:
  // Opens `path` and reads its schema; ok() is false when the file cannot be read this way.
  // At most `max_bytes` of the file's pages are held: a table whose pages would take more is
  // declined (SQLite, which streams, reads it).
  explicit PagedDatabase(const std::string& path, uint64_t max_bytes = kDefaultMaxBytes);
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{32} << 20;
  ~PagedDatabase();
  PagedDatabase(const PagedDatabase&) = delete;
  PagedDatabase& operator=(const PagedDatabase&) = delete;

  bool ok() const { return ok_; }
  // The table named `name` (ASCII case ignored, as SQLite matches names), or nullptr. Views are
  // tables that are never readable; sqlite_master is one that is.
  const PagedTable* table(std::string_view name) const;
  // The names of the schema's tables and views, in the schema's order (sqlite_master left out),
  // as `SELECT name FROM sqlite_master WHERE type IN ('table', 'view')` gives them.
  std::vector<std::string> table_names() const;
  // Every row of `t` (a table of this database), or nullopt when the table is not readable or
  // its pages are inconsistent. A table's rows are walked and checked once: a later call gets a
  // copy of them (kept while the tables kept hold at most kMaxKeptRows rows in all).
  std::optional<TableRows> rows(const PagedTable& t) const;
  static constexpr size_t kMaxKeptRows = size_t{1} << 18;

 private:
  bool read_schema();
  const unsigned char* page(uint64_t n) const;
  bool walk(uint64_t page_no, int depth, TableRows& out, uint64_t& budget) const;

  uint64_t max_bytes_;
  int fd_ = -1;
  mutable std::unordered_map<uint32_t, std::unique_ptr<unsigned char[]>> store_;  // pages read
  uint32_t page_size_ = 0, usable_ = 0;
  uint64_t pages_ = 0;
  bool ok_ = false;
  std::unique_ptr<unsigned char[]> buffer_;  // room for every page, when the file is small
  mutable std::vector<uint8_t> loaded_;      // per page (1-based): read into buffer_
  // The tables, each with its CREATE TABLE statement until it is parsed (on first use).
  mutable std::vector<PagedTable> tables_;
  mutable std::vector<std::string> sql_;
  mutable std::unordered_map<uint32_t, TableRows> kept_;  // by root page: rows() done before
  mutable size_t kept_rows_ = 0;
};

enum class TableRead { kRead, kNoTable, kDeclined };

// True when `a` and `b` name the same SQL table or column (ASCII case ignored, as SQLite does).
bool sql_name_equal(std::string_view a, std::string_view b);
// The index of column `name` in `columns` (as sql_name_equal matches), or -1.
int column_index(const std::vector<std::string>& columns, std::string_view name);

}  // namespace cs::io::sqlite
