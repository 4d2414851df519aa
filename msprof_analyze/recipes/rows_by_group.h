#pragma once
// Rows sorted into groups by one walk, held on disk until read back group by group (slow_link's
// SlowLinkOps and slow_rank's collective instances: the ranks' rows come in rank order, the
// reduce wants them group after group, each group's in rank order). A row is `width` elements of a
// trivially copyable type, copied as bytes (a text cell is a pointer to the run's pooled text,
// frame/text_pool.h: the file is read back only by this process while the pool holds its texts).
// At most `budget_rows` rows wait in memory: when they are that many, every group's waiting rows
// go to a runtime::SpillFile as one block each. When the file cannot be created or written, the
// rows stay in memory: spilling saves memory, it never changes the rows read back.
//
//   RowsByGroup rows(groups, sizeof(Row), 1, 1 << 15);
//   rows.add(g, &row);
//   rows.for_each_run<Row>(g, [](std::span<const Row> run) { ... });

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/spill_file.h"

namespace cs::recipes {

class RowsByGroup {
 public:
  // `groups` groups (more are added as rows name them) of rows of `width` elements of
  // `element_bytes` each; `dir`: where the spill file goes ($TMPDIR, else /tmp, when empty).
  RowsByGroup(size_t groups, size_t element_bytes, size_t width, size_t budget_rows,
              const std::string& dir = {});
  // Appends a row (width() elements of type T) to group `group`.
  template <class T>
  void add(uint32_t group, const T* row) {
    static_assert(std::is_trivially_copyable_v<T>, "rows are kept as their bytes");
    add_bytes(group, row);
  }
  // Calls fn(elements) with group `group`'s rows in the order they were added, a run of whole
  // rows (width() elements each) at a time. Throws std::runtime_error when the spill file cannot be
  // read back.
  template <class T, class Fn>
  void for_each_run(uint32_t group, Fn fn) const {
    std::vector<T> elements;
    for_each_bytes(group, [&](const char* p, size_t n) {
      elements.resize(n / sizeof(T));
      std::memcpy(elements.data(), p, elements.size() * sizeof(T));
      fn(std::span<const T>(elements));
    });
  }
  size_t width() const { return width_; }
  // Bytes written to the spill file (0: every row stayed in memory).
  uint64_t spilled_bytes() const { return file_ ? file_->size() : 0; }
  // Why rows stayed in memory past the budget (the file could not be created or written); empty
  // when they did not.
  const std::string& problem() const { return problem_; }

 private:
  void add_bytes(uint32_t group, const void* row);
  void for_each_bytes(uint32_t group, const std::function<void(const char*, size_t)>& fn) const;
  void spill();
  size_t row_bytes_, width_, budget_rows_;
  size_t waiting_rows_ = 0;
  bool spilling_ = true;  // false once the file failed: the rows from then on stay in memory
  std::string problem_;
  std::vector<std::vector<char>> waiting_;                      // per group, rows not on disk
  std::vector<std::vector<runtime::SpillFile::Block>> blocks_;  // per group, its rows on disk
  std::shared_ptr<runtime::SpillFile> file_;                    // null: none could be created
};

}  // namespace cs::recipes
