#include "io/sqlite/table_btree.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "io/sqlite/big_endian.h"
#include "io/sqlite/file_format.h"
#include "io/sqlite/sqlite_record.h"

namespace cs::io::sqlite {

namespace {

constexpr unsigned char kInteriorTable = 0x05;
constexpr uint64_t kLockByteOffset = 0x40000000;  // SQLite's pending byte: its page is never used

}  // namespace

TableBtreeBuilder::TableBtreeBuilder(uint32_t page_size, uint32_t usable_size, uint32_t first_page)
    : page_size_(page_size),
      usable_(usable_size),
      first_page_(first_page),
      chunk_pages_(std::max<uint32_t>(1, (1u << 20) / page_size)) {}

uint32_t TableBtreeBuilder::new_page() {
  for (;;) {
    if (pages_ % chunk_pages_ == 0) {  // zeroed: unused bytes of a page are written as zeros
      if (spare_.empty()) {
        chunks_.push_back(std::make_unique<unsigned char[]>(size_t{chunk_pages_} * page_size_));
      } else {
        chunks_.push_back(std::move(spare_.back()));
        spare_.pop_back();
      }
    }
    const uint32_t number = first_page_ + pages_++;
    if (number != kLockByteOffset / page_size_ + 1) return number;
    // The lock-byte page: left zero, never part of a b-tree.
  }
}

unsigned char* TableBtreeBuilder::page(uint32_t number) {
  const uint32_t i = number - first_page_;
  return chunks_[i / chunk_pages_].get() + size_t{i % chunk_pages_} * page_size_;
}

const unsigned char* TableBtreeBuilder::page_bytes(uint32_t number) const {
  const uint32_t i = number - first_page_;
  return chunks_[i / chunk_pages_].get() + size_t{i % chunk_pages_} * page_size_;
}

bool TableBtreeBuilder::for_each_run(
    const std::function<bool(const unsigned char*, size_t, uint32_t)>& put) const {
  for (size_t c = spilled_; c < chunks_.size(); ++c) {
    const uint32_t first = static_cast<uint32_t>(c) * chunk_pages_;
    const uint32_t in_chunk = std::min<uint32_t>(chunk_pages_, pages_ - first);
    if (!put(chunks_[c].get(), size_t{in_chunk} * page_size_, first_page_ + first)) return false;
  }
  return true;
}

void TableBtreeBuilder::spill_complete_chunks() {
  // Between rows every page is complete but the leaf being filled: the chunks before its chunk
  // are final.
  const size_t open_chunk = leaf_ ? (leaf_ - first_page_) / chunk_pages_ : chunks_.size();
  for (; spilled_ < open_chunk && !spill_failed_; ++spilled_) {
    unsigned char* bytes = chunks_[spilled_].get();
    const size_t size = size_t{chunk_pages_} * page_size_;
    if (!spill_(bytes, size, first_page_ + static_cast<uint32_t>(spilled_) * chunk_pages_)) {
      spill_failed_ = true;
      spill_errno_ = errno;
      return;
    }
    std::memset(bytes, 0, size);
    spare_.push_back(std::move(chunks_[spilled_]));
  }
}

void TableBtreeBuilder::start_leaf() {
  leaf_ = new_page();
  cells_ = 0;
  content_ = usable_;
}

void TableBtreeBuilder::close_leaf() {
  unsigned char* p = page(leaf_);
  p[0] = kLeafTablePage;
  put16(p + 3, cells_);
  put16(p + 5, content_ == 65536 ? 0 : content_);
  leaves_.emplace_back(leaf_, rows_);
  leaf_ = 0;
}

uint32_t TableBtreeBuilder::write_overflow(std::string_view rest) {
  // Each overflow page: the next one's number (0 on the last), then usable - 4 bytes of payload.
  const size_t per_page = usable_ - 4;
  uint32_t first = 0, previous = 0;
  for (size_t at = 0; at < rest.size(); at += per_page) {
    const uint32_t number = new_page();
    if (previous) put32(page(previous), number);
    if (!first) first = number;
    const size_t n = std::min(per_page, rest.size() - at);
    std::memcpy(page(number) + 4, rest.data() + at, n);
    previous = number;
  }
  return first;
}

void TableBtreeBuilder::add_row(std::string_view record) {
  if (spill_ && spilled_ + 1 < chunks_.size()) spill_complete_chunks();
  const uint64_t rowid = static_cast<uint64_t>(rows_ + 1);
  const uint64_t size = record.size();
  // How much of the payload stays on the leaf (the format's rule, U = usable size).
  const uint64_t max_local = usable_ - 35;
  const uint64_t min_local = (usable_ - 12) * 32 / 255 - 23;
  uint64_t local = size;
  if (size > max_local) {
    const uint64_t k = min_local + (size - min_local) % (usable_ - 4);
    local = k <= max_local ? k : min_local;
  }
  // (A cell takes at least 4 bytes of the page, as SQLite allocates them.)
  const size_t cell = std::max<size_t>(
      4, varint_length(size) + varint_length(rowid) + local + (local < size ? 4 : 0));
  if (leaf_ && content_ < 8 + 2 * (cells_ + 1) + cell) close_leaf();
  if (!leaf_) start_leaf();
  ++rows_;
  const uint32_t overflow = local < size ? write_overflow(record.substr(local)) : 0;
  content_ -= static_cast<uint32_t>(cell);
  unsigned char* p = page(leaf_);
  unsigned char* c = p + content_;
  c += put_varint(c, size);
  c += put_varint(c, rowid);
  std::memcpy(c, record.data(), local);
  if (overflow) put32(c + local, overflow);
  put16(p + 8 + 2 * cells_, content_);
  ++cells_;
}

std::vector<std::pair<uint32_t, int64_t>> TableBtreeBuilder::interior_level(
    const std::vector<std::pair<uint32_t, int64_t>>& children) {
  // Groups of consecutive children, one interior page each: every child but the last is a cell
  // (its page and its largest rowid), the last is the page's right-most pointer.
  std::vector<std::pair<size_t, size_t>> groups;  // [begin, end) into children
  size_t begin = 0;
  while (begin < children.size()) {
    size_t used = 12, end = begin;
    // Take children as cells while the next one still fits as a cell.
    while (end + 1 < children.size()) {
      const size_t need = 2 + 4 + varint_length(static_cast<uint64_t>(children[end].second));
      if (used + need > usable_) break;
      used += need;
      ++end;
    }
    groups.emplace_back(begin, end + 1);
    begin = end + 1;
  }
  // A page needs a cell: a last group of one child borrows the previous group's last child.
  if (groups.size() > 1 && groups.back().second - groups.back().first == 1) {
    --groups[groups.size() - 2].second;
    --groups.back().first;
  }
  std::vector<std::pair<uint32_t, int64_t>> parents;
  for (auto [b, e] : groups) {
    const uint32_t number = new_page();
    unsigned char* p = page(number);
    p[0] = kInteriorTable;
    const uint32_t cells = static_cast<uint32_t>(e - b - 1);
    put16(p + 3, cells);
    put32(p + 8, children[e - 1].first);
    uint32_t content = usable_;
    for (size_t i = b; i + 1 < e; ++i) {
      unsigned char buf[13];
      put32(buf, children[i].first);
      const size_t n = 4 + put_varint(buf + 4, static_cast<uint64_t>(children[i].second));
      content -= static_cast<uint32_t>(n);
      std::memcpy(p + content, buf, n);
      put16(p + 12 + 2 * (i - b), content);
    }
    put16(p + 5, content == 65536 ? 0 : content);
    parents.emplace_back(number, children[e - 1].second);
  }
  return parents;
}

uint32_t TableBtreeBuilder::finish() {
  if (!leaf_ && leaves_.empty()) start_leaf();  // an empty table: one empty leaf
  if (leaf_) close_leaf();
  std::vector<std::pair<uint32_t, int64_t>> level = leaves_;
  while (level.size() > 1) level = interior_level(level);
  return level.front().first;
}

}  // namespace cs::io::sqlite
