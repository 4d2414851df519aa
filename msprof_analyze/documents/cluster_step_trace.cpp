#include "msprof_analyze/documents/cluster_step_trace.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

#include "io/output_file.h"

namespace cs::documents {

namespace {

bool starts_with_pp(const std::string& pg_name) {
  return pg_name.size() >= 2 && std::tolower(static_cast<unsigned char>(pg_name[0])) == 'p' &&
         std::tolower(static_cast<unsigned char>(pg_name[1])) == 'p';
}

// UnionFind.union(*sets): set() |= each argument in turn.
PyIntSet union_of(std::initializer_list<const PyIntSet*> sets) {
  PyIntSet out;
  for (const PyIntSet* s : sets) out.merge(*s);
  return out;
}

}  // namespace

std::vector<PyIntSet> infer_stages(const CommGroups& groups) {
  // p2p "pp" groups, stable-sorted by their smallest rank.
  std::vector<PyIntSet> links;
  for (const CommGroup& g : groups.p2p)
    if (starts_with_pp(g.pg_name)) links.push_back(PyIntSet::from_list(g.rank_set));
  if (links.empty()) return {};
  std::stable_sort(links.begin(), links.end(),
                   [](const PyIntSet& a, const PyIntSet& b) { return a.min() < b.min(); });

  // One greedy pass per union, as generate_p2p_union_group does (not a full transitive closure).
  std::vector<PyIntSet> unions;
  while (!links.empty()) {
    PyIntSet u = links[0];
    std::vector<const PyIntSet*> removed{&links[0]};
    for (size_t i = 1; i < links.size(); ++i) {
      if (links[i].intersection_size(u) > 0) {
        u = union_of({&u, &links[i]});
        removed.push_back(&links[i]);
      }
    }
    std::vector<PyIntSet> rest;
    for (const PyIntSet& l : links) {
      bool gone = false;
      for (const PyIntSet* r : removed) gone = gone || l == *r;  // `not in rm_list`: equality
      if (!gone) rest.push_back(l);
    }
    unions.push_back(std::move(u));
    links = std::move(rest);
  }

  // Join the collective groups that have at most one rank in every union.
  std::vector<std::pair<int, PyIntSet>> stages;  // insertion-ordered dict: min rank -> set
  for (const CommGroup& g : groups.collective) {
    PyIntSet rank_set = PyIntSet::from_list(g.rank_set);
    bool valid = true;
    for (const PyIntSet& u : unions) valid = valid && rank_set.intersection_size(u) <= 1;
    if (!valid) continue;
    PyIntSet joined;
    std::vector<int> remove_keys;
    for (const auto& [first, stage] : stages) {
      if (rank_set.intersection_size(stage) > 0) {
        joined = union_of({&rank_set, &stage, &joined});
        remove_keys.push_back(first);
      }
    }
    if (!joined.empty()) {
      for (int k : remove_keys)
        stages.erase(std::find_if(stages.begin(), stages.end(),
                                  [k](const auto& p) { return p.first == k; }));
      const int key = joined.min();
      stages.emplace_back(key, std::move(joined));
    } else {
      stages.emplace_back(rank_set.min(), std::move(rank_set));
    }
  }
  std::stable_sort(stages.begin(), stages.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<PyIntSet> out;
  for (auto& [first, s] : stages) out.push_back(std::move(s));
  return out;
}

std::optional<std::vector<std::optional<std::array<int, 3>>>> megatron_index_map(
    const std::map<std::string, int64_t>& args, std::string* why) {
  auto get = [&](const char* k) {
    auto it = args.find(k);
    return it == args.end() ? int64_t{1} : it->second;
  };
  auto fail = [&](std::string msg) {
    if (why) *why = std::move(msg);
    return std::nullopt;
  };
  int64_t world = get("world_size"), tp = get("tensor_model_parallel_size"),
          pp = get("pipeline_model_parallel_size"), dp = get("data_parallel_size"),
          cp = get("context_parallel_size"), ep = get("expert_model_parallel_size");
  // A size of 0 is taken as 1, as msprof-analyze does.
  if (tp == 0) tp = 1;
  if (pp == 0) pp = 1;
  if (dp == 0) dp = 1;
  if (ep == 0) ep = 1;
  if (world <= 0 || tp < 0 || pp < 0 || dp < 0 || cp <= 0 || ep < 0 || world > (1 << 24))
    return fail("distributed_args has a negative or out-of-range parallel size");
  if (dp % ep != 0)
    return fail("data_parallel_size is not divisible by expert_model_parallel_size");
  if (dp * cp % ep != 0)
    return fail(
        "data_parallel_size * context_parallel_size is not divisible by "
        "expert_model_parallel_size");
  if (world != tp * pp * dp)
    return fail(
        "world_size must be equal to tensor_model_parallel_size * "
        "pipeline_model_parallel_size * data_parallel_size");
  const int64_t n_pp_groups = world / pp;
  // Data-parallel groups, then model-parallel group i = the i-th rank of every dp group.
  std::vector<std::vector<int64_t>> dp_groups;
  for (int64_t i = 0; i < pp; ++i) {
    const int64_t begin = n_pp_groups * i, end = n_pp_groups * (i + 1);
    for (int64_t k = 0; k < tp * cp; ++k) {
      std::vector<int64_t> g;
      for (int64_t r = begin + k; r < end; r += tp * cp) g.push_back(r);
      dp_groups.push_back(std::move(g));
    }
  }
  std::vector<std::optional<std::array<int, 3>>> map(static_cast<size_t>(world));
  for (int64_t i = 0; i < dp; ++i) {
    std::vector<int64_t> mp;
    for (const auto& g : dp_groups) {
      if (static_cast<int64_t>(g.size()) <= i)
        return fail(
            "the data-parallel groups are too small for data_parallel_size (is "
            "context_parallel_size > 1?)");
      mp.push_back(g[static_cast<size_t>(i)]);
    }
    for (size_t j = 0, pp_idx = 0; j < mp.size(); j += static_cast<size_t>(tp), ++pp_idx)
      for (size_t k = 0; k < static_cast<size_t>(tp) && j + k < mp.size(); ++k)
        map[static_cast<size_t>(mp[j + k])] =
            std::array<int, 3>{static_cast<int>(i), static_cast<int>(pp_idx), static_cast<int>(k)};
  }
  return map;
}

namespace {

// float(cell) of the csv text: NaN marks a cell Python could not convert (N/A, empty), which
// StepTraceTimeBean turns into the int 0.
io::Num cell_num(double v) {
  return std::isnan(v) ? io::Num::integer(0) : io::Num::real(v);
}

}  // namespace

namespace {

// The value columns of the cluster file, by name: every known column some rank has, in the
// order first seen (the first rank's header for normal inputs). Columns the profiler does not
// write are left out, and ranks lacking a column get 0 there (msprof-analyze's value for a cell
// it cannot read); both said once.
std::vector<std::string> cluster_columns(const std::vector<load::RankData>& ranks,
                                         io::Diagnostics& diag) {
  std::vector<std::string> cols;
  int unknown_ranks = 0, unknown_first = -1;
  readers::StepTraceFile scratch;  // filled only while a rank's step trace is parked
  for (const load::RankData& rd : ranks) {
    if (!rd.has_step_trace) continue;
    const readers::StepTraceFile& st = rd.step_trace.read(scratch);
    if (st.rows.empty()) continue;
    bool unknown = false;
    for (const std::string& c : st.columns) {
      if (!readers::is_step_trace_column(c)) {
        unknown = true;
      } else if (std::find(cols.begin(), cols.end(), c) == cols.end()) {
        cols.push_back(c);
      }
    }
    if (unknown && unknown_ranks++ == 0) unknown_first = rd.rank();
  }
  if (unknown_ranks > 0)
    diag.warn("", 0,
              "step_trace_time.csv of " + std::to_string(unknown_ranks) + " rank(s) (first: rank " +
                  std::to_string(unknown_first) + ") has columns the profiler does not write",
              "they were left out of cluster_step_trace_time.csv; the other columns were matched "
              "by name");
  std::string lacking;
  int lacking_ranks = 0, lacking_first = -1;
  for (const load::RankData& rd : ranks) {
    if (!rd.has_step_trace) continue;
    const readers::StepTraceFile& st = rd.step_trace.read(scratch);
    if (st.rows.empty()) continue;
    bool lacks = false;
    for (const std::string& c : cols) {
      if (st.column(c) >= 0) continue;
      lacks = true;
      if (lacking.find("\"" + c + "\"") == std::string::npos)
        lacking += (lacking.empty() ? "\"" : ", \"") + c + "\"";
    }
    if (lacks && lacking_ranks++ == 0) lacking_first = rd.rank();
  }
  if (lacking_ranks > 0)
    diag.warn("", 0,
              "step_trace_time.csv of " + std::to_string(lacking_ranks) + " rank(s) (first: rank " +
                  std::to_string(lacking_first) + ") lacks column(s) other ranks have: " + lacking,
              "those cells are written as 0 in cluster_step_trace_time.csv");
  return cols;
}

}  // namespace

ClusterStepTrace build_cluster_step_trace(const std::vector<load::RankData>& ranks,
                                          const CommGroups& groups, io::Diagnostics& diag,
                                          bool ranks_filtered) {
  return build_cluster_step_trace_staged(ranks, infer_stages(groups), diag, ranks_filtered);
}

ClusterStepTrace build_cluster_step_trace_staged(const std::vector<load::RankData>& ranks,
                                                 const std::vector<PyIntSet>& stages,
                                                 io::Diagnostics& diag, bool ranks_filtered) {
  ClusterStepTrace out;
  out.stages = stages;
  const std::vector<std::string> columns = cluster_columns(ranks, diag);
  const size_t n_values = columns.size();
  readers::StepTraceFile scratch;  // filled only while a rank's step trace is parked
  auto stage_of = [&](int rank) {  // index in `stages`, or stages.size() for a rank in none
    size_t s = 0;
    while (s < stages.size() && !stages[s].contains(rank)) ++s;
    return s;
  };

  // Stage rows: (step, stage) keys in first-seen order, column-wise max (Python's max keeps the
  // first of equal values, so an int 0 before a 0.0 stays "0"). The keys are found first, so
  // that the cells are reserved once for every row.
  struct StageRow {
    bool no_step;  // the first member's step: None, or `step`
    std::string step;
    size_t stage;               // index in `stages`, or stages.size(): "()"
    std::vector<io::Num> best;  // empty until the first member's values
  };
  std::vector<StageRow> stage_rows;
  std::vector<uint32_t> row_stage_row;  // per rank row: its stage row
  const readers::ProfilerMetadata* meta = nullptr;
  size_t ranks_with_file = 0, n_rank_rows = 0;
  {
    std::map<std::pair<std::string, size_t>, uint32_t> stage_index;  // (step key, stage) -> row
    for (const load::RankData& rd : ranks) {
      if (!meta && rd.has_metadata && rd.metadata.has_distributed_args &&
          !rd.metadata.distributed_args.empty())
        meta = &rd.metadata;
      if (!rd.has_step_trace) continue;
      ++ranks_with_file;
      const readers::StepTraceFile& st = rd.step_trace.read(scratch);
      n_rank_rows += st.rows.size();
      if (stages.empty()) continue;
      const size_t stage = stage_of(rd.rank());
      for (const readers::StepTraceRow& row : st.rows) {
        // Python's key (step, stage): a None step is not the step "".
        auto [it, inserted] = stage_index.try_emplace(
            std::make_pair(row.no_step ? std::string("N") : "S" + row.step, stage),
            static_cast<uint32_t>(stage_rows.size()));
        if (inserted) stage_rows.push_back({row.no_step, row.step, stage, {}});
        row_stage_row.push_back(it->second);
      }
    }
  }
  if (n_rank_rows == 0) return out;

  // DP/PP/TP index columns, decided before any row is built so that every row has its width.
  std::optional<std::vector<std::optional<std::array<int, 3>>>> map;
  if (meta) {
    std::string why;
    map = megatron_index_map(meta->distributed_args, &why);
    if (!map) {
      diag.warn("profiler_metadata.json", 0, "cannot derive DP/PP/TP indexes: " + why,
                "cluster_step_trace_time.csv is written without the DP Index, PP Index and TP "
                "Index columns; check distributed_args");
    } else if (map->size() < ranks_with_file) {
      diag.warn("profiler_metadata.json", 0,
                "distributed_args world_size " + std::to_string(map->size()) +
                    " is smaller than the number of ranks with step_trace_time.csv (" +
                    std::to_string(ranks_with_file) + ")",
                "the DP/PP/TP index columns were left out; check profiler_metadata.json");
      map.reset();
    } else if (map->size() > ranks_with_file && !ranks_filtered) {
      diag.warn("", 0,
                "step trace data found for " + std::to_string(ranks_with_file) +
                    " ranks but "
                    "world_size is " +
                    std::to_string(map->size()),
                "some ranks' step_trace_time.csv may be missing; check the profiling data");
    }
  }
  const bool parallel = map.has_value();
  out.reset(3 + n_values + (parallel ? 3 : 0), n_rank_rows + stage_rows.size());
  auto push_na = [&] {
    for (int i = 0; i < 3; ++i) out.push(StepCell::str("NA"));
  };

  std::vector<int> where;  // per output column: the rank's column index, -1 when it lacks it
  std::vector<io::Num> values(n_values);
  size_t rank_row = 0;
  for (const load::RankData& rd : ranks) {
    if (!rd.has_step_trace) continue;
    const int rank = rd.rank();
    const readers::StepTraceFile& st = rd.step_trace.read(scratch);
    where.clear();
    for (const std::string& c : columns) where.push_back(st.column(c));
    const std::optional<std::array<int, 3>>* index = nullptr;
    if (parallel && rank >= 0 && static_cast<size_t>(rank) < map->size() && (*map)[rank])
      index = &(*map)[rank];
    for (const readers::StepTraceRow& row : st.rows) {
      out.push(row.no_step ? StepCell::null() : StepCell::str(row.step));
      out.push(StepCell::str("rank"));
      out.push(StepCell::num(io::Num::integer(rank)));
      for (size_t k = 0; k < n_values; ++k) {
        const int c = where[k];
        values[k] = c >= 0 && static_cast<size_t>(c) < row.values.size()
                        ? cell_num(row.values[static_cast<size_t>(c)])
                        : io::Num::integer(0);
        out.push(StepCell::num(values[k]));
      }
      if (index) {
        for (int v : **index) out.push(StepCell::num(io::Num::integer(v)));
      } else if (parallel) {
        if (rank >= static_cast<int64_t>(map->size()))
          // msprof-analyze raises IndexError here and writes no file at all; NA is kinder.
          diag.warn("", 0, "rank " + std::to_string(rank) + " is outside world_size",
                    "its DP/PP/TP indexes are written as NA");
        push_na();
      }
      if (stages.empty()) continue;
      std::vector<io::Num>& best = stage_rows[row_stage_row[rank_row++]].best;
      if (best.empty()) {
        best = values;
        continue;
      }
      for (size_t k = 0; k < n_values; ++k)
        if (values[k].v > best[k].v) best[k] = values[k];
    }
  }
  std::vector<std::string> stage_keys;
  for (const PyIntSet& s : stages) stage_keys.push_back(s.tuple_str());
  stage_keys.emplace_back("()");
  for (const StageRow& sr : stage_rows) {
    out.push(sr.no_step ? StepCell::null() : StepCell::str(sr.step));
    out.push(StepCell::str("stage"));
    out.push(StepCell::str(stage_keys[sr.stage]));
    for (const io::Num& v : sr.best) out.push(StepCell::num(v));
    if (parallel) push_na();
  }

  out.header = {"Step", "Type", "Index"};
  for (const std::string& c : columns) out.header.push_back(c);
  if (parallel)
    for (const char* h : {"DP Index", "PP Index", "TP Index"}) out.header.push_back(h);
  return out;
}

void append_cluster_step_trace_row(std::string& out, const ClusterStepTrace& t, size_t r) {
  for (size_t i = 0; i < t.width(); ++i) {
    if (i) out += ',';
    const StepCell c = t.cell(r, i);
    if (c.kind == StepCell::kString) {
      append_csv_field(out, c.s);
    } else if (c.kind == StepCell::kNumber) {
      const size_t at = out.size();
      io::append_py_num(out, c.n);
      // Python's csv writes nan/inf via repr (str(float)); Num prints JSON's spelling.
      const std::string_view num(out.data() + at, out.size() - at);
      const char* py = num == "NaN"         ? "nan"
                       : num == "Infinity"  ? "inf"
                       : num == "-Infinity" ? "-inf"
                                            : nullptr;
      if (py) out.replace(at, std::string::npos, py);
    }  // None: csv.writer writes an empty field
  }
  out += "\r\n";
}

namespace {

void append_header(std::string& out, const ClusterStepTrace& t) {
  for (size_t i = 0; i < t.header.size(); ++i) {
    if (i) out += ',';
    append_csv_field(out, t.header[i]);
  }
  out += "\r\n";
}

}  // namespace

std::string format_cluster_step_trace(const ClusterStepTrace& t) {
  std::string out;
  if (t.header.empty()) return out;
  append_header(out, t);
  for (size_t r = 0; r < t.row_count(); ++r) append_cluster_step_trace_row(out, t, r);
  return out;
}

bool write_cluster_step_trace_csv(const std::string& path, const std::vector<load::RankData>& ranks,
                                  const CommGroups& groups, io::Diagnostics& diag,
                                  bool ranks_filtered) {
  return write_cluster_step_trace_csv(
      path, build_cluster_step_trace(ranks, groups, diag, ranks_filtered), diag);
}

bool write_cluster_step_trace_csv(const std::string& path, const ClusterStepTrace& t,
                                  io::Diagnostics& diag) {
  if (t.header.empty()) return true;  // msprof-analyze: "Can't get step time info!", no file
  return io::write_output_file(path, diag, [&](std::FILE* f) {
    constexpr size_t kBlock = 64 * 1024;
    std::string block;
    block.reserve(kBlock + 4096);
    auto flush = [&] {
      const bool ok = std::fwrite(block.data(), 1, block.size(), f) == block.size();
      block.clear();
      return ok;
    };
    append_header(block, t);
    for (size_t r = 0; r < t.row_count(); ++r) {
      append_cluster_step_trace_row(block, t, r);
      if (block.size() >= kBlock && !flush()) return false;
    }
    return flush();
  });
}

}  // namespace cs::documents
