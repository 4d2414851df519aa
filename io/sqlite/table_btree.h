#pragma once
// A rowid table's b-tree in SQLite's file format (https://www.sqlite.org/fileformat2.html
// "B-tree Pages"), built bottom-up from records given in rowid order: leaf pages filled in
// turn, payloads too large for a page continued on overflow pages, then interior levels up to
// one root page. The pages are numbered from `first_page` on, as they will sit in the file
// (the lock-byte page at 1 GiB is skipped, left zero, as SQLite leaves it).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cs::io::sqlite {

class TableBtreeBuilder {
 public:
  // Pages of `page_size` bytes of which `usable_size` are used (the rest is reserved space),
  // the first one numbered `first_page` (> 1: page 1 holds the file header and the schema).
  TableBtreeBuilder(uint32_t page_size, uint32_t usable_size, uint32_t first_page);

  // Adds a row with the next rowid (1, 2, ...) and `record` (io/sqlite/sqlite_record.h).
  void add_row(std::string_view record);

  // Ends the table: builds the interior pages and returns the root page's number.
  uint32_t finish();

  // The pages first_page, first_page + 1, ... in order, page_count() * page_size bytes.
  const std::string& pages() const { return image_; }
  uint32_t page_count() const { return static_cast<uint32_t>(image_.size() / page_size_); }
  int64_t rows() const { return rows_; }

 private:
  uint32_t new_page();
  unsigned char* page(uint32_t number);
  void start_leaf();
  void close_leaf();
  uint32_t write_overflow(std::string_view rest);
  std::vector<std::pair<uint32_t, int64_t>> interior_level(
      const std::vector<std::pair<uint32_t, int64_t>>& children);

  uint32_t page_size_, usable_, first_page_;
  std::string image_;
  int64_t rows_ = 0;
  uint32_t leaf_ = 0;                                 // the leaf being filled (0: none)
  uint32_t cells_ = 0;                                // its cells
  uint32_t content_ = 0;                              // offset of its lowest cell
  std::vector<std::pair<uint32_t, int64_t>> leaves_;  // (page, largest rowid)
};

}  // namespace cs::io::sqlite
