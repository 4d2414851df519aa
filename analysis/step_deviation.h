#pragma once
// How far each rank's step-trace times stand from its pipeline-stage peers, in units of the
// peers' own noise.
//
// Per (step, stage) the ranks' Computing and Free times (step_trace_time.csv) give a median and a
// robust sigma (1.4826 MAD): a rank's z = (x - median) / sigma. Stages come from the caller
// (rank_stages()): ranks of different stages do different work and are never compared. A rank's
// z over the steps is the weakest one (min), so a finding must hold in every captured step.
// Rows repeated for one (rank, step) count once (the first) and are reported: the work is
// linear in the rows, whatever the repetition.
//
//   auto dev = step_deviations(ranks, rank_stages(ranks));
//   dev.ranks.at(21).computing.z_min -> 31.0, dev.ranks.at(21).computing.excess_ms -> 7.3

#include <map>
#include <string>
#include <vector>

#include "analysis/by_rank.h"
#include "load/rank_data.h"
#include "stats/topn.h"

namespace cs::analysis {

// One step-trace column of one rank against its stage peers.
struct Deviation {
  double excess_ms = 0;  // mean over steps of (x - stage median), ms
  double rel = 0;        // mean over steps of x / stage median - 1
  double z_min = 0;      // weakest z over the steps (NaN-free; 0 when never judged)
  double sigma_ms = 0;   // mean over steps of the stage's robust sigma, ms
  int steps = 0;         // steps judged (the stage had at least 3 ranks)
};

struct RankStepDeviation {
  Deviation computing, free;
  int peers = 0;       // smallest number of stage peers over the steps
  double step_ms = 0;  // mean Stage time (or the sum of its parts), ms
};

struct StageLoad {
  int stage = 0;
  int ranks = 0;
  double computing_ms = 0;  // median Computing per step (mean over steps), ms
  double sigma_ms = 0;      // robust sigma within the stage, ms
};

struct StepDeviations {
  ByRank<RankStepDeviation> ranks;  // the ranks with a step trace judged, in rank order
  std::vector<StageLoad> stages;    // by stage id; one entry when there is one stage
  size_t duplicate_rows = 0;        // rows repeating a (rank, step) seen before, ignored
  std::vector<int> duplicate_ranks;
};

StepDeviations step_deviations(const std::vector<load::RankData>& ranks,
                               const stats::RankStages& stages);

}  // namespace cs::analysis
