// `clusterscope cluster -d DIR`: command-line parsing; the work is cluster::run_cluster.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cluster/cluster_run.h"
#include "frame/text_pool.h"
#include "gpu/gpu_run.h"
#include "io/diagnostics_print.h"
#include "io/output_ledger.h"
#include "load/discovery.h"
#include "load/rank_list.h"
#include "mpi/mpi_comm.h"
#include "msprof_analyze/db_all/cluster_db_all.h"
#include "msprof_analyze/db_all/recipe_verdicts.h"
#include "msprof_analyze/recipes/recipe_registry.h"
#include "msprof_analyze/recipes/recipe_run.h"
#include "runtime/allocator_tuning.h"
#include "runtime/enum_names.h"

namespace po = boost::program_options;

namespace cs::cli {

namespace {

// msprof-analyze's recipes -m also accepts, ", "-separated.
std::string recipe_list() {
  std::string out;
  for (const std::string& name : recipes::recipe_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

int run_cluster(int argc, char** argv) {
  cluster::ClusterRunOptions opts;
  std::string dir, dir_alt, out, out_alt, mode = "all", mode_alt, ranks, ranks_alt, formats = "all";
  std::string group_by = "type", order_by = "total", data_type = "auto", data_type_alt;
  std::string export_type, export_type_alt;
  std::string top_num, bp, parallel_types, rank_id, op_tables;
  std::string baseline_profiling_path, fuzzy_threshold;
  bool dump_intermediate_results = false;
  int64_t step = -1, step_alt = -1;
  double timeout = 600;
  po::options_description desc(
      "usage: clusterscope cluster -d DIR [options]\n"
      "Analyses every rank of a profiled job. Under mpirun -np N the rank directories are split\n"
      "across the N processes; the outputs are the same.\n\noptions");
  // clang-format off
  desc.add_options()
    ("help,h", "show this help")
    ("dir,d", po::value(&dir), "input: directory holding the *_ascend_pt / *_ascend_ms / PROF_* rank directories, or a GPU job's per-rank PyTorch profiler (Kineto) traces")
    ("profiling_path", po::value(&dir_alt), "same as -d (msprof-analyze spelling)")
    ("output,o", po::value(&out), "output directory (default: DIR); files go to OUT/cluster_analysis_output/")
    ("output_path", po::value(&out_alt), "same as -o")
    ("mode,m", po::value(&mode), "all | communication_time | communication_matrix | step_trace | operators | diagnosis, or one of msprof-analyze's recipes (communication_group_map, communication_time_sum, ...)")
    ("export_type", po::value(&export_type), "msprof-analyze's outputs: db (cluster_analysis.db; default for DB exports) | text (its JSON/CSV files; <Recipe>/*.csv)")
    ("export-type", po::value(&export_type_alt), "same as --export_type")
    ("rank-list", po::value(&ranks), "only these ranks, e.g. 0,2,8-15")
    ("rank_list", po::value(&ranks_alt), "same as --rank-list")
    ("data-type", po::value(&data_type), "auto (default: a rank's DB export when it has one) | text | db")
    ("data_type", po::value(&data_type_alt), "same as --data-type")
    ("step", po::value(&step), "only this step number")
    ("step_id", po::value(&step_alt), "same as --step")
    ("top-n", po::value(&opts.top_n)->default_value(15), "operators in the TopN table")
    ("top_num", po::value(&top_num), "slow_link: rows of SlowLinkSum (default 15; 0: 15); communication_bottleneck: ops analysed (default 10)")
    ("rank_id", po::value(&rank_id), "communication_bottleneck: the rank whose longest communication ops are analysed (default 0)")
    ("parallel_types", po::value(&parallel_types), "computational_op_masking: parallel types, names by ',' and types by ';', e.g. 'dp,edp;tp' (default: dp,edp;edp;dp;ep;pp;mp;tp)")
    ("bp", po::value(&bp), "cluster_time_compare_summary: the base job's directory")
    ("baseline_profiling_path", po::value(&baseline_profiling_path), "calibrate_npu_gpu: the GPU job's Nsight Systems SQLite export (nsys export --type sqlite)")
    ("fuzzy_threshold", po::value(&fuzzy_threshold), "calibrate_npu_gpu: 0 turns fuzzy module matching off (as in msprof-analyze, any other value leaves it on at 0.6)")
    ("dump_intermediate_results", po::bool_switch(&dump_intermediate_results), "calibrate_npu_gpu: also write each side's table (NPUProfileRank<N>, GPUProfileRank<N>)")
    ("group-by", po::value(&group_by), "operator key: type (default) | name | name+shapes")
    ("order-by", po::value(&order_by), "TopN order: total (default) | mean | max | cv")
    ("format", po::value(&formats), "all (default) or a list of json,csv,hdf5,html")
    ("op-tables", po::value(&op_tables), "the per-op tables (communication_ops, communication_matrix; rows grow with ranks x op instances): hdf5 (default with --format hdf5: in cluster_analysis.h5 only) | csv | csv.gz (also as <name>.csv / <name>.csv.gz)")
    ("threads", po::value(&opts.load.threads)->default_value(0), "threads per process: parsing, or a recipe reading the ranks (default: cores / processes on the node)")
    ("timeout", po::value(&timeout)->default_value(600), "under mpirun: seconds to wait for a process that stopped answering before the job is ended, naming it (0 = no limit)")
    ("strict", po::bool_switch(&opts.strict), "exit 1 instead of 3 when some ranks were skipped or partly read")
    ("progress", po::bool_switch(&opts.progress), "phase timings and a progress bar even when stderr is not a terminal")
    ("quiet,q", po::bool_switch(&opts.quiet), "print nothing but errors");
  // clang-format on
  // No positional arguments: a stray word is an error, not ignored.
  po::options_description all;
  all.add(desc).add_options()("stray", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("stray", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::fprintf(stderr, "clusterscope: cluster: %s \u2014 run 'clusterscope cluster --help'\n",
                 e.what());
    return runtime::kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return runtime::kExitOk;
  }
  auto usage_error = [](const std::string& what) {
    std::fprintf(stderr, "clusterscope: cluster: %s \u2014 run 'clusterscope cluster --help'\n",
                 what.c_str());
    return runtime::kExitUsage;
  };
  // A wrong choice: the message already lists the valid ones.
  auto unknown_choice = [](const std::string& what) {
    std::fprintf(stderr, "clusterscope: cluster: %s\n", what.c_str());
    return runtime::kExitUsage;
  };
  if (vm.count("stray"))
    return usage_error(unexpected_argument(vm["stray"].as<std::vector<std::string>>()));
  if (dir.empty()) dir = dir_alt;
  if (out.empty()) out = out_alt;
  if (vm.count("mode") == 0 && !mode_alt.empty()) mode = mode_alt;
  if (ranks.empty()) ranks = ranks_alt;
  if (step < 0) step = step_alt;
  if (vm.count("data-type") == 0 && !data_type_alt.empty()) data_type = data_type_alt;
  const auto data = runtime::enum_from_name(cluster::kDataTypeNames, data_type);
  if (!data)
    return unknown_choice(runtime::unknown_value("--data-type", data_type,
                                                 runtime::enum_names(cluster::kDataTypeNames)));
  opts.load.data_type = *data;
  if (export_type.empty()) export_type = export_type_alt;
  const auto exporting = runtime::enum_from_name(recipes::kExportTypeNames, export_type);
  if (!export_type.empty() && !exporting)
    return unknown_choice(runtime::unknown_value("--export_type", export_type,
                                                 runtime::enum_names(recipes::kExportTypeNames)));
  const auto run_mode = runtime::enum_from_name(cluster::kModeNames, mode);
  if (!run_mode && !recipes::is_recipe(mode))
    return unknown_choice(runtime::unknown_value(
        "mode", mode,
        runtime::enum_names(cluster::kModeNames) + ", or a recipe: " + recipe_list()));
  if (dir.empty()) return usage_error("no input directory: give -d DIR");
  if (!(timeout >= 0)) return usage_error("--timeout must be 0 (no limit) or more seconds");
  if (!run_mode) {
    recipes::RecipeRunOptions ropts;
    ropts.recipe = mode;
    ropts.input_dir = dir;
    ropts.output_dir = out.empty() ? dir : out;
    ropts.export_type = exporting.value_or(recipes::ExportType::kDb);
    if (!top_num.empty()) {
      if (top_num.find_first_not_of("0123456789") != std::string::npos || top_num.size() > 9)
        return usage_error("--top_num must be a whole number, e.g. --top_num 15");
      ropts.top_num = std::stoi(top_num);
    }
    if (!rank_id.empty()) {
      if (rank_id.find_first_not_of("0123456789") != std::string::npos || rank_id.size() > 9)
        return usage_error("--rank_id must be a rank number, e.g. --rank_id 3");
      ropts.rank_id = std::stoi(rank_id);
    }
    ropts.bp = bp;
    if (vm.count("parallel_types")) ropts.args["parallel_types"] = parallel_types;
    if (vm.count("baseline_profiling_path"))
      ropts.args["baseline_profiling_path"] = baseline_profiling_path;
    if (vm.count("fuzzy_threshold")) ropts.args["fuzzy_threshold"] = fuzzy_threshold;
    if (dump_intermediate_results) ropts.args["dump_intermediate_results"] = "1";
    ropts.strict = opts.strict;
    ropts.quiet = opts.quiet;
    ropts.progress = opts.progress;
    ropts.threads = opts.load.threads;
    if (!ranks.empty()) {
      std::set<int> set;
      std::string error;
      if (!load::parse_rank_list(ranks, set, error)) return usage_error("--rank-list: " + error);
      ropts.rank_filter = std::move(set);
    }
    mpi::MpiSession mpi(argc, argv, timeout);
    return recipes::run_recipe(mpi, ropts);
  }
  if (opts.top_n <= 0) return usage_error("--top-n must be at least 1");
  if (order_by.empty()) order_by = "total";
  const auto order = stats::parse_order_by(order_by);
  if (!order)
    return unknown_choice(
        runtime::unknown_value("--order-by", order_by, runtime::enum_names(stats::kOrderByNames)));
  opts.order_by = *order;
  auto key = load::parse_operator_key(group_by);
  if (!key)
    return unknown_choice(runtime::unknown_value("--group-by", group_by,
                                                 runtime::enum_names(load::kOperatorKeyNames)));
  std::string error;
  if (!cluster::parse_output_formats(formats, opts.formats, error)) return unknown_choice(error);
  const bool hdf5_out = opts.formats.count(cluster::OutputFormat::kHdf5) > 0;
  if (op_tables.empty()) {
    // Without the HDF5 file a CSV run keeps its per-op tables as CSV.
    opts.op_tables = hdf5_out || opts.formats.count(cluster::OutputFormat::kCsv) == 0
                         ? cluster::OpTables::kHdf5
                         : cluster::OpTables::kCsv;
  } else {
    const auto where = runtime::enum_from_name(cluster::kOpTablesNames, op_tables);
    if (!where)
      return unknown_choice(runtime::unknown_value("--op-tables", op_tables,
                                                   runtime::enum_names(cluster::kOpTablesNames)));
    if (*where == cluster::OpTables::kHdf5 && !hdf5_out)
      return usage_error(
          "--op-tables hdf5 needs the HDF5 file: add hdf5 to --format, or use "
          "--op-tables csv");
    opts.op_tables = *where;
  }
  if (!ranks.empty()) {
    std::set<int> set;
    if (!load::parse_rank_list(ranks, set, error)) return usage_error("--rank-list: " + error);
    opts.load.rank_filter = std::move(set);
  }
  opts.load.input_dir = dir;
  opts.output_dir = out.empty() ? dir : out;
  opts.mode = *run_mode;
  opts.load.parse.group_by = *key;
  if (step >= 0) opts.load.parse.step = step;
  opts.load.parse = cluster::parse_options_for_mode(*run_mode, opts.load.parse);
  if (!opts.progress) opts.progress = !opts.quiet && isatty(STDERR_FILENO);
  if (opts.quiet) opts.progress = false;
  opts.load.show_progress = opts.progress;

  // A GPU job (per-rank PyTorch profiler traces): gpu/ analyses it (docs/gpu_cluster.md).
  if (gpu::looks_like_gpu_job(dir)) {
    gpu::GpuRunOptions g;
    g.input_dir = dir;
    g.output_dir = opts.output_dir;
    g.rank_filter = opts.load.rank_filter;
    g.threads = opts.load.threads;
    g.top_n = opts.top_n;
    g.csv = opts.formats.count(cluster::OutputFormat::kCsv) > 0;
    g.hdf5 = opts.formats.count(cluster::OutputFormat::kHdf5) > 0;
    g.html = opts.formats.count(cluster::OutputFormat::kHtml) > 0;
    g.quiet = opts.quiet;
    mpi::MpiSession gpu_mpi(argc, argv, timeout);
    const int gpu_code = gpu::run_gpu_cluster(gpu_mpi, g);
    io::OutputLedger::instance().finish();
    return gpu_code;
  }

  mpi::MpiSession mpi(argc, argv, timeout);
  // The main run and the recipes behind cluster_analysis.db read the same files: one message each.
  io::print_each_message_once();
  // -m all: msprof-analyze's outputs as cluster_analysis.db (by default when the job has DB
  // exports, as msprof-analyze) or as its text documents, with the step trace the main run built
  // (the root's).
  db_all::ClusterDbOptions db;
  db.input_dir = dir;
  db.output_dir = opts.output_dir;
  db.rank_filter = opts.load.rank_filter;
  db.quiet = opts.quiet;
  db.threads = opts.load.threads;
  const bool write_db =
      *run_mode == cluster::Mode::kAll && exporting != recipes::ExportType::kText &&
      (exporting == recipes::ExportType::kDb || db_all::job_has_db_export(mpi, db));
  opts.msprof_text = !write_db;
  // A text job: the main run takes the root's listing of the job when it lists the job the same
  // way (not walked twice: about 1 s at 16,384 ranks), and no one else holds it.
  if (!write_db && opts.load.data_type == load::DataType::kAuto)
    opts.load.discovered = std::move(db.discovered);
  db.discovered.reset();
  // msprof-analyze's own diagnostic recipes on the same ranks, set beside the diagnosis.
  // Between the three runs the memory each freed is given back (the allocator keeps it for reuse
  // otherwise): the next run starts from what is still held, not from the last one's high-water
  // mark (docs/root_memory.md, "freed memory given back between the three runs").
  if (write_db) {
    opts.recipe_verdicts = db_all::run_verdict_recipes(mpi, db);
    // The listing is not held through the main run (at 16,384 ranks 12 MB at its peak):
    // cluster_analysis.db walks the job again (about 1 s at 16,384 ranks).
    db.discovered.reset();
    // Their frames are gone (the verdicts are plain values): their texts need not stay either
    // (17 MB at 16,384 ranks). cluster_analysis.db's recipes intern theirs anew.
    frame::release_text_pool();
    runtime::release_freed_memory();
  }
  std::optional<documents::BuiltStepTrace> step_trace;
  int code = cluster::run_cluster(mpi, opts, write_db ? &step_trace : nullptr);
  if (write_db && code != runtime::kExitFatal) {
    runtime::release_freed_memory();
    db.step_trace = step_trace ? &*step_trace : nullptr;
    if (db_all::write_cluster_analysis_db(mpi, db) != runtime::kExitOk) code = runtime::kExitFatal;
  }
  io::OutputLedger::instance().finish();  // the list of this run's outputs, sorted
  return code;
}

}  // namespace cs::cli
