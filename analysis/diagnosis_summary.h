#pragma once
// A short plain-words summary of the diagnosis for people: the likeliest slow ranks and links,
// and the operator whose time varies most across ranks. One finding per line, at most
// `max_items` of each kind.
//
//   diagnosis_summary(slow_ranks, slow_links, stats::select_topn(merged, 1, stats::OrderBy::kCv))
//   -> "Rank 6 is slow (compute): late in 45 of 48 collective ops: waits 0.01 ms ...\n
//       No slow link found.\n
//       Operator SoftmaxV2 varies most across ranks: CV 0.43 of the per-rank totals ..."

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/slow_link.h"
#include "analysis/slow_rank.h"
#include "analysis/slow_transfer.h"
#include "stats/topn.h"

namespace cs::analysis {

// Operators are mentioned only when their cross-rank CV is at least this.
inline constexpr double kNotableOperatorCv = 0.1;

// topn_by_cv: rows ordered by cross-rank CV (stats::select_topn(..., OrderBy::kCv)); only the
// first is used, and only when notable. Empty inputs give "No slow rank found.\nNo slow link
// found.\n".
std::string diagnosis_summary(const std::vector<SlowRankFinding>& slow_ranks,
                              const std::vector<SlowLinkFinding>& slow_links,
                              const std::vector<stats::TopNRow>& topn_by_cv, size_t max_items = 3);

// Same, plus one line per slow transfer (find_slow_transfers(), largest ratio first; at most
// max_items) after the slow links, or "No slow transfer found.\n":
//   "Slow transfer: step2 hcom_allGather__1_3_1@tp1: allgather of 8 MB over 4 ranks ... (3.00x)."
std::string diagnosis_summary(const std::vector<SlowRankFinding>& slow_ranks,
                              const std::vector<SlowLinkFinding>& slow_links,
                              const std::vector<stats::TopNRow>& topn_by_cv,
                              const std::vector<SlowTransferFinding>& slow_transfers,
                              size_t max_items = 3);

}  // namespace cs::analysis
