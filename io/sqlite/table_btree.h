#pragma once
// A rowid table's b-tree in SQLite's file format (https://www.sqlite.org/fileformat2.html
// "B-tree Pages"), built bottom-up from records given in rowid order: leaf pages filled in
// turn, payloads too large for a page continued on overflow pages, then interior levels up to
// one root page. The pages are numbered from `first_page` on, as they will sit in the file
// (the lock-byte page at 1 GiB is skipped, left zero, as SQLite leaves it).

#include <cstdint>
#include <functional>
#include <memory>
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

  // Pages that are complete are handed to `spill(bytes, size, first_page)` (runs of consecutive
  // pages, in page order) while rows are added, and their memory reused, so a large table is
  // never held whole; for_each_run() then gives only the pages not yet spilled. After a spill
  // returned false no more is spilled and spill_failed() says so, spill_errno() the errno it left.
  using Spill = std::function<bool(const unsigned char*, size_t, uint32_t)>;
  void set_spill(Spill spill) { spill_ = std::move(spill); }
  bool spill_failed() const { return spill_failed_; }
  int spill_errno() const { return spill_errno_; }

  // Adds a row with the next rowid (1, 2, ...) and `record` (io/sqlite/sqlite_record.h).
  void add_row(std::string_view record);

  // Ends the table: builds the interior pages and returns the root page's number.
  uint32_t finish();

  // Calls `put(bytes, size, first)` for the pages not spilled, in order, in runs of consecutive
  // pages (`first` the run's first page number); stops at the first false.
  bool for_each_run(const std::function<bool(const unsigned char*, size_t, uint32_t)>& put) const;
  // Page `number`'s bytes (first_page <= number < first_page + page_count(), not spilled).
  const unsigned char* page_bytes(uint32_t number) const;
  uint32_t page_count() const { return pages_; }
  int64_t rows() const { return rows_; }

 private:
  uint32_t new_page();
  void spill_complete_chunks();
  unsigned char* page(uint32_t number);
  void start_leaf();
  void close_leaf();
  uint32_t write_overflow(std::string_view rest);
  std::vector<std::pair<uint32_t, int64_t>> interior_level(
      const std::vector<std::pair<uint32_t, int64_t>>& children);

  uint32_t page_size_, usable_, first_page_;
  // The pages in chunks of chunk_pages_ (about 1 MiB): a growing table is never copied.
  uint32_t chunk_pages_;
  std::vector<std::unique_ptr<unsigned char[]>> chunks_;  // spilled ones are null
  std::vector<std::unique_ptr<unsigned char[]>> spare_;   // spilled chunks' memory, zeroed
  size_t spilled_ = 0;                                    // chunks spilled (the first ones)
  Spill spill_;
  bool spill_failed_ = false;
  int spill_errno_ = 0;
  uint32_t pages_ = 0;
  int64_t rows_ = 0;
  uint32_t leaf_ = 0;                                 // the leaf being filled (0: none)
  uint32_t cells_ = 0;                                // its cells
  uint32_t content_ = 0;                              // offset of its lowest cell
  std::vector<std::pair<uint32_t, int64_t>> leaves_;  // (page, largest rowid)
};

}  // namespace cs::io::sqlite
