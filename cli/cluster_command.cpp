// `clusterscope cluster -d DIR`: command-line parsing; the work is cluster::run_cluster.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cluster/cluster_run.h"
#include "load/discovery.h"
#include "mpi/mpi_comm.h"
#include "recipes/cluster_db_all.h"
#include "recipes/recipe_run.h"

namespace po = boost::program_options;

namespace cs::cli {

namespace {

bool split_formats(const std::string& text, std::set<std::string>& out, std::string& error) {
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "all") {
      out = {"json", "csv", "hdf5", "html"};
    } else if (item == "json" || item == "csv" || item == "hdf5" || item == "html") {
      out.insert(item);
    } else {
      error = "unknown format '" + item + "'";
      return false;
    }
  }
  if (out.empty()) error = "no format given";
  return !out.empty();
}

}  // namespace

int run_cluster(int argc, char** argv) {
  cluster::ClusterRunOptions opts;
  std::string dir, dir_alt, out, out_alt, mode = "all", mode_alt, ranks, ranks_alt, formats = "all";
  std::string group_by = "type", data_type = "auto", data_type_alt;
  std::string export_type, export_type_alt;
  int64_t step = -1, step_alt = -1;
  po::options_description desc(
      "usage: clusterscope cluster -d DIR [options]\n"
      "Analyses every rank of a profiled job. Under mpirun -np N the rank directories are split\n"
      "across the N processes; the outputs are the same.\n\noptions");
  // clang-format off
  desc.add_options()
    ("help,h", "show this help")
    ("dir,d", po::value(&dir), "input: directory holding the *_ascend_pt / *_ascend_ms / PROF_* rank directories")
    ("profiling_path", po::value(&dir_alt), "same as -d (msprof-analyze spelling)")
    ("output,o", po::value(&out), "output directory (default: DIR); files go to OUT/cluster_analysis_output/")
    ("output_path", po::value(&out_alt), "same as -o")
    ("mode,m", po::value(&mode), "all | communication_time | communication_matrix | step_trace | operators | diagnosis, or one of msprof-analyze's recipes (communication_group_map, communication_time_sum, ...)")
    ("export_type", po::value(&export_type), "recipes: db (default: cluster_analysis.db) | text (<Recipe>/*.csv)")
    ("export-type", po::value(&export_type_alt), "same as --export_type")
    ("rank-list", po::value(&ranks), "only these ranks, e.g. 0,2,8-15")
    ("rank_list", po::value(&ranks_alt), "same as --rank-list")
    ("data-type", po::value(&data_type), "auto (default: a rank's DB export when it has one) | text | db")
    ("data_type", po::value(&data_type_alt), "same as --data-type")
    ("step", po::value(&step), "only this step number")
    ("step_id", po::value(&step_alt), "same as --step")
    ("top-n", po::value(&opts.top_n)->default_value(15), "operators in the TopN table")
    ("group-by", po::value(&group_by), "operator key: type (default) | name | name+shapes")
    ("order-by", po::value(&opts.order_by), "TopN order: total (default) | mean | max | cv")
    ("format", po::value(&formats), "all (default) or a list of json,csv,hdf5,html")
    ("threads", po::value(&opts.load.threads)->default_value(0), "parser threads per process (default: cores / processes on the node)")
    ("strict", po::bool_switch(&opts.strict), "exit 1 instead of 3 when some ranks were skipped or partly read")
    ("progress", po::bool_switch(&opts.progress), "phase timings and a progress bar even when stderr is not a terminal")
    ("quiet,q", po::bool_switch(&opts.quiet), "print nothing but errors");
  // clang-format on
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::fprintf(stderr, "clusterscope: cluster: %s \u2014 run 'clusterscope cluster --help'\n",
                 e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return kExitOk;
  }
  auto usage_error = [](const std::string& what) {
    std::fprintf(stderr, "clusterscope: cluster: %s \u2014 run 'clusterscope cluster --help'\n",
                 what.c_str());
    return kExitUsage;
  };
  if (dir.empty()) dir = dir_alt;
  if (out.empty()) out = out_alt;
  if (vm.count("mode") == 0 && !mode_alt.empty()) mode = mode_alt;
  if (ranks.empty()) ranks = ranks_alt;
  if (step < 0) step = step_alt;
  if (vm.count("data-type") == 0 && !data_type_alt.empty()) data_type = data_type_alt;
  if (data_type == "text") {
    opts.load.data_type = cluster::DataType::kText;
  } else if (data_type == "db") {
    opts.load.data_type = cluster::DataType::kDb;
  } else if (data_type != "auto") {
    return usage_error("unknown --data-type '" + data_type + "' (auto, text or db)");
  }
  if (dir.empty()) return usage_error("no input directory: give -d DIR");
  if (export_type.empty()) export_type = export_type_alt;
  if (!export_type.empty() && export_type != "db" && export_type != "text")
    return usage_error("unknown --export_type '" + export_type + "' (db or text)");
  if (recipes::is_recipe(mode)) {
    recipes::RecipeRunOptions ropts;
    ropts.recipe = mode;
    ropts.input_dir = dir;
    ropts.output_dir = out.empty() ? dir : out;
    ropts.export_type =
        export_type == "text" ? recipes::ExportType::kText : recipes::ExportType::kDb;
    ropts.strict = opts.strict;
    ropts.quiet = opts.quiet;
    if (!ranks.empty()) {
      std::set<int> set;
      std::string error;
      if (!cluster::parse_rank_list(ranks, set, error)) return usage_error("--rank-list: " + error);
      ropts.rank_filter = std::move(set);
    }
    cluster::MpiSession mpi(argc, argv);
    return recipes::run_recipe(mpi, ropts);
  }
  if (!cluster::is_valid_mode(mode)) return usage_error("unknown mode '" + mode + "'");
  if (opts.top_n <= 0) return usage_error("--top-n must be at least 1");
  if (opts.order_by.empty()) opts.order_by = "total";
  if (opts.order_by != "total" && opts.order_by != "mean" && opts.order_by != "max" &&
      opts.order_by != "cv")
    return usage_error("unknown --order-by '" + opts.order_by + "'");
  auto key = cluster::parse_operator_key(group_by);
  if (!key) return usage_error("unknown --group-by '" + group_by + "'");
  std::string error;
  opts.formats.clear();
  if (!split_formats(formats, opts.formats, error)) return usage_error(error);
  if (!ranks.empty()) {
    std::set<int> set;
    if (!cluster::parse_rank_list(ranks, set, error)) return usage_error("--rank-list: " + error);
    opts.load.rank_filter = std::move(set);
  }
  opts.load.input_dir = dir;
  opts.output_dir = out.empty() ? dir : out;
  opts.mode = mode;
  opts.load.parse.group_by = *key;
  if (step >= 0) opts.load.parse.step = step;
  opts.load.parse = cluster::parse_options_for_mode(mode, opts.load.parse);
  if (!opts.progress) opts.progress = !opts.quiet && isatty(STDERR_FILENO);
  if (opts.quiet) opts.progress = false;
  opts.load.show_progress = opts.progress;

  cluster::MpiSession mpi(argc, argv);
  int code = cluster::run_cluster(mpi, opts);
  // -m all: also cluster_analysis.db, by default when the job has DB exports (as msprof-analyze).
  if (mode == "all" && code != kExitFatal && export_type != "text") {
    recipes::ClusterDbOptions db;
    db.input_dir = dir;
    db.output_dir = opts.output_dir;
    db.rank_filter = opts.load.rank_filter;
    db.quiet = opts.quiet;
    if (export_type == "db" || recipes::job_has_db_export(mpi, db)) {
      if (recipes::write_cluster_analysis_db(mpi, db) != 0) code = kExitFatal;
    }
  }
  return code;
}

}  // namespace cs::cli
