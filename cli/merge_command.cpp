// `clusterscope merge DIR -o OUT`: command-line parsing; the work is cluster::run_merge.
#include "cli/merge_command.h"

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <system_error>

#include "cli/commands.h"
#include "load/discovery.h"
#include "load/rank_list.h"
#include "mpi/mpi_comm.h"
#include "timeline/merge_run.h"

namespace po = boost::program_options;

namespace cs::cli {

int run_merge(int argc, char** argv) {
  timeline::MergeOptions opts;
  std::string ranks;
  double timeout = 600;
  po::options_description desc(
      "usage: clusterscope merge DIR -o merged.json[.gz] [options]\n"
      "Merges every rank's timeline below DIR (NPU trace_view.json of each rank directory,\n"
      "PyTorch profiler *.json / *.json.gz traces) into one Chrome/Perfetto trace. Processes are\n"
      "renamed 'rank N \u00b7 <name>'; pids become rank*10000+i. Under mpirun -np N the ranks are\n"
      "split across the N processes; the output is the same.\n\noptions");
  // clang-format off
  desc.add_options()
    ("help,h", "show this help")
    ("dir,d", po::value(&opts.input_dir), "input directory (or give it as the first argument)")
    ("output,o", po::value(&opts.output), "output file; gzip-compressed when it ends in .gz")
    ("ranks", po::value(&ranks), "only these ranks, e.g. 0,2,8-15")
    ("rank-list", po::value(&ranks), "same as --ranks")
    ("align", po::value(&opts.align), "shift each rank so the first event whose name contains this text starts when it does in the lowest rank")
    ("timeout", po::value(&timeout)->default_value(600), "under mpirun: seconds to wait for a process that stopped answering before the job is ended, naming it (0 = no limit)")
    ("quiet,q", po::bool_switch(&opts.quiet), "print nothing but errors");
  // clang-format on
  po::options_description all;
  all.add(desc).add_options()("stray", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("dir", 1).add("stray", -1);
  po::variables_map vm;
  auto usage_error = [](const std::string& what) {
    std::fprintf(stderr, "clusterscope: merge: %s \u2014 run 'clusterscope merge --help'\n",
                 what.c_str());
    return runtime::kExitUsage;
  };
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return runtime::kExitOk;
  }
  if (vm.count("stray"))
    return usage_error(unexpected_argument(vm["stray"].as<std::vector<std::string>>()));
  if (opts.input_dir.empty()) return usage_error("no input directory: give DIR");
  if (opts.output.empty()) return usage_error("no output file: give -o merged.json[.gz]");
  if (std::error_code ec;
      std::filesystem::is_directory(opts.output, ec) || opts.output.back() == '/') {
    std::string dir = opts.output;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    std::fprintf(stderr,
                 "clusterscope: merge: %s: -o must be a file, and this is a directory \u2014 give "
                 "a file name, e.g. -o %s/merged.json.gz\n",
                 opts.output.c_str(), dir.c_str());
    return runtime::kExitUsage;
  }
  if (!(timeout >= 0)) return usage_error("--timeout must be 0 (no limit) or more seconds");
  if (vm.count("align") && opts.align.empty()) return usage_error("--align needs a name");
  if (!ranks.empty()) {
    std::set<int> set;
    std::string error;
    if (!load::parse_rank_list(ranks, set, error)) return usage_error("--ranks: " + error);
    opts.rank_filter = std::move(set);
  }
  mpi::MpiSession mpi(argc, argv, timeout);
  return timeline::run_merge(mpi, opts);
}

}  // namespace cs::cli
