#pragma once
// The "operators_topn" table: global TopN operator keys over all ranks (interface.md), from the
// per-rank OperatorTables merged in rank order.
//
//   io::Table t = operators_topn_table(ranks, 15, stats::OrderBy::kTotal);
//   // columns: key,count,total_us,mean_us,std_us,min_us,max_us,p50_us,p90_us,p99_us,ranks,
//   //          min_rank,max_rank,cross_rank_cv
//
// cross_rank_cv is the CV among pipeline-stage peers: every per-rank total is divided by the
// median total of its stage (ranks of the same pp index), then CV = population std / mean of
// those ratios. With one stage this is the plain CV of per-rank totals; with pipeline parallelism
// the stages' different kernel mixes no longer count as spread. min_rank / max_rank are the ranks
// with the smallest / largest ratio to their stage median.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "analysis/operator_samples.h"
#include "io/table.h"
#include "load/rank_data.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "stats/operator_table.h"
#include "stats/topn.h"

namespace cs::analysis {

// Merges every rank's operators in the order given (callers pass ranks sorted by rank, so
// floating-point sums are the same whatever the number of MPI processes). A rank whose table is
// packed or spilled (load::RankOperators) is read back once, merged and freed before the next,
// so only the merged table and one rank's are held at a time.
stats::OperatorTable merge_operators(const std::vector<load::RankData>& ranks);

// The merge with the ranks' exact samples and per-rank totals parked by key
// (analysis/operator_samples.h): `table` holds the counts where merge_operators' holds the
// samples, and no rank totals; operator_rows() reads each key's back in turn. `file`: the spill
// file (null: they stay in memory, in `samples`).
struct ParkedOperators {
  stats::OperatorTable table;
  std::unique_ptr<OperatorSamplePark> samples;
};
ParkedOperators merge_operators_parked(const std::vector<load::RankData>& ranks,
                                       std::shared_ptr<runtime::SpillFile> file,
                                       size_t park_samples = OperatorSamplePark::kParkSamples);
// Every key's TopN row (key order), one key's samples read back at a time: the rows
// stats::select_topn makes from merge_operators(ranks). Throws std::runtime_error when the spill
// file cannot be read.
std::vector<stats::TopNRow> operator_rows(const ParkedOperators& merged,
                                          const stats::RankStages& stages);

// Pipeline stage (pp index) of every rank: from profiler_metadata.json's distributed_args
// (Megatron order, tensor fastest: pp = rank / (tp * dp)) when every rank with metadata agrees
// on tp and dp, else from the stages inferred from the communication groups
// (cluster_step_trace.h infer_stages) when `groups` is given, else empty (no stage information).
// 16 ranks, tp 4, dp 2 -> {0..7: 0, 8..15: 1}.
stats::RankStages rank_stages(const std::vector<load::RankData>& ranks,
                              const documents::CommGroups* groups = nullptr);

// The table from an already merged OperatorTable. top_n = 0 keeps every key.
// p50/p90/p99 are exact (numpy's linear interpolation) while a key has at most 2^20 kernels and
// the merged table at most 8 Mi kept in all; beyond, within +-1% (relative) of the lower quantile.
// `stages` (rank_stages()) makes cross_rank_cv and min/max rank peer-relative.
io::Table operators_topn_table(const stats::OperatorTable& merged, size_t top_n,
                               stats::OrderBy order, const stats::RankStages& stages = {});
// Same, from every key's row (operator_rows): stats::select_rows' choice.
io::Table operators_topn_table(std::vector<stats::TopNRow> rows, size_t top_n,
                               stats::OrderBy order);
// Same, merging `ranks` first; stages from rank_stages(ranks).
io::Table operators_topn_table(const std::vector<load::RankData>& ranks, size_t top_n,
                               stats::OrderBy order);

}  // namespace cs::analysis
