#pragma once
// The table of `clusterscope top`: the N slowest operator calls of one profile, or calls grouped
// by type or name with sum / mean / max, in the manner of MegEngine's profile_analyze.
//
//   TopOptions o; o.top_n = 10; o.aggregate_by = TopOptions::By::kType;
//   io::Table t = top_table(calls, o);     // columns below
//   std::fputs(format_top_text(t).c_str(), stdout);
//
// Columns: rank (1..N), name, type, calls, device_self_us, share_pct, cumulative_pct, flops,
// tflops_per_s, bytes, bandwidth_gbps, input_shapes, input_dtypes, output_shapes. With
// aggregation, name is the group key, time / flops / bytes are the chosen aggregate over the
// group's calls and the shapes those of its longest call.

#include <cstddef>
#include <string>
#include <vector>

#include "io/table.h"
#include "runtime/enum_names.h"
#include "top/top_profile.h"

namespace cs::report {

struct TopOptions {
  enum class By { kNone, kType, kName };
  enum class Aggregate { kSum, kMean, kMax };
  enum class Order { kTime, kMemory, kFlops };
  size_t top_n = 20;
  By aggregate_by = By::kNone;
  Aggregate aggregate = Aggregate::kSum;
  Order order_by = Order::kTime;
  double min_time_s = 0;  // calls shorter than this are left out
  std::string type;       // only calls of this type ("" = all)
  // Shares of the device time of every call, filtered out or not (MegEngine's profile_analyze:
  // its ratio and cumulative columns are of the total device time); false: of the calls that
  // passed the filters.
  bool share_of_all = false;
};
// The names `top` accepts for each choice (--aggregate-by, --aggregate, --order-by).
inline constexpr std::array<EnumName<TopOptions::By>, 3> kTopByNames{
    {{"none", TopOptions::By::kNone},
     {"type", TopOptions::By::kType},
     {"name", TopOptions::By::kName}}};
inline constexpr std::array<EnumName<TopOptions::Aggregate>, 3> kTopAggregateNames{
    {{"sum", TopOptions::Aggregate::kSum},
     {"mean", TopOptions::Aggregate::kMean},
     {"max", TopOptions::Aggregate::kMax}}};
inline constexpr std::array<EnumName<TopOptions::Order>, 3> kTopOrderNames{
    {{"time", TopOptions::Order::kTime},
     {"memory", TopOptions::Order::kMemory},
     {"flops", TopOptions::Order::kFlops}}};

// Calls and device time that passed the filters (what the percentages are of).
struct TopTotals {
  size_t calls = 0;
  double time_us = 0;
};

// Filters, groups, orders and cuts `calls`. cumulative_pct is the running share of the listed
// rows' time in the time of all calls that passed the filters.
io::Table top_table(const std::vector<OpCall>& calls, const TopOptions& opt,
                    TopTotals* totals = nullptr);

// The table as an aligned terminal table (long names shortened with "…"), with a closing line
// "N of M calls, total T".
std::string format_top_text(const io::Table& t, size_t total_calls, double total_us);

}  // namespace cs::report
