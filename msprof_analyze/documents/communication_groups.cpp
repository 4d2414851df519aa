#include "msprof_analyze/documents/communication_groups.h"

#include "load/rank_data_codec.h"

#include "readers/profiler_info.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/comm_keys.h"
#include "io/output_file.h"
#include "runtime/task_runner.h"

namespace cs::documents {

std::string_view py_group_of(std::string_view op_key) {
  size_t at = op_key.rfind('@');
  return at == std::string_view::npos ? op_key : op_key.substr(at + 1);
}

std::string_view op_part_of(std::string_view op_key) {
  size_t at = op_key.rfind('@');
  return at == std::string_view::npos ? std::string_view() : op_key.substr(0, at);
}

std::string group_name_of_group_id(std::string_view group_id) {
  return readers::group_double_hash_str(group_id);
}

const CommGroup* CommGroups::find(std::string_view type, std::string_view group_name) const {
  const bool p = type == "p2p";
  const auto& index = p ? p2p_index : collective_index;
  auto it = index.find(group_name);
  if (it == index.end()) return nullptr;
  return p ? &p2p[it->second] : &collective[it->second];
}

std::vector<const CommGroup*> CommGroups::all() const {
  std::vector<const CommGroup*> out;
  out.reserve(collective.size() + p2p.size());
  for (const auto& g : collective) out.push_back(&g);
  for (const auto& g : p2p) out.push_back(&g);
  return out;
}

namespace {

void add_rank(std::vector<CommGroup>& groups, decltype(CommGroups::p2p_index)& index,
              const char* type, std::string_view group_name, int rank) {
  auto it = index.find(group_name);  // the common case: a known group, no std::string made
  const bool inserted = it == index.end();
  if (inserted) it = index.emplace(std::string(group_name), groups.size()).first;
  if (inserted) {
    CommGroup g;
    g.type = type;
    g.group_name = std::string(group_name);
    groups.push_back(std::move(g));
  }
  groups[it->second].ranks.add(rank);
}

// The groups one rank reports, each (p2p, group name) once, in the order first reported: what
// build_comm_groups adds for it (adding a rank to a group twice is adding it once).
std::vector<std::pair<bool, std::string>> rank_groups(const load::RankData& rd,
                                                      const GroupOptions& opts) {
  std::vector<std::pair<bool, std::string>> out;
  auto add = [&](bool p2p, std::string_view key) {
    if (io::msprof_is_total(key)) return;
    const std::string_view group = py_group_of(key);
    for (const auto& [p, g] : out)
      if (p == p2p && g == group) return;
    out.emplace_back(p2p, std::string(group));
  };
  if (opts.use_communication && rd.has_communication) {
    // When the root holds the data packed or spilled; this thread's, reused rank after rank.
    thread_local readers::CommunicationFile scratch;
    for (const readers::CommStep& step : rd.communication.read(scratch).steps) {
      for (const readers::CommOp& op : step.collective) add(false, op.name);
      for (const readers::CommOp& op : step.p2p) add(true, op.name);
    }
  }
  if (opts.use_matrix && rd.has_matrix) {
    readers::MatrixFile scratch;  // when the root holds the matrix packed or spilled
    for (const readers::MatrixStep& step : rd.matrix.read(scratch).steps) {
      for (const readers::MatrixOp& op : step.collective) add(false, op.key);
      for (const readers::MatrixOp& op : step.p2p) add(true, op.key);
    }
  }
  return out;
}

}  // namespace

CommGroups build_comm_groups(const std::vector<load::RankData>& ranks, const GroupOptions& opts,
                             io::Diagnostics& diag) {
  (void)diag;
  CommGroups out;
  // The ranks read on opts.threads threads, a window at a time (what is held is a few group
  // names per rank of the window); their groups added in rank order.
  constexpr size_t kWindow = 1024;
  std::vector<std::vector<std::pair<bool, std::string>>> found;
  for (size_t first = 0; first < ranks.size(); first += kWindow) {
    const size_t n = std::min(kWindow, ranks.size() - first);
    found.assign(n, {});
    runtime::parallel_for(n, opts.threads,
                          [&](size_t i) { found[i] = rank_groups(ranks[first + i], opts); });
    for (size_t i = 0; i < n; ++i) {
      const int rank = ranks[first + i].rank();
      for (const auto& [p2p, group] : found[i]) {
        if (p2p)
          add_rank(out.p2p, out.p2p_index, "p2p", group, rank);
        else
          add_rank(out.collective, out.collective_index, "collective", group, rank);
      }
    }
  }

  // parallel_group_info: the first rank (in rank order) that lists a group id wins.
  struct Info {
    const readers::ParallelGroup* pg;
  };
  std::unordered_map<std::string, Info> by_name;  // group name (hash) -> first group id seen
  std::unordered_map<std::string, bool> seen_ids;
  for (const load::RankData& rd : ranks) {
    if (!rd.has_metadata) continue;
    for (const readers::ParallelGroup& pg : rd.metadata.parallel_groups) {
      if (!seen_ids.emplace(pg.group_id(), true).second) continue;
      by_name.try_emplace(group_name_of_group_id(pg.group_id()), Info{&pg});
    }
  }
  auto finish = [&](std::vector<CommGroup>& groups) {
    for (CommGroup& g : groups) {
      g.rank_set = g.ranks.sorted();
      auto it = by_name.find(g.group_name);
      if (it == by_name.end()) continue;
      const readers::ParallelGroup& pg = *it->second.pg;
      g.has_parallel_info = true;
      g.group_id = pg.group_id();
      g.pg_name = pg.group_name();
      if (!pg.global_ranks().empty()) {
        g.global_ranks = pg.global_ranks();
        std::sort(g.global_ranks.begin(), g.global_ranks.end());
        g.rank_set = g.global_ranks;
      }
    }
  };
  finish(out.collective);
  finish(out.p2p);
  return out;
}

void write_communication_group(io::JsonWriter& w, const CommGroups& groups) {
  auto write_lists = [&](const char* key, const std::vector<CommGroup>& gs) {
    w.key(key);
    w.begin_array();
    for (const CommGroup& g : gs) {
      w.begin_array();
      for (int r : g.ranks.items()) w.value(r);
      w.end_array();
    }
    w.end_array();
  };
  w.begin_object();
  write_lists("collective", groups.collective);
  write_lists("p2p", groups.p2p);
  w.key("comm_group_parallel_info");
  w.begin_array();
  for (const CommGroup* g : groups.all()) {
    w.begin_object();
    w.key("type");
    w.value(g->type);
    w.key("rank_set");
    w.begin_array();
    for (int r : g->rank_set) w.value(r);
    w.end_array();
    w.key("group_name");
    w.value(g->group_name);
    w.key("group_id");
    w.value(g->group_id);
    w.key("pg_name");
    w.value(g->pg_name);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

bool write_communication_group_json(const std::string& path, const CommGroups& groups,
                                    io::Diagnostics& diag, const io::JsonStyle& style) {
  return io::write_output_file(path, diag, [&](std::FILE* f) {
    io::JsonWriter w(f, style);
    write_communication_group(w, groups);
    w.flush();
    return w.ok();
  });
}

}  // namespace cs::documents
