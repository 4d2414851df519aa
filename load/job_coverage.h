#pragma once
// Did we find every rank of the job? The job's size comes from the ranks' own metadata
// (profiler_metadata.json or META_DATA: distributed_args' world_size, else the highest global rank
// a parallel group names) and from the rank ids found (a gap below the highest is missing too).
// Fewer rank directories than that is a partial analysis (exit 3), said in one line:
//   "12 of 16 ranks of the job found: 4 missing (ranks 12-15)".

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "load/rank_data.h"

namespace cs::load {

struct JobCoverage {
  int world_size = 0;       // ranks the job has (the largest of what the sources say)
  bool size_known = false;  // world_size from the metadata, not only from the rank ids found
  std::string source;       // where world_size comes from, for the message's hint
  std::set<int> found;      // rank ids below world_size with a rank directory (analysed or skipped)
  std::set<int> missing;
};

// The job's coverage; nullopt when no rank id is known or when --rank-list picked the ranks
// (then its own message names the absent ones).
// Example: ranks 0-11 found, each with distributed_args world_size 16 -> missing {12..15}.
std::optional<JobCoverage> job_coverage(const std::vector<RankData>& ranks,
                                        const std::vector<RankEntry>& skipped, bool ranks_filtered);

// The rank's own metadata for job_coverage when the rank is not otherwise parsed (`cluster -m
// <recipe>`): profiler_metadata.json at the rank directory's root, else the META_DATA table of
// its ascend_*_profiler_N.db. A RankData holding `entry` and that metadata (has_metadata false
// when neither could be read; problems are not reported here, the recipe's reading reports them).
RankData metadata_of(const RankEntry& entry);

// The one stderr line for a job short of ranks (without "clusterscope: "), the same in every
// mode: "<dir>: 12 of 16 ranks of the job found: 4 missing (ranks 12-15) — the job's size is
// from …; the results cover the ranks found (copy the missing rank directories below -d for the
// whole job)".
std::string short_of_job_line(const std::string& input_dir, const JobCoverage& c);

// "12 of 16 ranks of the job found: 4 missing (ranks 12-15)"; with nothing missing,
// "16 of 16 ranks of the job found".
std::string coverage_line(const JobCoverage& c);

// One line for stderr about where -d and -o point, or "" when all is as usual: -d is one rank's
// own directory (only that rank is analysed), and/or the results go inside a profiler's rank
// directory (-o inside it, or by default -o = -d). `out_dir` is OUT/cluster_analysis_output.
// Example: "/j/rank0_ascend_pt: is one rank's directory (rank 0), not a job's: only this rank is
// analysed; the results go inside it, to /j/rank0_ascend_pt/cluster_analysis_output/ (as
// msprof-analyze does) — give -d the directory that holds every rank directory, -o to write
// elsewhere".
std::string input_output_note(const std::vector<RankData>& ranks, bool input_is_rank_dir,
                              const std::string& input_dir, const std::string& out_dir);

}  // namespace cs::load
