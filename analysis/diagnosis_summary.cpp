#include "analysis/diagnosis_summary.h"

#include <cstdio>

#include "analysis/format_value.h"
#include "io/text_escape.h"

namespace cs::analysis {

namespace {}  // namespace

// The shared body; with_transfers = false leaves the slow-transfer lines out entirely.
static std::string summary_body(const std::vector<SlowRankFinding>& slow_ranks,
                                const std::vector<SlowLinkFinding>& slow_links,
                                const std::vector<stats::TopNRow>& topn_by_cv,
                                const std::vector<SlowTransferFinding>& slow_transfers,
                                size_t max_items, bool with_transfers);

std::string diagnosis_summary(const std::vector<SlowRankFinding>& slow_ranks,
                              const std::vector<SlowLinkFinding>& slow_links,
                              const std::vector<stats::TopNRow>& topn_by_cv, size_t max_items) {
  return summary_body(slow_ranks, slow_links, topn_by_cv, {}, max_items, false);
}

std::string diagnosis_summary(const std::vector<SlowRankFinding>& slow_ranks,
                              const std::vector<SlowLinkFinding>& slow_links,
                              const std::vector<stats::TopNRow>& topn_by_cv,
                              const std::vector<SlowTransferFinding>& slow_transfers,
                              size_t max_items) {
  return summary_body(slow_ranks, slow_links, topn_by_cv, slow_transfers, max_items, true);
}

static std::string summary_body(const std::vector<SlowRankFinding>& slow_ranks,
                                const std::vector<SlowLinkFinding>& slow_links,
                                const std::vector<stats::TopNRow>& topn_by_cv,
                                const std::vector<SlowTransferFinding>& slow_transfers,
                                size_t max_items, bool with_transfers) {
  std::string s;
  if (slow_ranks.empty()) {
    s += "No slow rank found.\n";
  } else {
    for (size_t i = 0; i < slow_ranks.size() && i < max_items; ++i) {
      const auto& f = slow_ranks[i];
      s += "Rank " + std::to_string(f.rank) + " is slow";
      if (f.cause != "unknown") s += " (" + io::escape_text(f.cause) + ")";
      s += ": " + io::escape_text(f.evidence) + ".\n";
    }
    if (slow_ranks.size() > max_items)
      s +=
          std::to_string(slow_ranks.size() - max_items) + " more slow rank(s) in slow_ranks.csv.\n";
  }
  if (slow_links.empty()) {
    s += "No slow link found.\n";
  } else {
    for (size_t i = 0; i < slow_links.size() && i < max_items; ++i)
      s += "Slow link: " + io::escape_text(slow_links[i].evidence) + ".\n";
    if (slow_links.size() > max_items)
      s +=
          std::to_string(slow_links.size() - max_items) + " more slow link(s) in slow_links.csv.\n";
  }
  if (with_transfers) {
    if (slow_transfers.empty()) s += "No slow transfer found.\n";
    for (size_t i = 0; i < slow_transfers.size() && i < max_items; ++i)
      s += "Slow transfer: " + io::escape_text(slow_transfers[i].step) + " " +
           io::escape_text(slow_transfers[i].op) + ": " +
           io::escape_text(slow_transfers[i].evidence) + ".\n";
    if (slow_transfers.size() > max_items)
      s += std::to_string(slow_transfers.size() - max_items) +
           " more slow transfer(s) in slow_transfers.csv.\n";
  }
  if (!topn_by_cv.empty() && topn_by_cv.front().cross_rank_cv >= kNotableOperatorCv) {
    const auto& r = topn_by_cv.front();
    s += "Operator " + io::escape_text(r.key) + " varies most across ranks: CV " +
         fmt("%.2f", r.cross_rank_cv) + " of the per-rank totals over " + std::to_string(r.ranks) +
         " ranks, highest on rank " + std::to_string(r.max_rank) + ", lowest on rank " +
         std::to_string(r.min_rank) + ".\n";
  }
  return s;
}

}  // namespace cs::analysis
