#pragma once
// TopN operators from a merged OperatorTable: one row per key with the per-kernel statistics,
// quantiles (exact up to a bound), and the spread of per-rank totals (cross-rank CV, min/max rank).
//
//   OperatorTable merged;  for (auto& t : rank_tables) merged.merge(t);   // rank order
//   auto rows = select_topn(merged, 15, OrderBy::kTotal);

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/enum_names.h"
#include "stats/operator_table.h"

namespace cs::stats {

// --order-by: total (sum of durations), mean, max (longest kernel), cv (cross-rank CV).
enum class OrderBy { kTotal, kMean, kMax, kCv };
inline constexpr std::array<runtime::EnumName<OrderBy>, 4> kOrderByNames{
    {{"total", OrderBy::kTotal},
     {"mean", OrderBy::kMean},
     {"max", OrderBy::kMax},
     {"cv", OrderBy::kCv}}};
// "total" | "mean" | "max" | "cv" -> OrderBy (kOrderByNames); nullopt for anything else.
std::optional<OrderBy> parse_order_by(std::string_view s);

struct TopNRow {
  std::string key;
  int64_t count = 0;
  double total_us = 0;
  double mean_us = 0;
  double std_us = 0;  // sample standard deviation of kernel durations (n-1), 0 for one kernel
  double min_us = 0;
  double max_us = 0;
  // Quantiles of kernel durations (stats/quantiles.h): exact, interpolated linearly as numpy and
  // pandas do, while the key has at most 2^20 samples (and the table 8 Mi in all); beyond that
  // within +-1% (relative) of the lower sample quantile x[floor(q*(n-1))].
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  int64_t ranks = 0;  // ranks that ran this key
  // Rank with the smallest / largest per-rank total (lowest rank on ties). With pipeline stages
  // known, "total" is the total relative to its stage's median (t / stage median), so these name
  // the ranks that stand out among their peers, not the stage with the most work.
  int min_rank = -1;
  int max_rank = -1;
  // Peer-relative CV of per-rank totals (see cross_rank_cv below; 0 for one rank).
  double cross_rank_cv = 0;
};

// Pipeline stage of each rank (rank -> any stage id). Ranks absent from the map form one stage of
// their own; an empty map means "no stage information" (every rank is a peer of every other).
using RankStages = std::map<int, int>;

// Coefficient of variation of per-rank totals: sqrt(mean((t - mean)^2)) / mean over the ranks in
// the map; 0 when fewer than 2 ranks or the mean is 0. {0: 10, 1: 10, 2: 40} -> 0.7071.
double cross_rank_cv(const RankTotals& rank_totals);

// Peer-relative per-rank totals: each total divided by the median total of the ranks of its
// stage that ran the key (x = t / median(stage)). With pipeline parallelism the stages run
// different kernel mixes, so only ranks of the same stage are peers. Returns rank_totals
// unchanged when `stages` is empty or some stage's median is not positive.
// {0: 10, 1: 12, 2: 40, 3: 44} with stages {0:0, 1:0, 2:1, 3:1} -> {0: 0.909, 1: 1.091, ...}.
RankTotals stage_relative_totals(const RankTotals& rank_totals, const RankStages& stages);

// The cross-rank CV among peers: cross_rank_cv(stage_relative_totals(rank_totals, stages)).
// With one stage (or no stage information) it equals the plain CV, since the CV ignores scale;
// with several stages the structural stage-to-stage spread is removed and only the spread of a
// rank against its own stage remains. {0: 10, 1: 10, 2: 40, 3: 40} with stages {0,0,1,1} -> 0.
double cross_rank_cv(const RankTotals& rank_totals, const RankStages& stages);

// One row per key (not yet ordered); `stages` as in cross_rank_cv (min/max rank are taken over
// the stage-relative totals when stages are known).
TopNRow make_topn_row(const std::string& key, const OperatorKeyStats& s,
                      const RankStages& stages = {});

// True for communication kernels (key starts with hcom/hccl, or contains nccl, any case): their
// durations include waiting for peers, so their spread across ranks says who waited, not which
// kernel is slow.
bool is_communication_key(std::string_view key);

// The n keys with the largest `order` value, largest first; ties broken by key so the output
// is deterministic. n = 0 means all keys. With OrderBy::kCv, communication keys come after every
// compute key (the CV ranking is about compute imbalance; slow_ranks covers the waiting).
// `stages`: the ranks' pipeline stages for the peer-relative CV (empty: all ranks are peers).
std::vector<TopNRow> select_topn(const OperatorTable& merged, size_t n, OrderBy order,
                                 const RankStages& stages = {});
// select_topn's choice from every key's row already made (make_topn_row, any order): the same
// rows as select_topn over the table they came from.
std::vector<TopNRow> select_rows(std::vector<TopNRow> rows, size_t n, OrderBy order);

}  // namespace cs::stats
