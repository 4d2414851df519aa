#pragma once
// The nn.Module tree of msprof-analyze's module_statistic, for one rank: module ranges (mstx,
// domain "Module") nest framework ops by host time, each op carrying the kernels it launched;
// every (module, op) pair becomes a row, and the rows are aggregated over the module's
// repetitions (same parent path, same name, same op sequence). Backward modules are made from
// the forward/backward op links (CONNECTION_IDS ids sharing one connectionId): the backward ops
// of a forward module's ops, grouped in backward time order, get a module "[Backward]<name>"
// and one for its parent path.

#include <cstdint>
#include <string>
#include <vector>

namespace cs::recipes::module_statistic {

struct ModuleRange {
  int64_t start = 0, end = 0;
  std::string name;
  bool backward = false;
};

// One kernel (or communication op) and the framework op that launched it.
struct KernelRow {
  std::string kernel;
  int64_t kernel_ts = 0, kernel_end = 0;
  std::string op;
  int64_t op_ts = 0, op_end = 0;
};

// A forward framework op and the backward op autograd ran for it.
struct FwdBwdLink {
  std::string fwd_name;
  int64_t fwd_ts = 0, fwd_end = 0;
  int64_t bwd_ts = 0, bwd_end = 0;
};

// One row of the ModuleStatistic table (without the rank).
struct ModuleStat {
  std::string parent, module, op, kernels;
  double total_ns = 0, avg_ns = 0;
  int64_t count = 0;
  // With `occurrences` asked for: each op call the row aggregates (module start, op start
  // order), as the indices into `kernels` of its kernel rows (operator_mfu averages their MFU).
  std::vector<std::vector<size_t>> occurrences;
};

// The backward module ranges `links` give for the forward `modules` (empty without links).
std::vector<ModuleRange> backward_modules(const std::vector<ModuleRange>& modules,
                                          const std::vector<FwdBwdLink>& links);

// The statistic rows of one rank, in msprof-analyze's order (first op start, then the op's
// position in its module). `modules` in start order, forward then backward; `kernels` in the
// order the queries return them. `occurrences`: fill ModuleStat::occurrences.
std::vector<ModuleStat> module_statistic(const std::vector<ModuleRange>& modules,
                                         const std::vector<KernelRow>& kernels,
                                         bool occurrences = false);

}  // namespace cs::recipes::module_statistic
