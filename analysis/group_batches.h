#pragma once
// Communication groups cut into batches, for the analyses that judge collective op instances a
// batch of groups at a time (collective lateness, slow transfers) instead of every rank's at once
// (docs/root_memory.md). An instance (step, op key) lies in one group: its op key ends in the
// group's name (documents::py_group_of). A first pass over every rank adds which groups each rank
// reports; a batch is then consecutive groups (first-appearance order over the ranks) of about a
// given number of reports, read back from the ranks that report them (as
// msprof_analyze/documents/comm_batches does by group tuple for the communication tables).
//
//   GroupBatches b;
//   GroupCounter mine;  // per rank, over its collective ops
//   mine.count(documents::py_group_of(op.name));
//   b.add(position, mine.take());  // ranks in increasing position
//   b.cut(4096);
//   for (size_t i = 0; i < b.size(); ++i) for (uint32_t p : b.readers(i)) ... b.batch_of(group)

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cs::analysis {

// One rank's groups in first-appearance order, with their report counts.
class GroupCounter {
 public:
  // Counts one report of `group`.
  void count(std::string_view group);
  // The groups counted, and a fresh counter.
  std::vector<std::pair<std::string, size_t>> take();

 private:
  std::vector<std::pair<std::string, size_t>> groups_;
  std::unordered_map<std::string, size_t> index_;
};

class GroupBatches {
 public:
  // The groups the rank at `position` reports (GroupCounter::take()); positions increasing.
  void add(uint32_t position, std::vector<std::pair<std::string, size_t>> groups);
  // Cuts the groups into batches of about `entries` reports each (a group is never split).
  void cut(size_t entries);
  // Number of batches (after cut()).
  size_t size() const { return readers_.size(); }
  // The positions of the ranks reporting batch i's groups, increasing.
  const std::vector<uint32_t>& readers(size_t i) const { return readers_[i]; }
  // The batch of `group`; size() when no rank reported it.
  size_t batch_of(std::string_view group) const;

 private:
  struct Hash {  // looked up by string_view, without a copy
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // group -> position in the vectors below, then (after cut) -> batch
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;
  std::vector<std::string> names_;
  std::vector<std::vector<uint32_t>> ranks_;  // per group: positions of its reporters
  std::vector<size_t> entries_;               // per group: its reports
  std::vector<std::vector<uint32_t>> readers_;
};

}  // namespace cs::analysis
