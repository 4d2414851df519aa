#pragma once
// Rows of a table kept on disk in runs sorted by a position (issue 38, docs/root_memory.md
// "ClusterCommunicationMatrix streamed"), then read back merged in position order: the merged
// matrix's links come out of the walk over the ranks in batches, each batch sorted, and the
// table's order is the order of their positions. A batch after the last one stored joins its run
// (the usual case: the runs are then one); an earlier one starts a new run. Stored in chunks of a
// few thousand rows, the merge holds one chunk per run it is reading.
//
// The cells are stored as their 16 bytes (a text cell is a pointer into the run's text pool,
// frame/text_pool.h, which is never freed): the file is read back by the process that wrote it.
// When the file cannot be written the chunks stay in memory (one problem() says why): the rows
// read back are the same.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frame/frame.h"
#include "runtime/spill_file.h"

namespace cs::recipes::communication_matrix_sum {

class SortedRuns {
 public:
  // Rows of `columns` columns, stored in `file` (in memory when null).
  SortedRuns(size_t columns, std::shared_ptr<runtime::SpillFile> file);
  SortedRuns(const SortedRuns&) = delete;
  SortedRuns& operator=(const SortedRuns&) = delete;

  // Adds a batch: `rows` (the columns, in order) with each row's position, `pos` (increasing).
  void add(const frame::Frame& rows, const std::vector<uint64_t>& pos);
  // Stores what add() still holds; then merged() can read.
  void finish();
  uint64_t rows() const { return rows_; }
  size_t runs() const { return runs_.size(); }
  // Why the file failed (empty: it did not, or there is none).
  const std::string& problem() const { return problem_; }

  // The rows of every run in position order (a run's before a later run's on equal positions).
  class Merger {
   public:
    explicit Merger(const SortedRuns& runs);
    ~Merger();
    // Up to `max_rows` next rows into `out` (its columns replaced: the cells only, no names);
    // false when there are none left. Throws std::runtime_error when a chunk cannot be read.
    bool next(std::vector<std::vector<frame::Cell>>& out, size_t max_rows);

   private:
    struct Cursor;
    void load(Cursor& c);
    const SortedRuns& runs_;
    std::vector<Cursor> cursors_;
    std::vector<size_t> heap_;  // cursors with rows left, the smallest next position first
  };

 private:
  struct Chunk {
    runtime::SpillFile::Block block;  // in the file, or
    std::vector<char> bytes;          // held (no file, or it failed)
    uint64_t first = 0;               // its first row's position
    uint32_t rows = 0;
  };
  void store(size_t from, size_t to);
  void store_pending();

  size_t columns_;
  std::shared_ptr<runtime::SpillFile> file_;
  std::vector<std::vector<Chunk>> runs_;
  bool new_run_ = true;  // the next chunk starts a run
  uint64_t last_ = 0;    // the position of the last row added (when rows_ > 0)
  uint64_t rows_ = 0;
  // The rows added and not yet stored: columns, then positions.
  std::vector<std::vector<frame::Cell>> pending_;
  std::vector<uint64_t> pending_pos_;
  std::string problem_;
};

}  // namespace cs::recipes::communication_matrix_sum
