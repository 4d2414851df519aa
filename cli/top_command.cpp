// clusterscope top PROFILE: MegEngine profile_analyze-style table of one profile's slowest ops.
#include "cli/top_command.h"

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "io/csv/csv_writer.h"
#include "io/diagnostics_print.h"
#include "io/input_kind.h"
#include "top/top_profile.h"
#include "top/top_table.h"

namespace cs::cli {

namespace po = boost::program_options;

namespace {

int usage_error(const std::string& what) {
  std::fprintf(stderr, "clusterscope: top: %s \u2014 run 'clusterscope top --help'\n",
               what.c_str());
  return kExitUsage;
}

// A wrong choice: the message already lists the valid ones.
int unknown_choice(const std::string& what) {
  std::fprintf(stderr, "clusterscope: top: %s\n", what.c_str());
  return kExitUsage;
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
  std::string by = "none", agg = "sum", order = "time", csv, type;
  double min_time = 0;
  // clang-format off
  opts.add_options()
    ("help,h", "show this help")
    ("top,t", po::value(&top_n), "rows to show (default 20)")
    ("aggregate-by", po::value(&by), "group calls by: type | name (default: every call)")
    ("aggregate", po::value(&agg), "with --aggregate-by: sum | mean | max (default sum)")
    ("order-by", po::value(&order), "time | memory | flops (default time)")
    ("min-time", po::value(&min_time), "leave out calls shorter than SECONDS")
    ("type", po::value(&type), "only calls of this operator type (e.g. MatMulV2, aten::mm)")
    ("csv", po::value(&csv), "also write the table to this CSV file")
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
    return kExitOk;
  }
  if (!vm.count("profile")) return usage_error("missing PROFILE");
  if (vm.count("stray"))
    return usage_error(unexpected_argument(vm["stray"].as<std::vector<std::string>>()));
  const bool quiet = vm.count("quiet") > 0;
  report::TopOptions o;
  o.top_n = top_n;
  o.min_time_s = min_time;
  o.type = type;
  const auto aggregate_by = enum_from_name(report::kTopByNames, by);
  if (!aggregate_by)
    return unknown_choice(unknown_value("--aggregate-by", by, enum_names(report::kTopByNames)));
  o.aggregate_by = *aggregate_by;
  const auto aggregate = enum_from_name(report::kTopAggregateNames, agg);
  if (!aggregate)
    return unknown_choice(
        unknown_value("--aggregate", agg, enum_names(report::kTopAggregateNames)));
  o.aggregate = *aggregate;
  const auto order_by = enum_from_name(report::kTopOrderNames, order);
  if (!order_by)
    return unknown_choice(unknown_value("--order-by", order, enum_names(report::kTopOrderNames)));
  o.order_by = *order_by;
  if (min_time < 0) return usage_error("--min-time must not be negative");

  io::Diagnostics diag;
  std::vector<report::OpCall> calls;
  std::string used;
  const std::string profile = vm["profile"].as<std::string>();
  if (!report::load_op_calls(profile, calls, used, diag)) {
    io::print_diagnostics(diag, quiet);
    return kExitFatal;
  }
  // MegEngine's static-graph profile: shares of the total device time, as profile_analyze.
  o.share_of_all = io::classify_input(used).kind == io::InputKind::kMegEngineProfile;
  report::TopTotals totals;
  const io::Table t = report::top_table(calls, o, &totals);
  if (!quiet) std::printf("%s\n", used.c_str());
  std::fputs(report::format_top_text(t, totals.calls, totals.time_us).c_str(), stdout);
  if (!csv.empty() && !io::write_table_csv(t, csv, diag)) {
    io::print_diagnostics(diag, quiet);
    return kExitFatal;
  }
  io::print_diagnostics(diag, quiet);
  return diag.has_errors() ? kExitPartial : kExitOk;
}

}  // namespace cs::cli
