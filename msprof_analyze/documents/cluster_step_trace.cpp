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
  for (const load::RankData& rd : ranks) {
    if (!rd.has_step_trace || rd.step_trace.rows.empty()) continue;
    bool unknown = false;
    for (const std::string& c : rd.step_trace.columns) {
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
    if (!rd.has_step_trace || rd.step_trace.rows.empty()) continue;
    bool lacks = false;
    for (const std::string& c : cols) {
      if (rd.step_trace.column(c) >= 0) continue;
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
  const readers::ProfilerMetadata* meta = nullptr;
  size_t ranks_with_file = 0;
  const std::vector<std::string> columns = cluster_columns(ranks, diag);
  std::vector<int> where;  // per output column: the rank's column index, -1 when it lacks it
  for (const load::RankData& rd : ranks) {
    if (!meta && rd.has_metadata && rd.metadata.has_distributed_args &&
        !rd.metadata.distributed_args.empty())
      meta = &rd.metadata;
    if (!rd.has_step_trace) continue;
    ++ranks_with_file;
    where.clear();
    for (const std::string& c : columns) where.push_back(rd.step_trace.column(c));
    for (const readers::StepTraceRow& row : rd.step_trace.rows) {
      std::vector<StepCell> cells{row.no_step ? StepCell::null() : StepCell::str(row.step),
                                  StepCell::str("rank"),
                                  StepCell::num(io::Num::integer(rd.rank()))};
      for (int c : where)
        cells.push_back(StepCell::num(c >= 0 && static_cast<size_t>(c) < row.values.size()
                                          ? cell_num(row.values[static_cast<size_t>(c)])
                                          : io::Num::integer(0)));
      out.rows.push_back(std::move(cells));
    }
  }
  if (out.rows.empty()) return out;
  const size_t n_rank_rows = out.rows.size();

  // Stage rows: (step, stage) keys in first-seen order, column-wise max (Python's max keeps the
  // first of equal values, so an int 0 before a 0.0 stays "0").
  if (!stages.empty()) {
    std::vector<std::string> stage_keys;
    for (const PyIntSet& s : stages) stage_keys.push_back(s.tuple_str());
    std::vector<std::pair<std::string, std::string>> keys;
    std::vector<std::vector<const std::vector<StepCell>*>> members;
    std::map<std::pair<std::string, std::string>, size_t> key_index;
    for (size_t r = 0; r < n_rank_rows; ++r) {
      const auto& row = out.rows[r];
      const int rank = static_cast<int>(row[2].n.v);
      std::string stage = "()";
      for (size_t s = 0; s < stages.size(); ++s)
        if (stages[s].contains(rank)) {
          stage = stage_keys[s];
          break;
        }
      // Python's key (step, stage): a None step is not the step "".
      auto key = std::make_pair((row[0].kind == StepCell::kNull ? "N" : "S") + row[0].s, stage);
      auto [it, inserted] = key_index.try_emplace(key, keys.size());
      if (inserted) {
        keys.push_back(key);
        members.emplace_back();
      }
      members[it->second].push_back(&row);
    }
    // `members` points into out.rows: collect the stage rows apart and append them at the end,
    // or the first push_back's reallocation would leave those pointers dangling.
    std::vector<std::vector<StepCell>> stage_rows;
    stage_rows.reserve(keys.size());
    for (size_t k = 0; k < keys.size(); ++k) {
      std::vector<StepCell> cells{(*members[k][0])[0], StepCell::str("stage"),
                                  StepCell::str(keys[k].second)};
      size_t width = SIZE_MAX;
      for (const auto* m : members[k]) width = std::min(width, m->size());  // zip() truncates
      for (size_t c = 3; c < width; ++c) {
        io::Num best = (*members[k][0])[c].n;
        for (const auto* m : members[k])
          if ((*m)[c].n.v > best.v) best = (*m)[c].n;
        cells.push_back(StepCell::num(best));
      }
      stage_rows.push_back(std::move(cells));
    }
    for (auto& r : stage_rows) out.rows.push_back(std::move(r));
  }

  // DP/PP/TP index columns.
  bool parallel = false;
  if (meta) {
    std::string why;
    auto map = megatron_index_map(meta->distributed_args, &why);
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
    } else {
      parallel = true;
      if (map->size() > ranks_with_file && !ranks_filtered)
        diag.warn("", 0,
                  "step trace data found for " + std::to_string(ranks_with_file) +
                      " ranks but "
                      "world_size is " +
                      std::to_string(map->size()),
                  "some ranks' step_trace_time.csv may be missing; check the profiling data");
      for (size_t r = 0; r < out.rows.size(); ++r) {
        auto& row = out.rows[r];
        bool set = false;
        if (r < n_rank_rows) {
          const int64_t rank = static_cast<int64_t>(row[2].n.v);
          if (rank >= 0 && rank < static_cast<int64_t>(map->size()) && (*map)[rank]) {
            for (int v : *(*map)[rank]) row.push_back(StepCell::num(io::Num::integer(v)));
            set = true;
          } else if (rank >= static_cast<int64_t>(map->size())) {
            // msprof-analyze raises IndexError here and writes no file at all; NA is kinder.
            diag.warn("", 0, "rank " + std::to_string(rank) + " is outside world_size",
                      "its DP/PP/TP indexes are written as NA");
          }
        }
        if (!set)
          for (int i = 0; i < 3; ++i) row.push_back(StepCell::str("NA"));
      }
    }
  }

  out.header = {"Step", "Type", "Index"};
  for (const std::string& c : columns) out.header.push_back(c);
  if (parallel)
    for (const char* h : {"DP Index", "PP Index", "TP Index"}) out.header.push_back(h);
  return out;
}

std::string format_cluster_step_trace(const ClusterStepTrace& t) {
  std::string out;
  if (t.header.empty()) return out;
  auto line = [&](const auto& cells, auto&& append_cell) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) out += ',';
      append_cell(cells[i]);
    }
    out += "\r\n";
  };
  line(t.header, [&](const std::string& h) { append_csv_field(out, h); });
  for (const auto& row : t.rows)
    line(row, [&](const StepCell& c) {
      if (c.kind == StepCell::kString) {
        append_csv_field(out, c.s);
      } else if (c.kind == StepCell::kNull) {
        // None: csv.writer writes an empty field
      } else {
        std::string num;
        io::append_py_num(num, c.n);
        // Python's csv writes nan/inf via repr (str(float)); Num prints JSON's spelling.
        if (num == "NaN")
          num = "nan";
        else if (num == "Infinity")
          num = "inf";
        else if (num == "-Infinity")
          num = "-inf";
        out += num;
      }
    });
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
  const std::string text = format_cluster_step_trace(t);
  return io::write_output_file(path, diag, [&](std::FILE* f) {
    return std::fwrite(text.data(), 1, text.size(), f) == text.size();
  });
}

}  // namespace cs::documents
