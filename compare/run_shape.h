#pragma once
// Whether two runs can be compared rank by rank and step by step, and lining their steps up.
// A comparison against a rank or a step that one run does not have is a comparison against
// zeros: refused for ranks (shape_mismatch), done in order for steps (align_steps) with a warning.
//
//   if (auto why = shape_mismatch(base, comp); !why.empty()) { print why; exit 2; }
//   auto warnings = align_steps(base, comp);   // e.g. base steps 1-4, comparison 5-8

#include <string>
#include <vector>

#include "load/rank_data.h"

namespace cs::compare {

// "16 ranks (0-15)", "3 ranks (0,4,9)".
std::string describe_ranks(const std::vector<int>& sorted_ranks);

// "" when both runs hold the same ranks, else one sentence naming both rank sets.
std::string shape_mismatch(const std::vector<load::RankData>& base,
                           const std::vector<load::RankData>& comparison);

// The steps a run profiled (step trace rows and communication steps of every rank), in numeric
// order ("2" before "10"), as step_trace_time.csv names them ("1", not "step1").
std::vector<std::string> run_steps(const std::vector<load::RankData>& ranks);

// When the runs profiled different steps, renames the comparison's steps to the base's in order
// (its i-th step is compared with the base's i-th) and drops the steps beyond the shorter run, so
// no step is compared against zeros. Returns the warnings to show (empty when the steps agree).
std::vector<std::string> align_steps(std::vector<load::RankData>& base,
                                     std::vector<load::RankData>& comparison);

}  // namespace cs::compare
