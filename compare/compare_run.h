#pragma once
// `clusterscope compare BASE COMPARISON`, run from parsed options (cli/ only parses them): detects
// each side, loads two cluster directories like `cluster` does (every rank, or the ranks --rank
// picks) and compares them rank by rank and step by step, compares the timelines (one rank's of
// each cluster: the rank of the largest regression), writes OUT/comparison_output/ and prints the
// overall table and the top regressions. Runs of different shape are refused; runs that profiled
// different steps are compared step by step in order, with a loud warning on stderr and in the
// report.
//
//   CompareRunOptions o;  o.base_path = "run1";  o.comparison_path = "run2";
//   return run_compare(o, argc, argv);   // argc/argv: for the MPI session

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace cs::compare {

struct CompareRunOptions {
  std::string base_path, comparison_path;
  std::string out = ".";         // files go to out/comparison_output/
  std::string name_map_path;     // --op-name-map
  bool use_input_shape = false;  // --use-input-shape
  int64_t max_kernel_num = -1;   // --max-kernel-num
  std::optional<int64_t> base_step, comparison_step;
  std::optional<std::set<int>> ranks;  // --rank: the ranks compared (cluster directories only)
  bool quiet = false;
  // Under mpirun (two cluster directories): seconds to wait for a process that stopped answering
  // before the job is ended, naming it (0 = no limit).
  double timeout = 600;
};

// Exit status as interface.md gives it: 0 ok, 1 nothing usable, 2 usage (runs of different
// shape, --rank naming absent ranks), 3 done with warnings.
int run_compare(const CompareRunOptions& o, int argc, char** argv);

}  // namespace cs::compare
