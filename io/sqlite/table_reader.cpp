#include "io/sqlite/table_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cctype>
#include <cstring>
#include <optional>

#include "io/sqlite/big_endian.h"
#include "io/sqlite/sqlite_record.h"

namespace cs::io::sqlite {

namespace {

constexpr size_t kHeader = 100;
constexpr int kMaxDepth = 32;

// The file's pages, read on demand; every inconsistency makes ok() false.
class PageFile {
 public:
  explicit PageFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return;
    struct stat st {};
    unsigned char h[kHeader];
    if (::fstat(fd_, &st) != 0 || st.st_size < static_cast<off_t>(kHeader) ||
        ::pread(fd_, h, kHeader, 0) != static_cast<ssize_t>(kHeader) ||
        std::memcmp(h, "SQLite format 3", 16) != 0)
      return;
    page_size_ = get16(h + 16) == 1 ? 65536 : get16(h + 16);
    if (page_size_ < 512 || page_size_ > 65536 || !std::has_single_bit(page_size_)) return;
    usable_ = page_size_ - h[20];
    if (usable_ < 480 || get32(h + 56) != 1) return;  // UTF-8 only
    pages_ = static_cast<uint64_t>(st.st_size) / page_size_;
    ok_ = pages_ >= 1;
  }
  ~PageFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  PageFile(const PageFile&) = delete;
  PageFile& operator=(const PageFile&) = delete;

  bool ok() const { return ok_; }
  uint32_t usable() const { return usable_; }
  // Page `n` (1-based) into `out`; false (and not ok) when it is not in the file.
  bool read(uint64_t n, std::string& out) {
    if (!ok_ || n < 1 || n > pages_) return ok_ = false;
    out.resize(page_size_);
    const off_t at = static_cast<off_t>((n - 1) * page_size_);
    if (::pread(fd_, out.data(), page_size_, at) != static_cast<ssize_t>(page_size_))
      return ok_ = false;
    // A budget of reads (a few per page of the file): a cycle in a damaged file ends here.
    if (++reads_ > 4 * pages_ + 16) return ok_ = false;
    return true;
  }
  void fail() { ok_ = false; }

 private:
  int fd_ = -1;
  uint32_t page_size_ = 0, usable_ = 0;
  uint64_t pages_ = 0, reads_ = 0;
  bool ok_ = false;
};

// Decodes record [p, p + n) into `out` (at least `columns` values, NULLs for columns the record
// lacks). False when it is malformed.
bool decode(const unsigned char* p, size_t n, size_t columns, std::vector<StoredValue>& out) {
  out.clear();
  uint64_t header = 0;
  size_t at = get_varint(p, p + n, header);
  if (!at || header > n || header < at) return false;
  size_t body = header;
  while (at < header) {
    uint64_t type = 0;
    const size_t len = get_varint(p + at, p + header, type);
    if (!len) return false;
    at += len;
    StoredValue v;
    size_t size = 0;
    if (type == 0) {
      v.kind = StoredValue::Kind::kNull;
    } else if (type <= 6) {
      static constexpr size_t kSizes[] = {0, 1, 2, 3, 4, 6, 8};
      size = kSizes[type];
      if (body + size > n) return false;
      uint64_t u = 0;
      for (size_t i = 0; i < size; ++i) u = (u << 8) | p[body + i];
      if (size < 8 && (u >> (8 * size - 1)) & 1) u |= ~uint64_t{0} << (8 * size);  // sign
      v.kind = StoredValue::Kind::kInt;
      v.i = static_cast<int64_t>(u);
    } else if (type == 7) {
      size = 8;
      if (body + size > n) return false;
      uint64_t u = 0;
      for (size_t i = 0; i < 8; ++i) u = (u << 8) | p[body + i];
      v.kind = StoredValue::Kind::kReal;
      v.r = std::bit_cast<double>(u);
    } else if (type == 8 || type == 9) {
      v.kind = StoredValue::Kind::kInt;
      v.i = static_cast<int64_t>(type - 8);
    } else if (type >= 12) {
      size = static_cast<size_t>((type - 12) / 2);
      if (body + size > n) return false;
      v.kind = type & 1 ? StoredValue::Kind::kText : StoredValue::Kind::kBlob;
      v.bytes = std::string_view(reinterpret_cast<const char*>(p + body), size);
    } else {
      return false;  // 10 and 11 are reserved
    }
    body += size;
    out.push_back(v);
  }
  if (body != n) return false;
  while (out.size() < columns) out.emplace_back();
  return true;
}

// Calls `row(payload)` for each row of the table b-tree rooted at `root`, in rowid order.
bool walk(PageFile& f, uint64_t root, int depth, const std::function<bool(const std::string&)>& row,
          bool& stop) {
  if (depth > kMaxDepth) return false;
  std::string page;
  if (!f.read(root, page)) return false;
  const auto* b = reinterpret_cast<const unsigned char*>(page.data()) + (root == 1 ? kHeader : 0);
  const auto* begin = reinterpret_cast<const unsigned char*>(page.data());
  const uint32_t u = f.usable();
  const uint32_t cells = get16(b + 3);
  if (b[0] == 0x05) {  // interior: each cell's child, then the right-most child
    if (b + 12 + 2 * cells > begin + u) return false;
    for (uint32_t i = 0; i <= cells && !stop; ++i) {
      uint32_t child;
      if (i < cells) {
        const uint32_t at = get16(b + 12 + 2 * i);
        if (at + 4 > u) return false;
        child = get32(begin + at);
      } else {
        child = get32(b + 8);
      }
      if (!walk(f, child, depth + 1, row, stop)) return false;
    }
    return true;
  }
  if (b[0] != 0x0d) return false;
  if (b + 8 + 2 * cells > begin + u) return false;
  const uint64_t max_local = u - 35, min_local = (u - 12) * 32 / 255 - 23;
  std::string payload, next;
  for (uint32_t i = 0; i < cells && !stop; ++i) {
    const uint32_t at = get16(b + 8 + 2 * i);
    if (at >= u) return false;
    const unsigned char* c = begin + at;
    const unsigned char* end = begin + u;
    uint64_t size = 0, rowid = 0;
    size_t n = get_varint(c, end, size);
    const size_t m = n ? get_varint(c + n, end, rowid) : 0;
    if (!n || !m || size > (uint64_t{1} << 31)) return false;
    c += n + m;
    uint64_t local = size;
    if (size > max_local) {
      const uint64_t k = min_local + (size - min_local) % (u - 4);
      local = k <= max_local ? k : min_local;
    }
    if (c + local + (local < size ? 4 : 0) > end) return false;
    payload.assign(reinterpret_cast<const char*>(c), local);
    if (local < size) {  // the rest on the chain of overflow pages
      uint32_t over = get32(c + local);
      while (payload.size() < size) {
        if (!f.read(over, next)) return false;
        const auto* o = reinterpret_cast<const unsigned char*>(next.data());
        const size_t take = std::min<uint64_t>(u - 4, size - payload.size());
        payload.append(next.data() + 4, take);
        over = get32(o);
      }
    }
    if (!row(payload)) stop = true;
  }
  return true;
}

// The column names of `CREATE TABLE name (col [type], ...)`, or nothing when the statement says
// more than names and types (constraints, collations, defaults, WITHOUT ROWID...).
std::optional<std::vector<std::string>> bare_columns(std::string_view sql) {
  const size_t open = sql.find('('), close = sql.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  for (char ch : sql.substr(close + 1))
    if (!std::isspace(static_cast<unsigned char>(ch))) return std::nullopt;
  std::vector<std::string> out;
  std::string_view list = sql.substr(open + 1, close - open - 1);
  while (true) {
    const size_t comma = list.find(',');
    std::string_view def = list.substr(0, comma);
    // Words: a name (bare or "quoted") and at most one type word.
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
        words.emplace_back(def.substr(i + 1, e - i - 1));
        if (words.back().find(end) != std::string::npos) return std::nullopt;
        i = e + 1;
      } else if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
        size_t e = i;
        while (e < def.size() &&
               (std::isalnum(static_cast<unsigned char>(def[e])) || def[e] == '_'))
          ++e;
        words.emplace_back(def.substr(i, e - i));
        i = e;
      } else {
        return std::nullopt;  // parentheses, quotes of values, operators: more than a type
      }
    }
    if (words.empty() || words.size() > 2) return std::nullopt;
    out.push_back(words[0]);
    if (comma == std::string_view::npos) break;
    list = list.substr(comma + 1);
  }
  return out;
}

}  // namespace

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

TableRead read_table(const std::string& path, std::string_view table,
                     std::vector<std::string>& columns,
                     const std::function<bool(const std::vector<StoredValue>&)>& row) {
  PageFile f(path);
  if (!f.ok()) return TableRead::kDeclined;
  // The schema: (type, name, tbl_name, rootpage, sql) rows of page 1's b-tree.
  std::optional<uint64_t> root;
  std::string sql;
  bool bad = false, stop = false;
  std::vector<StoredValue> v;
  const bool walked = walk(
      f, 1, 0,
      [&](const std::string& p) {
        if (!decode(reinterpret_cast<const unsigned char*>(p.data()), p.size(), 5, v)) {
          bad = true;
          return false;
        }
        if (v[1].kind != StoredValue::Kind::kText || !sql_name_equal(v[1].bytes, table))
          return true;
        if (root || v[0].kind != StoredValue::Kind::kText || v[0].bytes != "table" ||
            v[3].kind != StoredValue::Kind::kInt || v[3].i < 1 ||
            v[4].kind != StoredValue::Kind::kText) {
          bad = true;  // a second object of that name, a view, a virtual table...
          return false;
        }
        root = static_cast<uint64_t>(v[3].i);
        sql.assign(v[4].bytes);
        return true;
      },
      stop);
  if (!walked || bad || !f.ok()) return TableRead::kDeclined;
  if (!root) return TableRead::kNoTable;
  auto names = bare_columns(sql);
  if (!names) return TableRead::kDeclined;
  columns = std::move(*names);
  stop = false;
  const size_t n = columns.size();
  const bool ok = walk(
      f, *root, 0,
      [&](const std::string& p) {
        if (!decode(reinterpret_cast<const unsigned char*>(p.data()), p.size(), n, v) ||
            v.size() > n) {
          bad = true;
          return false;
        }
        return row(v);
      },
      stop);
  return ok && !bad && f.ok() ? TableRead::kRead : TableRead::kDeclined;
}

}  // namespace cs::io::sqlite
