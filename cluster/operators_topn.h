#pragma once
// The "operators_topn" table: global TopN operator keys over all ranks (interface.md), from the
// per-rank OperatorTables merged in rank order.
//
//   io::Table t = operators_topn_table(ranks, 15, stats::OrderBy::kTotal);
//   // columns: key,count,total_us,mean_us,std_us,min_us,max_us,p50_us,p90_us,p99_us,ranks,
//   //          min_rank,max_rank,cross_rank_cv

#include <cstddef>
#include <vector>

#include "cluster/rank_data.h"
#include "io/table.h"
#include "stats/operator_table.h"
#include "stats/topn.h"

namespace cs::cluster {

// Merges every rank's operators in the order given (callers pass ranks sorted by rank, so
// floating-point sums are the same whatever the number of MPI processes).
stats::OperatorTable merge_operators(const std::vector<RankData>& ranks);

// The table from an already merged OperatorTable. top_n = 0 keeps every key.
// p50/p90/p99 are sketch quantiles: within +-1% (relative) of the exact sample quantile.
io::Table operators_topn_table(const stats::OperatorTable& merged, size_t top_n,
                               stats::OrderBy order);
// Same, merging `ranks` first.
io::Table operators_topn_table(const std::vector<RankData>& ranks, size_t top_n,
                               stats::OrderBy order);

}  // namespace cs::cluster
