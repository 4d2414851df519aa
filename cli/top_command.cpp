// clusterscope top PROFILE: MegEngine profile_analyze-style table of one profile's slowest ops.
#include "cli/top_command.h"

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <regex>
#include <string>

#include "cli/commands.h"
#include "io/csv/csv_writer.h"
#include "io/diagnostics_print.h"
#include "io/input_kind.h"
#include "readers/megengine_profile.h"
#include "top/top_megengine.h"
#include "top/top_profile.h"
#include "top/top_table.h"

namespace cs::cli {

namespace po = boost::program_options;

namespace {

int usage_error(const std::string& what) {
  std::fprintf(stderr, "clusterscope: top: %s \u2014 run 'clusterscope top --help'\n",
               what.c_str());
  return runtime::kExitUsage;
}

// A wrong choice: the message already lists the valid ones.
int unknown_top_choice(const std::string& what) {
  std::fprintf(stderr, "clusterscope: top: %s\n", what.c_str());
  return runtime::kExitUsage;
}

// A number of seconds as the user would write it ("0.001").
std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// The end keys --top-end-key accepts (profile_analyze's).
constexpr std::array<runtime::EnumName<bool>, 2> kEndKeyNames{{{"end", false}, {"kern", true}}};

// The MegEngine-only option the user gave, "" when none.
std::string megengine_only_option(const po::variables_map& vm) {
  for (const char* o : {"top-end-key", "show-host", "copy-time"})
    if (vm.count(o) && !vm[o].defaulted()) return std::string("--") + o;
  return {};
}

// `top` on a MegEngine static-graph profile: profile_analyze's summary block, the device table
// and with `show_host` the host table; shares are of the total device (host) time by end − start.
int run_top_megengine(const std::string& path, top::TopOptions o, bool kern, bool show_host,
                      bool copy_time, const std::string& csv, bool quiet) {
  io::Diagnostics diag;
  readers::MegEngineProfile p;
  std::vector<top::OpCall> calls;
  if (!readers::read_megengine_profile(path, p, diag) ||
      !top::megengine_calls(path, p, {.host = false, .kern = kern}, calls, diag)) {
    io::print_diagnostics(diag, quiet);
    return runtime::kExitFatal;
  }
  const top::MegEngineSummary s = top::megengine_summary(p, o);
  if (!quiet) std::printf("%s\n", path.c_str());
  std::fputs(top::format_megengine_summary(s, copy_time).c_str(), stdout);
  o.share_total_us = s.device_us;
  top::TopTotals totals;
  const io::Table t = top::top_table(calls, o, &totals);
  std::fputs(("\n" + top::format_top_text(t, totals.calls, totals.time_us)).c_str(), stdout);
  if (show_host) {
    std::vector<top::OpCall> host;
    top::calls_from_megengine(p, host, {.host = true, .kern = kern});
    o.share_total_us = s.host_us;
    top::TopTotals host_totals;
    const io::Table h = top::top_table(host, o, &host_totals);
    std::fputs(
        ("\n" + top::format_top_text(h, host_totals.calls, host_totals.time_us, "host")).c_str(),
        stdout);
  }
  if (!csv.empty() && !io::write_table_csv(t, csv, diag)) {
    io::print_diagnostics(diag, quiet);
    return runtime::kExitFatal;
  }
  io::print_diagnostics(diag, quiet);
  return diag.has_errors() ? runtime::kExitPartial : runtime::kExitOk;
}

}  // namespace

int run_top(int argc, char** argv) {
  po::options_description opts(
      "clusterscope top PROFILE [options]\n"
      "PROFILE: a rank directory (ASCEND_PROFILER_OUTPUT/kernel_details.csv), a "
      "kernel_details.csv,\n"
      "a PyTorch profiler (Kineto) trace .json[.gz], an NPU trace_view.json,\n"
      "a MegEngine static-graph profile JSON or a MegEngine *.chrome_timeline.json\n\noptions");
  size_t top_n = 20;
  std::string by = "none", agg = "sum", order = "time", csv, opr_name, dtype, end_key = "end";
  std::vector<std::string> types;
  double min_time = 0, max_time = std::numeric_limits<double>::infinity();
  // clang-format off
  opts.add_options()
    ("help,h", "show this help")
    ("top,t", po::value(&top_n), "rows to show (default 20; 0 = all)")
    ("aggregate-by", po::value(&by), "group calls by: type | name (default: every call)")
    ("aggregate", po::value(&agg),
     "sum | mean | max | min (default sum); without --aggregate-by: one row of all calls")
    ("order-by", po::value(&order), "time | memory | flops (FLOP/s) | computation (FLOP) | "
     "bandwidth, largest first; +COLUMN: smallest first (default time)")
    ("min-time", po::value(&min_time), "leave out calls shorter than SECONDS")
    ("max-time", po::value(&max_time), "leave out calls longer than SECONDS")
    ("type", po::value(&types), "only calls of this operator type (e.g. MatMulV2, aten::mm); "
     "repeat for several")
    ("opr-name", po::value(&opr_name), "only calls whose name matches REGEX from its start")
    ("input-dtype", po::value(&dtype), "only calls with an input of this dtype (e.g. Float32)")
    ("top-end-key", po::value(&end_key), "MegEngine profile: end (device time, default) | kern "
     "(time waiting for inputs)")
    ("show-host", "MegEngine profile: also the table of host times")
    ("copy-time", "MegEngine profile: Copy operators' time and wait time in the summary")
    ("csv", po::value(&csv), "also write the (device) table to this CSV file")
    ("quiet,q", "print only errors");
  // clang-format on
  po::options_description hidden;
  hidden.add_options()("profile", po::value<std::string>())("stray",
                                                            po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("profile", 1).add("stray", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    // Name top's own options, so a mistaken option (one of cluster's, a missing FILE) is plain.
    std::string known;
    for (const auto& o : opts.options())
      known += (known.empty() ? "" : ", ") + std::string("--") + o->long_name();
    if (const auto* u = dynamic_cast<const po::unknown_option*>(&e))
      return usage_error("top has no option " + u->get_option_name() + " (its options: " + known +
                         ")");
    return usage_error(std::string(e.what()) + " (top's options: " + known + ")");
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return runtime::kExitOk;
  }
  if (!vm.count("profile")) return usage_error("missing PROFILE");
  if (vm.count("stray"))
    return usage_error(unexpected_argument(vm["stray"].as<std::vector<std::string>>()));
  const bool quiet = vm.count("quiet") > 0;
  top::TopOptions o;
  o.top_n = top_n;
  o.min_time_s = min_time;
  o.max_time_s = max_time;
  o.types = types;
  o.input_dtype = dtype;
  const auto aggregate_by = runtime::enum_from_name(top::kTopByNames, by);
  if (!aggregate_by || *aggregate_by == top::TopOptions::By::kAll)
    return unknown_top_choice(
        runtime::unknown_value("--aggregate-by", by, runtime::enum_names(top::kTopByNames)));
  o.aggregate_by = *aggregate_by;
  // profile_analyze: --aggregate alone folds every call into one row.
  if (o.aggregate_by == top::TopOptions::By::kNone && vm.count("aggregate"))
    o.aggregate_by = top::TopOptions::By::kAll;
  const auto aggregate = runtime::enum_from_name(top::kTopAggregateNames, agg);
  if (!aggregate)
    return unknown_top_choice(
        runtime::unknown_value("--aggregate", agg, runtime::enum_names(top::kTopAggregateNames)));
  o.aggregate = *aggregate;
  // "+column": ascending, as profile_analyze.
  o.ascending = order.starts_with('+');
  const auto order_by = runtime::enum_from_name(
      top::kTopOrderNames, std::string_view(order).substr(o.ascending ? 1 : 0));
  if (!order_by)
    return unknown_top_choice(
        runtime::unknown_value("--order-by", order, runtime::enum_names(top::kTopOrderNames)));
  o.order_by = *order_by;
  if (min_time < 0) return usage_error("--min-time must not be negative");
  if (!(max_time >= min_time))
    return usage_error("--max-time " + seconds(max_time) + " is below --min-time " +
                       seconds(min_time) + ": no call could pass");
  const auto kern = runtime::enum_from_name(kEndKeyNames, end_key);
  if (!kern)
    return unknown_top_choice(
        runtime::unknown_value("--top-end-key", end_key, runtime::enum_names(kEndKeyNames)));
  if (!opr_name.empty()) {
    try {
      o.name_regex.emplace(opr_name, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return usage_error("--opr-name '" + opr_name + "' is not a valid regular expression (" +
                         e.what() + ")");
    }
  }

  io::Diagnostics diag;
  std::vector<top::OpCall> calls;
  std::string used;
  const std::string profile = vm["profile"].as<std::string>();
  std::error_code ec;
  const bool megengine = std::filesystem::is_regular_file(profile, ec) &&
                         io::classify_input(profile).kind == io::InputKind::kMegEngineProfile;
  if (const std::string only = megengine_only_option(vm); !megengine && !only.empty())
    return usage_error(only + " needs a MegEngine static-graph profile; " + profile +
                       " is not one (it has no kern or host times)");
  if (megengine)
    return run_top_megengine(profile, o, *kern, vm.count("show-host") > 0,
                             vm.count("copy-time") > 0, csv, quiet);
  if (!top::load_op_calls(profile, calls, used, diag)) {
    io::print_diagnostics(diag, quiet);
    return runtime::kExitFatal;
  }
  top::TopTotals totals;
  const io::Table t = top::top_table(calls, o, &totals);
  if (!quiet) std::printf("%s\n", used.c_str());
  std::fputs(top::format_top_text(t, totals.calls, totals.time_us).c_str(), stdout);
  if (!csv.empty() && !io::write_table_csv(t, csv, diag)) {
    io::print_diagnostics(diag, quiet);
    return runtime::kExitFatal;
  }
  io::print_diagnostics(diag, quiet);
  return diag.has_errors() ? runtime::kExitPartial : runtime::kExitOk;
}

}  // namespace cs::cli
