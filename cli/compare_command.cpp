// clusterscope compare BASE COMPARISON: GPU vs NPU, or version vs version (interface.md).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cluster/cluster_loader.h"
#include "compare/comparison.h"
#include "compare/input_source.h"
#include "compare/name_map.h"
#include "compare/overall_metrics.h"
#include "compare/run_diff.h"
#include "mpi/mpi_comm.h"

namespace cs::cli {

namespace po = boost::program_options;

namespace {

void print_diagnostics(const io::Diagnostics& diag, bool quiet) {
  for (const auto& d : diag.items()) {
    if (quiet && d.severity == io::Severity::kWarning) continue;
    std::fprintf(stderr, "clusterscope: %s\n", d.to_string().c_str());
  }
  if (diag.suppressed() > 0 && !quiet)
    std::fprintf(stderr, "clusterscope: %zu more problems not shown\n", diag.suppressed());
}

// Problems of the loaded ranks (skipped or partly read) as one warning per rank.
void add_rank_problems(const cluster::LoadedCluster& lc, const char* label, io::Diagnostics& diag) {
  diag.append(lc.diagnostics);
  for (const auto& r : lc.ranks)
    if (r.entry.status != cluster::RankStatus::kOk)
      diag.warn(r.entry.path, 0,
                std::string(label) + " rank " + std::to_string(r.rank()) + " partly read: " +
                    (r.entry.problems.empty() ? "see its files" : r.entry.problems.front()),
                "run 'clusterscope cluster' on it for the full list");
  for (const auto& e : lc.skipped)
    diag.warn(e.path, 0,
              std::string(label) + " rank directory skipped" +
                  (e.problems.empty() ? std::string() : ": " + e.problems.front()),
              "run 'clusterscope cluster' on it for the full list");
}

}  // namespace

int run_compare(int argc, char** argv) {
  po::options_description opts("clusterscope compare BASE COMPARISON [options]");
  std::string out = ".", name_map_path;
  int64_t max_kernel_num = -1;
  std::optional<int64_t> base_step, comparison_step;
  // clang-format off
  opts.add_options()
    ("help,h", "show this help")
    ("output,o", po::value(&out), "output directory (default: .); files go to OUT/comparison_output/")
    ("op-name-map", po::value(&name_map_path), "JSON object {\"name\": \"renamed\"} of operators renamed between the sides")
    ("use-input-shape", "compare operators and kernels by name and input shapes")
    ("max-kernel-num", po::value(&max_kernel_num), "drill into the children of ops launching more kernels than this")
    ("base-step", po::value<int64_t>(), "compare only ProfilerStep#N of BASE")
    ("comparison-step", po::value<int64_t>(), "compare only ProfilerStep#N of COMPARISON")
    ("quiet,q", "print only errors");
  // clang-format on
  po::options_description hidden;
  hidden.add_options()("base", po::value<std::string>())("comparison", po::value<std::string>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("base", 1).add("comparison", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::fprintf(stderr, "clusterscope: compare: %s \u2014 run 'clusterscope compare --help'\n",
                 e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts
              << "\nEach side: a Kineto trace (*.json[.gz]), an NPU trace_view.json, a "
                 "rank directory (*_ascend_pt, *_ascend_ms) or a cluster directory.\n";
    return kExitOk;
  }
  if (!vm.count("base") || !vm.count("comparison")) {
    std::fputs(
        "clusterscope: compare: needs BASE and COMPARISON \u2014 run 'clusterscope compare "
        "--help'\n",
        stderr);
    return kExitUsage;
  }
  if (vm.count("base-step")) base_step = vm["base-step"].as<int64_t>();
  if (vm.count("comparison-step")) comparison_step = vm["comparison-step"].as<int64_t>();
  const bool quiet = vm.count("quiet") > 0;
  const std::string base_path = vm["base"].as<std::string>();
  const std::string comp_path = vm["comparison"].as<std::string>();

  io::Diagnostics diag;
  compare::CompareOptions copt;
  compare::NameMap name_map;
  if (!name_map_path.empty()) {
    if (!compare::read_name_map(name_map_path, name_map, diag)) {
      print_diagnostics(diag, quiet);
      return kExitUsage;
    }
    copt.operators.name_map = &name_map;
  }
  copt.operators.use_input_shape = vm.count("use-input-shape") > 0;
  copt.operators.max_kernel_num = max_kernel_num;

  compare::SideInput sides[2];
  compare::Profile profiles[2];
  const std::string paths[2] = {base_path, comp_path};
  const std::optional<int64_t> steps[2] = {base_step, comparison_step};
  const char* labels[2] = {"base", "comparison"};
  for (int i = 0; i < 2; ++i) {
    if (!compare::detect_side(paths[i], sides[i], diag)) {
      print_diagnostics(diag, quiet);
      return kExitFatal;
    }
    if (!quiet)
      std::fprintf(stderr, "clusterscope: %s: %s (%s)\n", labels[i], paths[i].c_str(),
                   sides[i].note.c_str());
  }
  const bool runs = sides[0].kind == compare::SideKind::kClusterDirectory &&
                    sides[1].kind == compare::SideKind::kClusterDirectory;
  // Run vs run: both clusters loaded like `cluster` does (ranks spread over the MPI processes);
  // only the root goes on.
  compare::RunTables run_tables;
  if (runs) {
    cluster::MpiSession mpi(argc, argv);
    cluster::LoadedCluster loaded[2];
    bool fatal = false;
    for (int i = 0; i < 2; ++i) {
      cluster::LoadOptions lo;
      lo.input_dir = paths[i];
      lo.parse.step = steps[i];
      cluster::PhaseLog log(false);
      loaded[i] = cluster::load_cluster(mpi, lo, log);
      if (loaded[i].fatal) {
        if (mpi.is_root())
          std::fprintf(stderr, "clusterscope: %s: %s\n", labels[i],
                       loaded[i].fatal_message.c_str());
        fatal = true;
      }
    }
    if (!mpi.is_root()) return fatal ? kExitFatal : kExitOk;
    if (fatal) return kExitFatal;
    for (int i = 0; i < 2; ++i) add_rank_problems(loaded[i], labels[i], diag);
    run_tables = compare::compare_runs(loaded[0].ranks, loaded[1].ranks, {}, diag);
  }
  const bool timelines = !runs || (!sides[0].timeline.empty() && !sides[1].timeline.empty());
  if (runs && !timelines && !quiet)
    std::fputs(
        "clusterscope: a side has no trace_view.json; writing only the run-vs-run tables "
        "(rank_diff.csv, regressions.csv)\n",
        stderr);
  compare::ComparisonTables tables;
  if (timelines) {
    for (int i = 0; i < 2; ++i) {
      if (!compare::load_side(sides[i], steps[i], profiles[i], diag)) {
        print_diagnostics(diag, quiet);
        return kExitFatal;
      }
    }
    tables = compare::compare_profiles(profiles[0], profiles[1], copt);
  }
  const std::string out_dir = out + "/comparison_output";
  std::vector<const io::Table*> extra;
  if (runs) extra = {&run_tables.rank_diff, &run_tables.regressions};
  const bool written =
      compare::write_comparison(tables, out_dir, base_path, comp_path, diag, extra);
  print_diagnostics(diag, quiet);
  if (!written) return kExitFatal;
  if (timelines) std::fputs(compare::format_overall_table(tables.overall).c_str(), stdout);
  if (runs) {
    std::printf("Run vs run: %d ranks compared\n", run_tables.ranks_compared);
    std::fputs(compare::format_top_regressions(run_tables.ranked, 5).c_str(), stdout);
  }
  if (!quiet) std::fprintf(stderr, "clusterscope: wrote %s/\n", out_dir.c_str());
  return diag.has_errors() || diag.warning_count() > 0 ? kExitPartial : kExitOk;
}

}  // namespace cs::cli
