#pragma once
// Run vs run: two whole clusters (each loaded with cluster::load_cluster) compared rank by rank
// and step by step (rank_diff.csv) and summarised as ranked regressions (regressions.csv), the
// tables of interface.md "Files written by compare".
//
// Regression candidates (what, key), all in µs per step:
//   rank           "rank R"                      Computing of rank R against the other ranks
//   operator       operator key (--group-by type)  per-rank totals of the key
//   communication  "<op type> <ranks>"            per-rank transit time of the group's ops
//   link           "SRC-DST TRANSPORT"            transfer time of the link (Total Op Info)
// Wait, Free and Stage are effects of someone else being slow; they are in rank_diff.csv, not
// candidates. Significance: compare/run_noise.h. Rows: significant first, then by |impact|.
//
//   auto t = compare_runs(base.ranks, comparison.ranks, {}, diag);
//   write_run_tables(t, "out/comparison_output", diag);

#include <string>
#include <vector>

#include "compare/run_noise.h"
#include "io/diagnostics.h"
#include "io/table.h"
#include "load/rank_data.h"

namespace cs::compare {

struct Regression {
  std::string what;                                    // rank, operator, communication, link
  std::string key;                                     // see the file comment
  std::string where;                                   // "rank 5", "link 3-4", "all 16 ranks"
  double base_us = 0, comparison_us = 0, diff_us = 0;  // the extreme member (or the median)
  double impact_us = 0;                                // signed, what the rows are ordered by
  double noise_us = 0;                                 // robust sigma of the member diffs
  bool significant = false;
};

struct RunTables {
  io::Table rank_diff;    // rank,step,metric,base_us,comparison_us,diff_us,diff_ratio
  io::Table regressions;  // what,key,base_us,comparison_us,diff_us,diff_ratio,significant,...
  std::vector<Regression> ranked;  // the regressions rows as structs
  int ranks_compared = 0;
};

// Pure: compares two clusters (ranks sorted by rank, as load_cluster returns them). Ranks present
// on one side only are compared against zeros, with a warning in `diag`.
RunTables compare_runs(const std::vector<load::RankData>& base,
                       const std::vector<load::RankData>& comparison, const NoiseOptions& opt,
                       io::Diagnostics& diag);

// The candidates, significant first then by |impact| (used by compare_runs).
std::vector<Regression> find_regressions(const std::vector<load::RankData>& base,
                                         const std::vector<load::RankData>& comparison,
                                         const NoiseOptions& opt, io::Diagnostics& diag);

// Lines for the terminal: the top `n` significant regressions, or "no significant regression".
std::string format_top_regressions(const std::vector<Regression>& r, size_t n);

}  // namespace cs::compare
