#include "analysis/group_batches.h"

#include <algorithm>

namespace cs::analysis {

void GroupCounter::count(std::string_view group) {
  if (!groups_.empty() && groups_.back().first == group) {  // ops of a group come together
    ++groups_.back().second;
    return;
  }
  const auto [it, added] = index_.try_emplace(std::string(group), groups_.size());
  if (added) groups_.emplace_back(it->first, 0);
  ++groups_[it->second].second;
}

std::vector<std::pair<std::string, size_t>> GroupCounter::take() {
  index_.clear();
  return std::exchange(groups_, {});
}

void GroupBatches::add(uint32_t position, std::vector<std::pair<std::string, size_t>> groups) {
  for (auto& [name, count] : groups) {
    const auto [g, added] = index_.try_emplace(name, static_cast<uint32_t>(names_.size()));
    if (added) {
      names_.push_back(std::move(name));
      ranks_.emplace_back();
      entries_.push_back(0);
    }
    std::vector<uint32_t>& reporters = ranks_[g->second];
    if (reporters.empty() || reporters.back() != position) reporters.push_back(position);
    entries_[g->second] += count;
  }
}

void GroupBatches::cut(size_t entries) {
  size_t in_batch = 0;
  for (size_t g = 0; g < names_.size(); ++g) {
    if (in_batch == 0) readers_.emplace_back();
    std::vector<uint32_t>& readers = readers_.back();
    readers.insert(readers.end(), ranks_[g].begin(), ranks_[g].end());
    index_[names_[g]] = static_cast<uint32_t>(readers_.size() - 1);
    in_batch += entries_[g];
    if (in_batch >= entries) in_batch = 0;
  }
  for (std::vector<uint32_t>& readers : readers_) {
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  }
  std::vector<std::string>().swap(names_);
  std::vector<std::vector<uint32_t>>().swap(ranks_);
  std::vector<size_t>().swap(entries_);
}

size_t GroupBatches::batch_of(std::string_view group) const {
  const auto it = index_.find(group);
  return it == index_.end() ? size() : it->second;
}

}  // namespace cs::analysis
