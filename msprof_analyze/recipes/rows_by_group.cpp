#include "msprof_analyze/recipes/rows_by_group.h"

#include <algorithm>
#include <stdexcept>

namespace cs::recipes {

RowsByGroup::RowsByGroup(size_t groups, size_t element_bytes, size_t width, size_t budget_rows,
                         const std::string& dir)
    : row_bytes_(element_bytes * width),
      width_(width),
      budget_rows_(std::max<size_t>(budget_rows, 1)),
      waiting_(groups),
      blocks_(groups) {
  try {
    file_ = runtime::SpillFile::create(dir);
  } catch (const std::runtime_error& e) {
    spilling_ = false;
    problem_ = e.what();
  }
}

void RowsByGroup::add_bytes(uint32_t group, const void* row) {
  if (group >= waiting_.size()) {  // a group not counted when made
    waiting_.resize(group + 1);
    blocks_.resize(group + 1);
  }
  const char* p = static_cast<const char*>(row);
  waiting_[group].insert(waiting_[group].end(), p, p + row_bytes_);
  if (++waiting_rows_ >= budget_rows_ && spilling_) spill();
}

void RowsByGroup::spill() {
  for (size_t g = 0; g < waiting_.size(); ++g) {
    std::vector<char>& rows = waiting_[g];
    if (rows.empty()) continue;
    try {
      blocks_[g].push_back(file_->append(rows.data(), rows.size()));
    } catch (const std::runtime_error& e) {
      // A full disk, say: the blocks written stay readable, the rows not written stay waiting
      // (after them, in order), and no more are written.
      spilling_ = false;
      problem_ = e.what();
      return;
    }
    std::vector<char>().swap(rows);  // freed: a group's largest batch is not kept
  }
  waiting_rows_ = 0;
}

void RowsByGroup::for_each_bytes(uint32_t group,
                                 const std::function<void(const char*, size_t)>& fn) const {
  if (group >= waiting_.size()) return;  // no row added
  std::vector<char> buf;
  for (const runtime::SpillFile::Block& b : blocks_[group]) {
    file_->read(b, buf);
    fn(buf.data(), buf.size());
  }
  if (!waiting_[group].empty()) fn(waiting_[group].data(), waiting_[group].size());
}

}  // namespace cs::recipes
