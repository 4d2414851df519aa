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
#include <limits>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "io/table.h"
#include "runtime/enum_names.h"
#include "top/top_profile.h"

namespace cs::top {

struct TopOptions {
  // kAll: every call that passed the filters in one row named "all" (profile_analyze's
  // --aggregate without --aggregate-by).
  enum class By { kNone, kType, kName, kAll };
  enum class Aggregate { kSum, kMean, kMax, kMin };
  // profile_analyze's --order-by columns: flops and bandwidth are rates (FLOP/s, bytes/s),
  // computation and memory amounts.
  enum class Order { kTime, kMemory, kFlops, kComputation, kBandwidth };
  size_t top_n = 20;  // 0: every row (profile_analyze's -t 0)
  By aggregate_by = By::kNone;
  Aggregate aggregate = Aggregate::kSum;
  Order order_by = Order::kTime;
  bool ascending = false;  // "+column": smallest first (rows without the value stay last)
  double min_time_s = 0;   // calls shorter than this are left out
  double max_time_s = std::numeric_limits<double>::infinity();  // and calls longer than this
  std::vector<std::string> types;  // only calls of one of these types, any case (empty = all)
  // Only calls whose name matches from its first character (Python's re.match).
  std::optional<std::regex> name_regex;
  std::string input_dtype;  // only calls with an input of exactly this dtype ("" = all)
  // Shares of the device time of every call, filtered out or not (MegEngine's profile_analyze:
  // its ratio and cumulative columns are of the total device time); false: of the calls that
  // passed the filters.
  bool share_of_all = false;
  // When finite: the base of the shares instead (MegEngine: the total device time by end − start
  // even when the table's times are kern − start, as profile_analyze).
  double share_total_us = std::numeric_limits<double>::quiet_NaN();
};
// The names `top` accepts for each choice (--aggregate-by, --aggregate, --order-by).
inline constexpr std::array<runtime::EnumName<TopOptions::By>, 3> kTopByNames{
    {{"none", TopOptions::By::kNone},
     {"type", TopOptions::By::kType},
     {"name", TopOptions::By::kName}}};
inline constexpr std::array<runtime::EnumName<TopOptions::Aggregate>, 4> kTopAggregateNames{
    {{"sum", TopOptions::Aggregate::kSum},
     {"mean", TopOptions::Aggregate::kMean},
     {"max", TopOptions::Aggregate::kMax},
     {"min", TopOptions::Aggregate::kMin}}};
inline constexpr std::array<runtime::EnumName<TopOptions::Order>, 5> kTopOrderNames{
    {{"time", TopOptions::Order::kTime},
     {"memory", TopOptions::Order::kMemory},
     {"flops", TopOptions::Order::kFlops},
     {"computation", TopOptions::Order::kComputation},
     {"bandwidth", TopOptions::Order::kBandwidth}}};

// Calls and device time that passed the filters (what the percentages are of).
struct TopTotals {
  size_t calls = 0;
  double time_us = 0;
};

// True when `c` passes the option's type, name and input-dtype filters (not the time window).
bool passes_filters(const OpCall& c, const TopOptions& opt);

// Filters, groups, orders and cuts `calls`. cumulative_pct is the running share of the listed
// rows' time in the time of all calls that passed the filters.
io::Table top_table(const std::vector<OpCall>& calls, const TopOptions& opt,
                    TopTotals* totals = nullptr);

// The table as an aligned terminal table (long names shortened with "…"), with a closing line
// "N rows from M calls, T <side> time in total"; `side` names the time column ("device", or
// "host" for a MegEngine profile's host table).
std::string format_top_text(const io::Table& t, size_t total_calls, double total_us,
                            const std::string& side = "device");

}  // namespace cs::top
