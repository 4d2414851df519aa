#pragma once
// One group of profiler_metadata.json's parallel_group_info, as one rank lists it: the group's id,
// name and global ranks, and the rank's place in it (group_rank). Every rank of a group lists the
// same id, name and ranks, so those are one object shared by every rank that lists them (interned
// in a process-wide pool keyed by the group id); only group_rank is the rank's own. A rank holds
// 24 bytes a group instead of its own copy of the id and of the rank list (a data-parallel group of
// a 16,384-rank job lists 256 ranks: the root held about 25 MB of copies through the load; issue
// 38).
//
//   ParallelGroup g("10.0.0.1%eth0_60000_0_1", "tp", 1, {6, 7});
//   g.group_name() == "tp";  g.global_ranks() == std::vector<int>{6, 7};  g.group_rank() == 1

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace cs::readers {

class ParallelGroup {
 public:
  // What every rank of the group lists alike.
  struct Shape {
    std::string group_id;  // HCCL group id, e.g. "10.170.22.98%enp67s0f5_60000_0_1708156014257149"
    std::string group_name;         // "dp", "tp", "pp", "dp_cp", ...
    std::vector<int> global_ranks;  // as written
    friend bool operator==(const Shape&, const Shape&) = default;
  };

  ParallelGroup() = default;
  // The group, its shape shared with every other ParallelGroup of the process that has the same.
  ParallelGroup(Shape shape, int group_rank);
  ParallelGroup(std::string group_id, std::string group_name, int group_rank,
                std::vector<int> global_ranks);

  const std::string& group_id() const { return shape().group_id; }
  const std::string& group_name() const { return shape().group_name; }
  const std::vector<int>& global_ranks() const { return shape().global_ranks; }
  int group_rank() const { return group_rank_; }

  friend bool operator==(const ParallelGroup& a, const ParallelGroup& b) {
    return a.group_rank_ == b.group_rank_ && (a.shape_ == b.shape_ || a.shape() == b.shape());
  }

 private:
  const Shape& shape() const;
  std::shared_ptr<const Shape> shape_;  // null: the empty group
  int group_rank_ = -1;
};

// Forgets the pool's entries of groups no rank holds any more (their keys): called once the
// ranks' groups are freed.
void forget_unused_parallel_groups();
// The shapes the pool remembers (alive or not yet forgotten): for tests and measurements.
size_t remembered_parallel_groups();

}  // namespace cs::readers
