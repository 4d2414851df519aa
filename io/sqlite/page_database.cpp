#include "io/sqlite/page_database.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>

#include "io/sqlite/big_endian.h"
#include "io/sqlite/file_format.h"
#include "io/sqlite/pending_sidecar.h"
#include "io/sqlite/record_values.h"
#include "io/sqlite/sqlite_record.h"

namespace cs::io::sqlite {

namespace {

constexpr int kMaxDepth = 32;
constexpr uint64_t kRun = 16;  // pages read at once (a table's pages are mostly in a row)

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// True when record [p, p + n) is well formed (its header's serial types account for every byte
// of the body) with at most `columns` values.
bool check_record(const unsigned char* p, size_t n, size_t columns) {
  uint64_t header = 0;
  size_t at = varint_at(p, p + n, header);
  if (!at || header > n || header < at) return false;
  uint64_t body = header;
  size_t values = 0;
  while (at < header) {
    uint64_t type = 0, size = 0;
    const size_t len = varint_at(p + at, p + header, type);
    if (!len || !value_size(type, size)) return false;
    at += len;
    body += size;
    if (body > n || ++values > columns) return false;
  }
  return body == n;
}

// The words of one column definition: bare or quoted names; nothing when it holds anything else
// (parentheses, literals, operators).
std::optional<std::vector<std::string>> words_of(std::string_view def) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < def.size()) {
    const char ch = def[i];
    if (std::isspace(static_cast<unsigned char>(ch))) {
      ++i;
    } else if (ch == '"' || ch == '`' || ch == '[') {
      const char end = ch == '[' ? ']' : ch;
      const size_t e = def.find(end, i + 1);
      if (e == std::string_view::npos) return std::nullopt;
      // A doubled quote inside the name: its spelling is not the name; not read here.
      if (e + 1 < def.size() && def[e + 1] == end) return std::nullopt;
      words.emplace_back(def.substr(i + 1, e - i - 1));
      i = e + 1;
    } else if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
      size_t e = i;
      while (e < def.size() && (std::isalnum(static_cast<unsigned char>(def[e])) || def[e] == '_'))
        ++e;
      words.emplace_back(def.substr(i, e - i));
      i = e;
    } else {
      return std::nullopt;
    }
  }
  return words;
}

// Fills `t`'s columns from its CREATE TABLE statement; false when it says more than plain
// columns (see the header).
bool parse_create_table(std::string_view sql, PagedTable& t) {
  if (upper(sql.substr(0, 12)) != "CREATE TABLE") return false;
  const size_t open = sql.find('('), close = sql.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return false;
  // A parenthesis inside a quoted table name would be mistaken for the column list.
  if (std::count(sql.begin(), sql.begin() + static_cast<long>(open), '"') % 2 != 0) return false;
  for (char ch : sql.substr(close + 1))
    if (!std::isspace(static_cast<unsigned char>(ch))) return false;  // WITHOUT ROWID, ...
  std::string_view list = sql.substr(open + 1, close - open - 1);
  while (true) {
    const size_t comma = list.find(',');
    const auto words = words_of(list.substr(0, comma));
    if (!words || words->empty()) return false;
    // name, type words, then at most PRIMARY KEY [ASC|DESC] [AUTOINCREMENT] and NOT NULL.
    size_t w = 1;
    std::string type;
    auto is = [&](size_t k, const char* kw) {
      return k < words->size() && upper((*words)[k]) == kw;
    };
    while (w < words->size() && !is(w, "PRIMARY") && !is(w, "NOT")) {
      const std::string u = upper((*words)[w]);
      for (const char* kw : {"CONSTRAINT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE",
                             "REFERENCES", "GENERATED", "AS", "ON", "ASC", "DESC"})
        if (u == kw) return false;
      if (!type.empty()) type += ' ';
      type += (*words)[w++];
    }
    bool primary = false, desc = false;
    while (w < words->size()) {
      if (is(w, "PRIMARY") && is(w + 1, "KEY") && !primary) {
        primary = true;
        w += 2;
        if (is(w, "ASC")) {
          ++w;
        } else if (is(w, "DESC")) {
          desc = true;
          ++w;
        }
        if (is(w, "AUTOINCREMENT")) ++w;
      } else if (is(w, "NOT") && is(w + 1, "NULL")) {
        w += 2;
      } else {
        return false;
      }
    }
    if (primary && !desc && upper(type) == "INTEGER") {
      if (t.rowid_column >= 0) return false;
      t.rowid_column = static_cast<int>(t.columns.size());
    }
    t.columns.push_back((*words)[0]);
    t.affinity.push_back(affinity_of(type));
    if (comma == std::string_view::npos) break;
    list = list.substr(comma + 1);
  }
  return true;
}

// The columns of a CREATE INDEX statement (each entry's name; ASC, DESC and COLLATE x allowed);
// empty when an entry is more than that (an expression).
std::vector<std::string> index_columns(std::string_view sql) {
  const size_t open = sql.find('('), close = sql.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  std::string_view list = sql.substr(open + 1, close - open - 1);
  std::vector<std::string> out;
  while (true) {
    const size_t comma = list.find(',');
    const auto words = words_of(list.substr(0, comma));
    if (!words || words->empty() || words->size() > 3) return {};
    out.push_back((*words)[0]);
    if (comma == std::string_view::npos) break;
    list = list.substr(comma + 1);
  }
  return out;
}

}  // namespace

bool PagedTable::index_may_cover(const std::vector<std::string>& wanted) const {
  for (const auto& index : indexes) {
    if (index.empty()) return true;
    bool all = true;
    for (size_t c = 0; c < wanted.size() && all; ++c) {
      if (rowid_column >= 0 &&
          sql_name_equal(wanted[c], columns[static_cast<size_t>(rowid_column)]))
        continue;  // the rowid: in every index
      all = column_index(index, wanted[c]) >= 0;
    }
    if (all) return true;
  }
  return false;
}

Affinity affinity_of(std::string_view type) {
  const std::string u = upper(type);
  auto has = [&](const char* s) { return u.find(s) != std::string::npos; };
  if (has("INT")) return Affinity::kInteger;
  if (has("CHAR") || has("CLOB") || has("TEXT")) return Affinity::kText;
  if (has("BLOB") || u.empty()) return Affinity::kBlob;
  if (has("REAL") || has("FLOA") || has("DOUB")) return Affinity::kReal;
  return Affinity::kNumeric;
}

bool sql_name_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

int column_index(const std::vector<std::string>& columns, std::string_view name) {
  for (size_t c = 0; c < columns.size(); ++c)
    if (sql_name_equal(columns[c], name)) return static_cast<int>(c);
  return -1;
}

PagedDatabase::PagedDatabase(const std::string& path, uint64_t max_bytes) : max_bytes_(max_bytes) {
  // Changes in a -wal or hot -journal beside it are not in its pages (pending_sidecar).
  if (!pending_sidecar(path).empty()) return;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return;
  struct stat st {};
  unsigned char h[kFileHeaderBytes];
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size < static_cast<off_t>(kFileHeaderBytes) ||
      ::pread(fd_, h, kFileHeaderBytes, 0) != static_cast<ssize_t>(kFileHeaderBytes) ||
      std::memcmp(h, "SQLite format 3", 16) != 0)
    return;
  page_size_ = get16(h + 16) == 1 ? 65536 : get16(h + 16);
  if (page_size_ < 512 || page_size_ > 65536 || !std::has_single_bit(page_size_)) return;
  // Rollback journal (1, 1): a WAL database's newest pages may be in its -wal file.
  if (h[18] != 1 || h[19] != 1) return;
  if (h[21] != 64 || h[22] != 32 || h[23] != 32) return;
  usable_ = page_size_ - h[20];
  if (usable_ < 480) return;
  if (get32(h + 56) != 1 || get32(h + 44) < 1 || get32(h + 44) > 4) return;  // UTF-8, format
  pages_ = static_cast<uint64_t>(st.st_size) / page_size_;
  const uint32_t in_header = get32(h + 28);
  if (in_header != 0 && get32(h + 24) == get32(h + 92)) {
    if (in_header > pages_) return;  // SQLite would read pages the file does not have
    pages_ = in_header;
  }
  // A file up to max_bytes gets one buffer for its pages, read as they are needed; a larger
  // one a buffer per page, up to max_bytes of them.
  if (pages_ * page_size_ <= max_bytes_) {
    buffer_.reset(new unsigned char[pages_ * page_size_]);
    loaded_.assign(pages_ + 1, 0);
  }
  ok_ = pages_ >= 1 && read_schema();
}

PagedDatabase::~PagedDatabase() {
  if (fd_ >= 0) ::close(fd_);
}

const unsigned char* PagedDatabase::page(uint64_t n) const {
  if (n < 1 || n > pages_) return nullptr;
  if (buffer_) {
    unsigned char* at = buffer_.get() + (n - 1) * page_size_;
    if (!loaded_[n]) {
      // This page and the next ones not read yet, up to kRun, in one read.
      uint64_t k = 1;
      while (k < kRun && n + k <= pages_ && !loaded_[n + k]) ++k;
      const ssize_t want = static_cast<ssize_t>(k * page_size_);
      if (::pread(fd_, at, static_cast<size_t>(want), static_cast<off_t>((n - 1) * page_size_)) !=
          want)
        return nullptr;
      for (uint64_t i = 0; i < k; ++i) loaded_[n + i] = 1;
    }
    return at;
  }
  auto& slot = store_[static_cast<uint32_t>(n)];
  if (!slot) {
    if (store_.size() * page_size_ > max_bytes_) {  // the memory a reader may hold: declined
      store_.erase(static_cast<uint32_t>(n));
      return nullptr;
    }
    std::unique_ptr<unsigned char[]> buf(new unsigned char[page_size_]);
    const off_t at = static_cast<off_t>((n - 1) * page_size_);
    if (::pread(fd_, buf.get(), page_size_, at) != static_cast<ssize_t>(page_size_)) {
      store_.erase(static_cast<uint32_t>(n));
      return nullptr;
    }
    slot = std::move(buf);
  }
  return slot.get();
}

bool PagedDatabase::read_schema() {
  PagedTable master;
  master.name = "sqlite_master";
  master.root = 1;
  master.columns = {"type", "name", "tbl_name", "rootpage", "sql"};
  master.affinity.assign(5, Affinity::kText);
  master.affinity[3] = Affinity::kInteger;
  master.readable = true;
  auto rows = this->rows(master);
  if (!rows) return false;
  std::vector<StoredValue> v;
  std::vector<std::pair<std::string, std::vector<std::string>>> indexes;  // (table, columns)
  for (size_t r = 0; r < rows->size(); ++r) {
    rows->decode(r, v);
    using K = StoredValue::Kind;
    if (v[0].kind != K::kText || v[1].kind != K::kText) return false;
    if (v[0].bytes == "index") {
      if (v[2].kind != K::kText) return false;
      indexes.emplace_back(std::string(v[2].bytes), v[4].kind == K::kText
                                                        ? index_columns(v[4].bytes)
                                                        : std::vector<std::string>{});
      continue;
    }
    // A view is read by SQLite only (an entry that is never readable here); triggers are not
    // tables.
    if (v[0].bytes != "table" && v[0].bytes != "view") continue;
    for (const auto& t : tables_)
      if (sql_name_equal(t.name, v[1].bytes)) return false;  // two of one name: damaged
    PagedTable& t = tables_.emplace_back();
    t.name.assign(v[1].bytes);
    if (v[0].bytes == "table" && v[3].kind == K::kInt && v[3].i >= 1 &&
        static_cast<uint64_t>(v[3].i) <= pages_ && v[4].kind == K::kText) {
      t.root = static_cast<uint32_t>(v[3].i);
      sql_.emplace_back(v[4].bytes);  // parsed when the table is first asked for
    } else {
      sql_.emplace_back();
    }
  }
  for (auto& [table, columns] : indexes)
    for (auto& t : tables_)
      if (sql_name_equal(t.name, table)) t.indexes.push_back(std::move(columns));
  // The schema table itself, as SELECT ... FROM sqlite_master reads it.
  tables_.insert(tables_.begin(), master);
  sql_.insert(sql_.begin(), std::string());
  return true;
}

const PagedTable* PagedDatabase::table(std::string_view name) const {
  for (size_t i = 0; i < tables_.size(); ++i) {
    PagedTable& t = tables_[i];
    if (!sql_name_equal(t.name, name)) continue;
    if (!sql_[i].empty()) {
      t.readable = parse_create_table(sql_[i], t);
      if (!t.readable) {
        t.columns.clear();
        t.affinity.clear();
        t.rowid_column = -1;
      }
      sql_[i].clear();
      sql_[i].shrink_to_fit();
    }
    return &t;
  }
  return nullptr;
}

std::vector<std::string> PagedDatabase::table_names() const {
  std::vector<std::string> out;
  for (size_t i = 1; i < tables_.size(); ++i) out.push_back(tables_[i].name);  // 0: the schema
  return out;
}

std::optional<TableRows> PagedDatabase::rows(const PagedTable& t) const {
  if (!t.readable || t.root < 1) return std::nullopt;
  if (auto k = kept_.find(t.root); k != kept_.end() && k->second.table_ == &t) return k->second;
  TableRows out;
  out.table_ = &t;
  uint64_t budget = pages_;
  if (!walk(t.root, 0, out, budget)) return std::nullopt;
  // Rowids strictly increase in a table b-tree; anything else is a damaged file.
  for (size_t r = 0; r < out.rows_.size(); ++r) {
    if (r > 0 && out.rows_[r].rowid <= out.rows_[r - 1].rowid) return std::nullopt;
    if (!check_record(out.rows_[r].payload, out.rows_[r].size, t.columns.size()))
      return std::nullopt;
  }
  if (kept_rows_ + out.rows_.size() <= kMaxKeptRows) {
    kept_rows_ += out.rows_.size();
    kept_.emplace(t.root, out);
  }
  return out;
}

bool PagedDatabase::walk(uint64_t page_no, int depth, TableRows& out, uint64_t& budget) const {
  if (depth > kMaxDepth || budget == 0) return false;
  --budget;  // every page at most once in a sound file: a cycle runs out of budget
  const unsigned char* begin = page(page_no);
  if (!begin) return false;
  const unsigned char* b = begin + (page_no == 1 ? kFileHeaderBytes : 0);
  const unsigned char* end = begin + usable_;
  const uint32_t cells = get16(b + 3);
  if (b[0] == 0x05) {  // interior: each cell's left child, then the right-most child
    if (b + 12 + 2 * cells > end) return false;
    for (uint32_t i = 0; i <= cells; ++i) {
      uint32_t child;
      if (i < cells) {
        const uint32_t at = get16(b + 12 + 2 * i);
        if (begin + at < b + 12 + 2 * cells || at + 4 > usable_) return false;
        child = get32(begin + at);
      } else {
        child = get32(b + 8);
      }
      if (!walk(child, depth + 1, out, budget)) return false;
    }
    return true;
  }
  if (b[0] != 0x0d) return false;
  if (b + 8 + 2 * cells > end) return false;
  const uint64_t max_local = usable_ - 35, min_local = (usable_ - 12) * 32 / 255 - 23;
  for (uint32_t i = 0; i < cells; ++i) {
    const uint32_t at = get16(b + 8 + 2 * i);
    const unsigned char* c = begin + at;
    if (c < b + 8 + 2 * cells || at >= usable_) return false;
    uint64_t size = 0, rowid = 0;
    const size_t n = get_varint(c, end, size);
    const size_t m = n ? get_varint(c + n, end, rowid) : 0;
    if (!n || !m || size > (uint64_t{1} << 31)) return false;
    c += n + m;
    uint64_t local = size;
    if (size > max_local) {
      const uint64_t k = min_local + (size - min_local) % (usable_ - 4);
      local = k <= max_local ? k : min_local;
    }
    if (c + local + (local < size ? 4 : 0) > end) return false;
    TableRows::Row row{static_cast<int64_t>(rowid), c, static_cast<uint32_t>(size)};
    if (local < size) {  // the rest on the chain of overflow pages
      auto spill = std::make_shared<std::string>(reinterpret_cast<const char*>(c), local);
      uint32_t over = get32(c + local);
      while (spill->size() < size) {
        const unsigned char* o = budget-- > 0 ? page(over) : nullptr;
        if (!o) return false;
        const size_t take = std::min<uint64_t>(usable_ - 4, size - spill->size());
        spill->append(reinterpret_cast<const char*>(o) + 4, take);
        over = get32(o);
      }
      if (over != 0) return false;  // the chain goes on past the payload
      row.payload = reinterpret_cast<const unsigned char*>(spill->data());
      out.spilled_.push_back(std::move(spill));
    }
    out.rows_.push_back(row);
  }
  return true;
}

}  // namespace cs::io::sqlite
