#include "io/sqlite/database_file_appender.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <vector>

#include "io/sqlite/big_endian.h"
#include "io/sqlite/file_format.h"
#include "io/sqlite/sqlite_record.h"

namespace cs::io::sqlite {

namespace {

constexpr char kMagic[] = "SQLite format 3";  // and its NUL: 16 bytes

// Reads or writes `n` bytes at `offset` whole; false with errno set.
bool pread_all(int fd, void* buf, size_t n, off_t offset) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, offset);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (got == 0) errno = EIO;  // the file shrank under us
      return false;
    }
    p += got, n -= static_cast<size_t>(got), offset += got;
  }
  return true;
}
bool pwrite_all(int fd, const void* buf, size_t n, off_t offset) {
  const auto* p = static_cast<const char*>(buf);
  while (n > 0) {
    const ssize_t put = ::pwrite(fd, p, n, offset);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      if (put == 0) errno = EIO;
      return false;
    }
    p += put, n -= static_cast<size_t>(put), offset += put;
  }
  return true;
}

// The text of column `column` of record [p, end), if it is text.
bool record_text(const unsigned char* p, const unsigned char* end, size_t column,
                 std::string_view& out) {
  uint64_t header = 0;
  size_t at = get_varint(p, end, header);
  if (!at || header > static_cast<uint64_t>(end - p)) return false;
  uint64_t body = header;
  for (size_t i = 0; at < header; ++i) {
    uint64_t type = 0;
    const size_t n = get_varint(p + at, p + header, type);
    if (!n) return false;
    at += n;
    static constexpr uint64_t kSizes[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
    const uint64_t size = type >= 12 ? (type - 12) / 2 : (type < 10 ? kSizes[type] : 0);
    if (i == column) {
      if (type < 13 || !(type & 1) || body + size > static_cast<uint64_t>(end - p)) return false;
      out = std::string_view(reinterpret_cast<const char*>(p + body), size);
      return true;
    }
    body += size;
  }
  return false;
}

}  // namespace

DatabaseFileAppender::DatabaseFileAppender(std::string path) : path_(std::move(path)) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      start_new();
    } else {
      read_errno_ = errno;
    }
    return;
  }
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) {
    read_errno_ = errno;
  } else if (size == 0) {
    start_new();
  } else if (size < static_cast<off_t>(kFileHeaderBytes)) {
    unsupported_ = "not a complete SQLite database file";
  } else {
    unsigned char header[kFileHeaderBytes];
    if (!pread_all(fd, header, kFileHeaderBytes, 0)) {
      read_errno_ = errno;
    } else {
      page_size_ = get16(header + 16) == 1 ? 65536 : get16(header + 16);
      page1_.assign(reinterpret_cast<const char*>(header), kFileHeaderBytes);
      if (page_size_ >= 512 && page_size_ <= 65536 && std::has_single_bit(page_size_) &&
          static_cast<uint64_t>(size) >= page_size_) {
        page1_.resize(page_size_);
        if (!pread_all(fd, page1_.data() + kFileHeaderBytes, page_size_ - kFileHeaderBytes,
                       kFileHeaderBytes))
          read_errno_ = errno;
      }
      if (!read_errno_) parse_existing(static_cast<uint64_t>(size));
    }
  }
  ::close(fd);
}

void DatabaseFileAppender::start_new() {
  page1_.assign(page_size_, '\0');
  auto* h = reinterpret_cast<unsigned char*>(page1_.data());
  std::memcpy(h, kMagic, 16);
  put16(h + 16, page_size_);
  h[18] = h[19] = 1;                     // rollback journal mode
  h[21] = 64, h[22] = 32, h[23] = 32;    // payload fractions, fixed by the format
  put32(h + 44, 4);                      // schema format 4
  put32(h + 56, 1);                      // UTF-8
  h[kFileHeaderBytes] = kLeafTablePage;  // the schema: an empty leaf
  put16(h + kFileHeaderBytes + 5, page_size_ == 65536 ? 0 : page_size_);
  pages_ = 1;
}

void DatabaseFileAppender::parse_existing(uint64_t file_size) {
  const auto* h = reinterpret_cast<const unsigned char*>(page1_.data());
  auto fail = [&](const char* why) { unsupported_ = why; };
  if (std::memcmp(h, kMagic, 16) != 0) return fail("not an SQLite database file");
  if (page1_.size() != page_size_) return fail("an invalid page size");
  if (h[18] != 1 || h[19] != 1) return fail("not in rollback-journal mode");
  usable_ = page_size_ - h[20];
  if (usable_ < 480 || h[21] != 64 || h[22] != 32 || h[23] != 32)
    return fail("a page layout this writer does not handle");
  if (get32(h + 44) != 4) return fail("schema format other than 4");
  if (get32(h + 52) != 0) return fail("auto-vacuum");
  if (get32(h + 56) != 1) return fail("a text encoding other than UTF-8");
  if (file_size % page_size_ != 0) return fail("a size that is not a whole number of pages");
  pages_ = static_cast<uint32_t>(file_size / page_size_);
  const uint32_t in_header = get32(h + 28);
  if (get32(h + 24) == get32(h + 92) && in_header != 0 && in_header != pages_)
    return fail("a page count that does not match its size");
  const unsigned char* b = h + kFileHeaderBytes;
  if (b[0] != kLeafTablePage) return fail("a schema larger than one page");
  const uint32_t cells = get16(b + 3);
  const uint32_t content = get16(b + 5) == 0 ? 65536 : get16(b + 5);
  if (kFileHeaderBytes + 8 + 2 * cells > content || content > usable_)
    return fail("a damaged schema page");
  const unsigned char* end = h + usable_;
  for (uint32_t i = 0; i < cells; ++i) {
    const uint32_t at = get16(b + 8 + 2 * i);
    if (at < content || at >= usable_) return fail("a damaged schema page");
    const unsigned char* c = h + at;
    uint64_t payload = 0, rowid = 0;
    size_t n = get_varint(c, end, payload);
    const size_t m = n ? get_varint(c + n, end, rowid) : 0;
    if (!n || !m) return fail("a damaged schema page");
    if (payload > usable_ - 35) return fail("a schema row on overflow pages");
    const unsigned char* record = c + n + m;
    if (record + payload > end) return fail("a damaged schema page");
    std::string_view name;
    if (!record_text(record, record + payload, 1, name)) return fail("a damaged schema row");
    names_.emplace_back(name);
    max_rowid_ = std::max(max_rowid_, static_cast<int64_t>(rowid));
  }
}

bool DatabaseFileAppender::has_table(std::string_view name) const {
  return std::find(names_.begin(), names_.end(), name) != names_.end();
}

std::string DatabaseFileAppender::schema_record(std::string_view name, std::string_view sql,
                                                uint32_t root) const {
  RecordEncoder r;
  r.text("table");
  r.text(name);
  r.text(name);
  r.integer(root);
  r.text(sql);
  return std::string(r.finish());
}

size_t DatabaseFileAppender::gap() const {
  const auto* b = reinterpret_cast<const unsigned char*>(page1_.data()) + kFileHeaderBytes;
  const uint32_t content = get16(b + 5) == 0 ? 65536 : get16(b + 5);
  return content - (kFileHeaderBytes + 8 + 2 * get16(b + 3));
}

bool DatabaseFileAppender::schema_has_room(std::string_view name, std::string_view sql) const {
  if (!unsupported_.empty() || read_errno_) return false;
  const size_t payload = schema_record(name, sql, 0x7fffffff).size();  // the widest root number
  const size_t cell = varint_length(payload) + varint_length(max_rowid_ + 1) + payload;
  return payload <= usable_ - 35 && cell + 2 <= gap();
}

TableBtreeBuilder DatabaseFileAppender::new_table() const {
  return TableBtreeBuilder(page_size_, usable_, pages_ + 1);
}

DatabaseFileAppender::~DatabaseFileAppender() {
  if (fd_ >= 0) ::close(fd_);
}

int DatabaseFileAppender::write_fd() {
  if (fd_ < 0) fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  return fd_;
}

TableBtreeBuilder DatabaseFileAppender::new_streamed_table() {
  TableBtreeBuilder t = new_table();
  t.set_spill([this](const unsigned char* bytes, size_t n, uint32_t first) {
    const int fd = write_fd();
    return fd >= 0 && pwrite_all(fd, bytes, n, static_cast<off_t>(first - 1) * page_size_);
  });
  return t;
}

bool DatabaseFileAppender::append(std::string_view name, std::string_view sql,
                                  TableBtreeBuilder& table) {
  if (table.spill_failed()) {  // nothing changed: the file's recorded size ends before the pages
    errno = table.spill_errno();
    return false;
  }
  const uint32_t root = table.finish();
  const std::string record = schema_record(name, sql, root);
  const uint64_t rowid = static_cast<uint64_t>(max_rowid_ + 1);
  const size_t cell =
      std::max<size_t>(4, varint_length(record.size()) + varint_length(rowid) + record.size());
  if (cell + 2 > gap()) {  // schema_has_room said yes: cannot happen
    errno = ENOSPC;
    return false;
  }
  auto* h = reinterpret_cast<unsigned char*>(page1_.data());
  unsigned char* b = h + kFileHeaderBytes;
  const uint32_t cells = get16(b + 3);
  const uint32_t content = (get16(b + 5) == 0 ? 65536 : get16(b + 5)) - static_cast<uint32_t>(cell);
  unsigned char* c = h + content;
  c += put_varint(c, record.size());
  c += put_varint(c, rowid);
  std::memcpy(c, record.data(), record.size());
  put16(b + 8 + 2 * cells, content);
  put16(b + 3, cells + 1);
  put16(b + 5, content);
  // The header: one more change, the new size, a new schema cookie; the size is valid for this
  // change counter.
  const uint32_t counter = get32(h + 24) + 1;
  put32(h + 24, counter);
  put32(h + 28, pages_ + table.page_count());
  put32(h + 40, get32(h + 40) + 1);
  put32(h + 92, counter);
  put32(h + 96, SQLITE_VERSION_NUMBER);

  const int fd = write_fd();
  if (fd < 0) return false;
  bool ok = table.for_each_run([&](const unsigned char* bytes, size_t n, uint32_t first) {
    return pwrite_all(fd, bytes, n, static_cast<off_t>(first - 1) * page_size_);
  }) && pwrite_all(fd, page1_.data(), page1_.size(), 0);
  const int err = errno;
  const int closed = ::close(fd);
  fd_ = -1;
  if (closed != 0 && ok) return false;
  errno = err;
  if (!ok) return false;
  pages_ += table.page_count();
  max_rowid_ = static_cast<int64_t>(rowid);
  names_.emplace_back(name);
  return true;
}

}  // namespace cs::io::sqlite
