#include "compare/compare_run.h"

#include <cstdio>
#include <iostream>
#include <optional>

#include "cluster/cluster_loader.h"
#include "compare/comparison.h"
#include "compare/input_source.h"
#include "compare/name_map.h"
#include "compare/overall_metrics.h"
#include "compare/run_diff.h"
#include "compare/run_shape.h"
#include "io/diagnostics_print.h"
#include "memory/memory_compare.h"
#include "memory/memory_kineto.h"
#include "mpi/mpi_comm.h"
#include "runtime/exit_status.h"

namespace cs::compare {

namespace {

// GPU vs NPU (two single profiles: a Kineto trace's "[memory]" events, an Ascend rank
// directory's memory files): the same two tables, one row for the pair (rank 0), when both
// profiles have memory data.
std::vector<io::Table> profile_memory_diff(const std::string& a, const std::string& b,
                                           io::Diagnostics& diag) {
  const auto ma = memory::read_profile_memory(a, diag);
  const auto mb = memory::read_profile_memory(b, diag);
  if (!ma || !mb) return {};
  const std::vector<memory::RankMemoryRef> ra = {{0, -1, &*ma}}, rb = {{0, -1, &*mb}};
  std::vector<io::Table> out;
  out.push_back(memory::memory_rank_diff_table(ra, rb));
  out.push_back(memory::memory_operator_diff_table(ra, rb));
  return out;
}

// memory_rank_diff and memory_operator_diff when either run has memory data, else nothing.
std::vector<io::Table> memory_diff_tables(const std::vector<load::RankData>& a,
                                          const std::vector<load::RankData>& b) {
  std::vector<memory::RankMemoryRef> ra, rb;
  for (const auto& r : a)
    if (r.memory) ra.push_back({r.rank(), -1, &*r.memory});
  for (const auto& r : b)
    if (r.memory) rb.push_back({r.rank(), -1, &*r.memory});
  if (ra.empty() && rb.empty()) return {};
  std::vector<io::Table> out;
  out.push_back(memory::memory_rank_diff_table(ra, rb));
  out.push_back(memory::memory_operator_diff_table(ra, rb));
  return out;
}

// Problems of the loaded ranks (skipped or partly read) as one warning per rank.
void add_rank_problems(const cluster::LoadedCluster& lc, const char* label, io::Diagnostics& diag) {
  diag.append(lc.diagnostics);
  for (const auto& r : lc.ranks)
    if (r.entry.status != load::RankStatus::kOk)
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

// Ranks of `wanted` that `lc` does not hold.
std::vector<int> absent_ranks(const std::set<int>& wanted, const cluster::LoadedCluster& lc) {
  std::set<int> have;
  for (const auto& r : lc.ranks) have.insert(r.rank());
  std::vector<int> out;
  for (int r : wanted)
    if (!have.count(r)) out.push_back(r);
  return out;
}

// The rank whose timelines the kernel/operator tables compare: the rank of the first significant
// regression placed on one rank, else the first rank compared.
int detail_rank(const RunTables& t, const std::vector<load::RankData>& ranks) {
  for (const auto& r : t.ranked) {
    if (!r.significant) break;
    if (r.where.rfind("rank ", 0) == 0) return std::stoi(r.where.substr(5));
  }
  return ranks.empty() ? 0 : ranks.front().rank();
}

// The rank directory of `rank` in a loaded run, "" when absent.
std::string rank_dir(const std::vector<load::RankData>& ranks, int rank) {
  for (const auto& r : ranks)
    if (r.rank() == rank) return r.entry.path;
  return "";
}

}  // namespace

int run_compare(const CompareRunOptions& o, int argc, char** argv) {
  io::Diagnostics diag;
  CompareOptions copt;
  NameMap name_map;
  if (!o.name_map_path.empty()) {
    if (!read_name_map(o.name_map_path, name_map, diag)) {
      io::print_diagnostics(diag, o.quiet);
      return runtime::kExitUsage;
    }
    copt.operators.name_map = &name_map;
  }
  copt.operators.use_input_shape = o.use_input_shape;
  copt.operators.max_kernel_num = o.max_kernel_num;

  SideInput sides[2];
  Profile profiles[2];
  const std::string paths[2] = {o.base_path, o.comparison_path};
  const std::optional<int64_t> steps[2] = {o.base_step, o.comparison_step};
  const char* labels[2] = {"base", "comparison"};
  for (int i = 0; i < 2; ++i) {
    if (!detect_side(paths[i], sides[i], diag)) {
      io::print_diagnostics(diag, o.quiet);
      return runtime::kExitFatal;
    }
  }
  const bool runs =
      sides[0].kind == SideKind::kClusterDirectory && sides[1].kind == SideKind::kClusterDirectory;
  if (o.ranks && !runs) {
    std::fputs(
        "clusterscope: compare: --rank picks ranks of two cluster directories \u2014 pass two "
        "cluster directories, or drop --rank\n",
        stderr);
    return runtime::kExitUsage;
  }
  WriteContext wctx;
  RunTables run_tables;
  std::vector<io::Table> memory_diff;  // memory_rank_diff, memory_operator_diff (memory/)
  cluster::LoadedCluster loaded[2];
  if (runs) {
    // Both clusters loaded like `cluster` does (ranks spread over the MPI processes); only the
    // root goes on.
    mpi::MpiSession mpi(argc, argv, o.timeout);
    bool fatal = false;
    for (int i = 0; i < 2; ++i) {
      cluster::LoadOptions lo;
      lo.input_dir = paths[i];
      lo.parse.step = steps[i];
      lo.parse.memory = true;  // memory/: peaks and operators compared when both runs have them
      lo.parse.host = true;  // dispatch, data and compile regressions (compare/host_regressions.h)
      lo.rank_filter = o.ranks;
      runtime::PhaseLog log(false);
      loaded[i] = cluster::load_cluster(mpi, lo, log);
      if (loaded[i].fatal) {
        if (mpi.is_root())
          io::print_message(std::string(labels[i]) + ": " + loaded[i].fatal_message);
        fatal = true;
      }
    }
    // From here the root compares alone and the others wait for it, watched (mpi/mpi_comm.h):
    // on every way out of this block the root ends the scope and joins one last agreement, so a
    // root that stops is named instead of leaving the others in MPI_Finalize for ever.
    struct RootWorksAlone {
      const mpi::MpiSession& mpi;
      std::optional<mpi::MpiSession::RootAlone> alone;
      explicit RootWorksAlone(const mpi::MpiSession& m) : mpi(m) {
        alone.emplace(m, "compare", "compared the two runs");
      }
      ~RootWorksAlone() {
        alone.reset();
        (void)mpi.max(0);
      }
    } root_alone(mpi);
    if (!mpi.is_root()) return fatal ? runtime::kExitFatal : runtime::kExitOk;
    if (fatal) return runtime::kExitFatal;
    if (o.ranks) {
      for (int i = 0; i < 2; ++i)
        if (const auto absent = absent_ranks(*o.ranks, loaded[i]); !absent.empty()) {
          std::fprintf(stderr,
                       "clusterscope: compare: --rank names ranks the %s run does not have: "
                       "%s \u2014 it has %s\n",
                       labels[i], describe_ranks(absent).c_str(),
                       describe_ranks([&] {
                         std::vector<int> v;
                         for (const auto& r : loaded[i].ranks) v.push_back(r.rank());
                         return v;
                       }())
                           .c_str());
          return runtime::kExitUsage;
        }
    }
    // One rank on each side (two rank directories): the user asks to compare these two, whatever
    // their rank ids — rank 0 against rank 1 of one job is a common question. The comparison's
    // rank takes the base's id so the tables pair them, and the scope says so.
    std::string paired;
    if (!o.ranks && loaded[0].ranks.size() == 1 && loaded[1].ranks.size() == 1 &&
        loaded[0].ranks[0].rank() != loaded[1].ranks[0].rank()) {
      paired = "rank " + std::to_string(loaded[1].ranks[0].rank()) +
               " of the comparison is compared with rank " +
               std::to_string(loaded[0].ranks[0].rank()) + " of the base. ";
      loaded[1].ranks[0].operators.edit().rename_rank(loaded[1].ranks[0].rank(),
                                                      loaded[0].ranks[0].rank());
      loaded[1].ranks[0].entry.rank = loaded[0].ranks[0].rank();
    }
    if (const std::string why =
            o.ranks ? std::string() : shape_mismatch(loaded[0].ranks, loaded[1].ranks);
        !why.empty()) {
      std::fprintf(stderr,
                   "clusterscope: compare: %s \u2014 compare two runs of the same job, or pick "
                   "the ranks both have with --rank\n",
                   why.c_str());
      return runtime::kExitUsage;
    }
    for (int i = 0; i < 2; ++i) add_rank_problems(loaded[i], labels[i], diag);
    wctx.warnings = align_steps(loaded[0].ranks, loaded[1].ranks);
    for (const auto& w : wctx.warnings) io::print_message("WARNING: " + w);
    run_tables = compare_runs(loaded[0].ranks, loaded[1].ranks, {}, diag);
    memory_diff = memory_diff_tables(loaded[0].ranks, loaded[1].ranks);
    // The timelines compared in detail: the rank of the largest regression, on both sides.
    const int rank = detail_rank(run_tables, loaded[0].ranks);
    bool both = true;
    for (int i = 0; i < 2; ++i) {
      SideInput s;
      io::Diagnostics scratch;
      const std::string dir = rank_dir(loaded[i].ranks, rank);
      if (!dir.empty() && detect_side(dir, s, scratch) && !s.timeline.empty())
        sides[i] = s;
      else
        both = false;
    }
    const std::string all =
        o.ranks ? "the " + describe_ranks(std::vector<int>(o.ranks->begin(), o.ranks->end())) +
                      " picked by --rank"
                : "all " + std::to_string(run_tables.ranks_compared) + " ranks of both runs";
    wctx.scope =
        "Run vs run: " + paired + all +
        " compared step by step (rank_diff.csv) and ranked as regressions "
        "(regressions.csv). " +
        (both ? "The overall, kernel, operator and communication tables compare rank " +
                    std::to_string(rank) + "'s timelines, the rank of the largest regression."
              : "A run has no trace_view.json for rank " + std::to_string(rank) +
                    ": no timeline tables.");
    if (!both) sides[0].timeline.clear();
  }
  for (int i = 0; i < 2; ++i)
    if (!o.quiet)
      io::print_message(std::string(labels[i]) + ": " + sides[i].path + " (" + sides[i].note + ")");
  const bool timelines = !runs || (!sides[0].timeline.empty() && !sides[1].timeline.empty());
  if (runs && !timelines && !o.quiet)
    std::fputs(
        "clusterscope: a side has no trace_view.json; writing only the run-vs-run tables "
        "(rank_diff.csv, regressions.csv)\n",
        stderr);
  ComparisonTables tables;
  if (timelines) {
    for (int i = 0; i < 2; ++i) {
      if (!load_side(sides[i], steps[i], profiles[i], diag)) {
        io::print_diagnostics(diag, o.quiet);
        return runtime::kExitFatal;
      }
    }
    tables = compare_profiles(profiles[0], profiles[1], copt);
  }
  if (!runs) memory_diff = profile_memory_diff(paths[0], paths[1], diag);
  const std::string out_dir = o.out + "/comparison_output";
  std::vector<const io::Table*> extra;
  if (runs) extra = {&run_tables.rank_diff, &run_tables.regressions};
  for (const io::Table& t : memory_diff) extra.push_back(&t);
  const bool written =
      write_comparison(tables, out_dir, o.base_path, o.comparison_path, diag, extra, wctx);
  io::print_diagnostics(diag, o.quiet);
  if (!written) return runtime::kExitFatal;
  if (timelines) std::fputs(format_overall_table(tables.overall).c_str(), stdout);
  if (runs) {
    std::printf("Run vs run: %d ranks compared\n", run_tables.ranks_compared);
    std::fputs(format_top_regressions(run_tables.ranked, 5).c_str(), stdout);
    if (!memory_diff.empty()) std::fputs(memory::memory_diff_line(memory_diff[0]).c_str(), stdout);
  } else if (!memory_diff.empty()) {
    std::fputs(memory::memory_diff_line(memory_diff[0], true).c_str(), stdout);
  }
  if (!o.quiet) io::print_message("wrote " + out_dir + "/");
  return diag.has_errors() || diag.warning_count() > 0 || !wctx.warnings.empty()
             ? runtime::kExitPartial
             : runtime::kExitOk;
}

}  // namespace cs::compare
