#pragma once
// Communication groups named by what they are, from their rank sets alone (the report sees no
// metadata): a group of consecutive ranks is a tensor-parallel group ("tp 3 (ranks 24-31)"), one
// of ranks a stage apart spanning the job is a pipeline group ("pp 5"), any other evenly spaced
// set inside one stage is a data-parallel group ("dp 0 of stage 1"); the hash stays available for
// hover. Rank sets alone cannot tell tp x pp or dp x pp from tp x dp (two kinds of groups: blocks
// and strided sets); they are read as tp x dp, pipeline stages only with dp groups inside a stage
// (three kinds, the Megatron tp x dp x pp layout). Each rank gets coordinates (its position in its
// tp and dp groups, its stage).
//
//   GroupNaming n = name_groups({{"1425…", {0, 1, 2, 3}}, {"9876…", {0, 4}}});
//   n.label.at("1425…") == "tp 0 (ranks 0-3)";  n.coords.at(4).stage == 1;

#include <map>
#include <string>
#include <vector>

namespace cs::report {

struct RankCoords {
  long long tp = -1, dp = -1, stage = -1;  // -1: unknown
};

struct GroupNaming {
  std::map<std::string, std::string> label;               // group hash -> "tp 3 (ranks 24-31)"
  std::map<long long, RankCoords> coords;                 // rank -> coordinates
  std::map<long long, std::vector<std::string>> of_rank;  // rank -> its group hashes
  long long stage_size = 0;                               // ranks per pipeline stage (0: unknown)

  std::vector<std::string> order;  // the hashes, sorted (label's order)

  // The label of `hash`, or the hash itself when the group is unknown.
  const std::string& name(const std::string& hash) const;
  // The position of `hash` in `order` (and in label's iteration order), -1 when unknown.
  long long index(const std::string& hash) const;
};

// Names every group of `groups` (hash -> its ranks, any order, duplicates allowed).
GroupNaming name_groups(const std::map<std::string, std::vector<long long>>& groups);

// "24-31" for a run of consecutive ranks, "0,4,8,…,60" for an arithmetic one, else the first few.
std::string rank_range(const std::vector<long long>& sorted_ranks);

}  // namespace cs::report
