#pragma once
// One value per rank, in rank order: a sorted vector of (rank, value) pairs looked up by binary
// search. The analyses that keep something for every rank of a job hold it this way, not in a
// std::map: a map's node costs about 48 bytes beside its value, and at 16,384 ranks the slow-rank
// analysis held about 10 MB of them while the communication tables were written beside it.
//
//   ByRank<double> net({{3, 1.5}, {1, 0.2}});   // sorted on construction
//   if (const double* v = net.find(3)) ...      // 1.5
//   for (const auto& [rank, v] : net) ...       // rank 1, then rank 3

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cs::analysis {

template <class T>
class ByRank {
 public:
  using Entry = std::pair<int, T>;
  ByRank() = default;
  // Takes the entries in any order. A rank given twice keeps its last value (as a map assigned
  // twice would).
  explicit ByRank(std::vector<Entry> entries) : entries_(std::move(entries)) {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.first < b.first; });
    // Of equal ranks keep the last: move it onto the first of its run, then drop the rest.
    size_t out = 0;
    for (size_t i = 0; i < entries_.size(); ++out) {
      size_t j = i;
      while (j + 1 < entries_.size() && entries_[j + 1].first == entries_[i].first) ++j;
      if (out != j) entries_[out] = std::move(entries_[j]);
      i = j + 1;
    }
    entries_.resize(out);
  }

  // The rank's value, or nullptr when it has none.
  const T* find(int rank) const {
    const auto it = lower(rank);
    return it != entries_.end() && it->first == rank ? &it->second : nullptr;
  }
  // The rank's value; throws std::out_of_range when it has none.
  const T& at(int rank) const {
    if (const T* v = find(rank)) return *v;
    throw std::out_of_range("no value for rank " + std::to_string(rank));
  }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  typename std::vector<Entry>::const_iterator lower(int rank) const {
    return std::lower_bound(entries_.begin(), entries_.end(), rank,
                            [](const Entry& e, int r) { return e.first < r; });
  }
  std::vector<Entry> entries_;
};

// The slots of a set of ranks: each rank's place among them in rank order, so an analysis can
// keep its per-rank working values in plain vectors while it walks the job.
class RankSlots {
 public:
  // Takes the ranks in any order, repeats allowed.
  explicit RankSlots(std::vector<int> ranks) : ranks_(std::move(ranks)) {
    std::sort(ranks_.begin(), ranks_.end());
    ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
  }
  // The rank's slot, or -1 when it is not one of the ranks.
  ptrdiff_t of(int rank) const {
    const auto it = std::lower_bound(ranks_.begin(), ranks_.end(), rank);
    return it != ranks_.end() && *it == rank ? it - ranks_.begin() : -1;
  }
  // The rank in `slot`.
  int rank(size_t slot) const { return ranks_[slot]; }
  size_t size() const { return ranks_.size(); }

 private:
  std::vector<int> ranks_;
};

}  // namespace cs::analysis
