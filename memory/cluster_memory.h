#pragma once
// Memory across the cluster, from every rank's RankMemory (memory/rank_memory.h): the tables
// (memory_ranks, memory_groups, memory_steps, memory_stages, memory_operators, memory_components,
// memory_curves, memory_findings) and the findings in plain words.
//
// Findings (memory_findings.cpp), each with its evidence, none on a clean job:
//   imbalance        a rank's peak stands above its pipeline-stage peers' (robust spread, as the
//                    slow-rank diagnosis compares a rank with its stage peers): judged on its
//                    lowest per-step peak, so a leak is not mistaken for imbalance (a rank may
//                    have both);
//   leak             the floor of allocated memory (its minimum within each step) grows step after
//                    step, well beyond its stage peers' growth;
//   near_capacity    the reserved peak is within `capacity_margin` of the device's memory;
//   stage_imbalance  one pipeline stage holds much more than another (by design of pipeline
//                    schedules; said apart, never blamed on a rank).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/table.h"
#include "memory/rank_memory.h"

namespace cs::memory {

// One rank's memory as the cluster analysis sees it.
struct RankMemoryRef {
  int rank = -1;
  int stage = -1;  // pipeline stage; -1 unknown (every rank is then a peer of every other)
  const RankMemory* memory = nullptr;
};

struct MemoryOptions {
  double outlier_z = 5.0;                         // robust sigmas of the peers' peaks
  double min_excess_rel = 0.05;                   // and at least this share of the peers' median
  int64_t min_excess = int64_t{512} << 20;        // and at least this many bytes
  int64_t leak_min_per_step = int64_t{32} << 20;  // growth per step (bytes)
  double leak_rise_share = 0.75;                  // share of step-to-step changes that are rises
  double capacity_margin = 0.05;                  // near capacity: within this share of the device
  double stage_min_rel = 0.10;                    // stage imbalance: medians differ by this share
  int64_t stage_min = int64_t{1} << 30;           // and by this many bytes
};

struct MemoryFinding {
  int rank = -1;  // -1 for a stage finding
  int stage = -1;
  std::string kind;  // imbalance, leak, near_capacity, stage_imbalance
  double score = 0;  // GB above peers, MB per step, share of capacity free, GB between stages
  std::string evidence;
};

// A rank's floor growth per step (bytes, least squares over its steps' minimum allocated);
// 0 with fewer than 2 steps.
double growth_per_step(const RankMemory& m);

// The findings, ranks by rank then kind; stage findings last.
std::vector<MemoryFinding> find_memory_issues(const std::vector<RankMemoryRef>& ranks,
                                              const MemoryOptions& opts = {});

// Plain words: one line per finding (at most max_items per kind), or "No memory finding.\n".
std::string memory_summary(const std::vector<MemoryFinding>& findings, size_t max_items = 3);

// The tables (ranks sorted by rank).
io::Table memory_ranks_table(const std::vector<RankMemoryRef>& ranks,
                             const std::vector<MemoryFinding>& findings);
io::Table memory_steps_table(const std::vector<RankMemoryRef>& ranks);
io::Table memory_stages_table(const std::vector<RankMemoryRef>& ranks);
io::Table memory_operators_table(const std::vector<RankMemoryRef>& ranks);
// Pools (memory_record's components) and CANN modules whose peak is at least 100 MB, as
// MindStudio Insight lists them.
io::Table memory_components_table(const std::vector<RankMemoryRef>& ranks);
io::Table memory_curves_table(const std::vector<RankMemoryRef>& ranks);

// A communication group (tp, dp, pp, ... or an HCCL group without parallel info) and its ranks.
struct MemoryGroup {
  std::string name;  // "tp", "dp", ... when the metadata says, else the HCCL group name
  std::string id;    // the group's key (e.g. the hash of its op keys)
  std::vector<int> ranks;
};
// memory_groups: group, id, ranks, median_peak_mb, max_peak_mb, max_rank, max_over_median: peaks
// by group (groups whose ranks carry no memory data are left out).
io::Table memory_groups_table(const std::vector<RankMemoryRef>& ranks,
                              const std::vector<MemoryGroup>& groups);
io::Table memory_findings_table(const std::vector<MemoryFinding>& findings);

}  // namespace cs::memory
