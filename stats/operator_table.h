#pragma once
// Per-operator mergeable statistics across ranks: for each operator key (type, name, or
// name+shapes) every kernel duration feeds a RunningStats and Quantiles (exact up to a bound),
// and each rank's total is kept so the cross-rank spread (CV, min/max rank) can be computed
// after the merge.

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/byte_buffer.h"
#include "stats/quantiles.h"
#include "stats/running_stats.h"

namespace cs::stats {

// A key's per-rank totals, sorted by rank, in one flat vector (16 bytes a rank; a std::map
// node was 48). Ranks are added and merged in increasing order, so adding is mostly an append.
//   RankTotals t;  t.add(3, 10);  t.add(1, 5);  t.add(3, 2);   // {1: 5, 3: 12}
class RankTotals {
 public:
  using value_type = std::pair<int, double>;
  using const_iterator = std::vector<value_type>::const_iterator;

  RankTotals() = default;
  // The totals given (a rank given twice: its values added, in the order given).
  RankTotals(std::initializer_list<value_type> totals);

  // Adds v to rank's total (a new rank's total starts at 0, then v is added: as map[rank] += v).
  void add(int rank, double v);
  // The rank's entry, or end().
  const_iterator find(int rank) const;
  // The rank's total; throws std::out_of_range when the rank has none.
  double at(int rank) const;
  // Removes the rank's entry (nothing when it has none).
  void erase(int rank);

  size_t size() const { return totals_.size(); }
  bool empty() const { return totals_.empty(); }
  const_iterator begin() const { return totals_.begin(); }
  const_iterator end() const { return totals_.end(); }
  bool operator==(const RankTotals&) const = default;

 private:
  std::vector<value_type> totals_;  // sorted by rank, one entry a rank
};

struct OperatorKeyStats {
  RunningStats durations;  // per kernel, microseconds
  Quantiles quantiles;     // per kernel durations (exact up to a bound)
  RankTotals rank_totals;  // rank -> total microseconds of this key on that rank
};

class OperatorTable {
 public:
  // Adds one kernel of `key` lasting duration_us on `rank`.
  void add(std::string_view key, double duration_us, int rank);
  // Adds a pre-aggregated group (op_statistic.csv): count kernels totalling total_us, with
  // min/max/avg known but no individual values (the sketch gets `count` copies of avg).
  void add_aggregate(std::string_view key, int64_t count, double total_us, double min_us,
                     double max_us, int rank);
  // Exact merge; call in rank order for byte-identical floating-point sums. Past
  // kExactBudget samples held exactly in the whole table, the keys with the most samples fall
  // back to their sketches until the table is within it again.
  void merge(const OperatorTable& other);
  // Where merge_counting() leaves what it does not hold, per key of the merged table: the exact
  // samples to keep (given back to the key's Quantiles, give_back) and the table's per-rank
  // totals (added back in the order given, RankTotals::add, they are the key's rank_totals).
  struct Keeper {
    std::function<void(const std::string&, const std::vector<double>&)> samples;
    std::function<void(const std::string&, const RankTotals&)> totals;
  };
  // As merge(), but the exact samples `other` brings to a key that stays exact and its rank
  // totals are given to `keep` instead of being held (Quantiles::merge_counting): the same
  // counts, exactness, budget and RunningStats; each key's quantiles read once its kept samples
  // are given back, its rank totals are what `keep.totals` was given.
  void merge_counting(const OperatorTable& other, const Keeper& keep);
  // Samples the whole table keeps exactly (64 MiB of doubles).
  static constexpr size_t kExactBudget = size_t{8} << 20;

  // Files every key's per-rank total of rank `from` under rank `to` (when two single-rank
  // profiles with different rank ids are paired for a comparison).
  void rename_rank(int from, int to);

  const std::map<std::string, OperatorKeyStats, std::less<>>& keys() const { return keys_; }
  bool empty() const { return keys_.empty(); }

  void pack(io::ByteWriter& w) const;
  static OperatorTable unpack(io::ByteReader& r);

 private:
  void merge(const OperatorTable& other, const Keeper* keep);
  std::map<std::string, OperatorKeyStats, std::less<>> keys_;
};

}  // namespace cs::stats
