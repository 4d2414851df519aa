#pragma once
// What comm_batches.h and matrix_batches.h share: from the group tuples each rank reports (first
// pass), the tuples numbered in document order, the ranks reporting each, and batches of
// consecutive tuples of about a budget of reports each (a tuple is never split).

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "msprof_analyze/documents/communication_groups.h"

namespace cs::documents {

// One rank's groups, in first-appearance order, with their report counts (nullptr: no group).
using GroupCounts = std::vector<std::pair<const CommGroup*, size_t>>;

// Adds `n` reports of `g` to `seen` (reports of one group mostly come together: searched from the
// back).
void count_group(GroupCounts& seen, const CommGroup* g, size_t n);

class TupleBatches {
 public:
  TupleBatches() = default;
  // Numbers the tuples of `seen` (one entry per rank, in rank order; each emptied) in
  // first-appearance order over the ranks and cuts them into batches of about `budget` reports.
  TupleBatches(std::vector<GroupCounts>& seen, size_t budget);

  // Group tuples, and their keys ("(0, 1)", "()" for no group) in document order.
  size_t tuples() const { return keys_.size(); }
  const std::string& key(size_t t) const { return keys_[t]; }
  // Reports of tuple t over every rank.
  size_t reports(size_t t) const { return reports_[t]; }
  // The tuple of a group some rank reported.
  uint32_t tuple_of(const CommGroup* g) const { return tuple_of_.at(g); }
  // Number of batches; batch i holds the tuples [begin(i), end(i)).
  size_t size() const { return batch_begin_.empty() ? 0 : batch_begin_.size() - 1; }
  size_t begin(size_t i) const { return batch_begin_[i]; }
  size_t end(size_t i) const { return batch_begin_[i + 1]; }
  // The ranks (positions in `seen`) reporting a tuple of batch i, increasing.
  std::vector<uint32_t> readers(size_t i) const;

 private:
  std::vector<std::string> keys_;             // document order
  std::vector<size_t> reports_;               // per tuple
  std::vector<std::vector<uint32_t>> ranks_;  // per tuple: positions in seen, increasing
  std::vector<size_t> batch_begin_;           // first tuple of each batch, then the end
  std::unordered_map<const CommGroup*, uint32_t> tuple_of_;
};

// Calls fn(step index, op list, p2p) for each op list of a communication or matrix file in the
// order msprof-analyze walks a rank's: steps in file order, collective then p2p (or p2p first when
// the file has it first).
template <class File, class Fn>
void walk_lists(File& file, Fn fn) {
  for (size_t s = 0; s < file.steps.size(); ++s) {
    auto& step = file.steps[s];
    if (step.p2p_first) fn(s, step.p2p, true);
    fn(s, step.collective, false);
    if (!step.p2p_first) fn(s, step.p2p, true);
  }
}

// items[index[key]], appended (and *added set) when the key is new: the batches' index levels.
template <class T>
T& find_or_add(std::vector<T>& items, std::unordered_map<std::string, size_t>& index,
               const std::string& key, bool& added) {
  auto [it, inserted] = index.try_emplace(key, items.size());
  added = inserted;
  if (inserted) items.emplace_back();
  return items[it->second];
}

}  // namespace cs::documents
