// clusterscope compare BASE COMPARISON: GPU vs NPU, or version vs version (docs/interface.md).
// Option parsing only; the run is compare/compare_run.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "compare/compare_run.h"
#include "load/discovery.h"
#include "load/rank_list.h"

namespace cs::cli {

namespace po = boost::program_options;

int run_compare(int argc, char** argv) {
  po::options_description opts("clusterscope compare BASE COMPARISON [options]");
  compare::CompareRunOptions o;
  std::string rank_text;
  // clang-format off
  opts.add_options()
    ("help,h", "show this help")
    ("output,o", po::value(&o.out), "output directory (default: .); files go to OUT/comparison_output/")
    ("op-name-map", po::value(&o.name_map_path), "JSON object {\"name\": \"renamed\"} of operators renamed between the sides")
    ("use-input-shape", "compare operators and kernels by name and input shapes")
    ("max-kernel-num", po::value(&o.max_kernel_num), "drill into the children of ops launching more kernels than this")
    ("base-step", po::value<int64_t>(), "compare only ProfilerStep#N of BASE")
    ("comparison-step", po::value<int64_t>(), "compare only ProfilerStep#N of COMPARISON")
    ("rank", po::value(&rank_text), "two cluster directories: compare only these ranks (e.g. 0-7,12; default: every rank)")
    ("timeout", po::value(&o.timeout)->default_value(600), "under mpirun: seconds to wait for a process that stopped answering before the job is ended, naming it (0 = no limit)")
    ("quiet,q", "print only errors");
  // clang-format on
  po::options_description hidden;
  hidden.add_options()("base", po::value<std::string>())("comparison", po::value<std::string>())(
      "stray", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("base", 1).add("comparison", 1).add("stray", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::fprintf(stderr, "clusterscope: compare: %s \u2014 run 'clusterscope compare --help'\n",
                 e.what());
    return runtime::kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts
              << "\nEach side: a Kineto trace (*.json[.gz]), an NPU trace_view.json, a "
                 "rank directory (*_ascend_pt, *_ascend_ms) or a cluster directory.\n";
    return runtime::kExitOk;
  }
  if (!vm.count("base") || !vm.count("comparison")) {
    std::fputs(
        "clusterscope: compare: needs BASE and COMPARISON \u2014 run 'clusterscope compare "
        "--help'\n",
        stderr);
    return runtime::kExitUsage;
  }
  if (vm.count("stray")) {
    std::fprintf(stderr, "clusterscope: compare: %s \u2014 run 'clusterscope compare --help'\n",
                 unexpected_argument(vm["stray"].as<std::vector<std::string>>()).c_str());
    return runtime::kExitUsage;
  }
  if (!(o.timeout >= 0)) {
    std::fputs(
        "clusterscope: compare: --timeout must be 0 (no limit) or more seconds \u2014 run "
        "'clusterscope compare --help'\n",
        stderr);
    return runtime::kExitUsage;
  }
  if (vm.count("base-step")) o.base_step = vm["base-step"].as<int64_t>();
  if (vm.count("comparison-step")) o.comparison_step = vm["comparison-step"].as<int64_t>();
  if (vm.count("rank")) {
    std::set<int> ranks;
    std::string error;
    if (!load::parse_rank_list(rank_text, ranks, error)) {
      std::fprintf(stderr, "clusterscope: compare: --rank %s: %s \u2014 e.g. --rank 0-7,12\n",
                   rank_text.c_str(), error.c_str());
      return runtime::kExitUsage;
    }
    o.ranks = ranks;
  }
  o.quiet = vm.count("quiet") > 0;
  o.base_path = vm["base"].as<std::string>();
  o.comparison_path = vm["comparison"].as<std::string>();
  return compare::run_compare(o, argc, argv);
}

}  // namespace cs::cli
