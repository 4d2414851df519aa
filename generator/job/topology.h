#pragma once
// The parallel layout of a simulated job: Megatron order (tensor fastest), 8 devices per node,
// the TP / DP / PP communication groups with realistic HCCL group ids, and the links between
// ranks (HCCS inside a node, RDMA across nodes).

#include <cstdint>
#include <string>
#include <vector>

namespace cs::generator {

constexpr int kDevicesPerNode = 8;

enum class GroupKind { kTp, kDp, kPp };
enum class Transport { kHccs, kRdma, kLocal };

// "tp", "dp", "pp".
const char* group_kind_name(GroupKind k);
// "HCCS", "RDMA", "LOCAL".
const char* transport_name(Transport t);

struct Group {
  GroupKind kind = GroupKind::kTp;
  std::vector<int> ranks;  // global ranks, ascending; local rank i = ranks[i]
  std::string id;          // HCCL group id, "10.170.22.1%enp67s0f5_60000_3_1708156014257560"
  std::string hash;        // group double hash of id, decimal (the op key suffix)
  std::string hash_tail;   // its last three digits (the "844" of hcom_allReduce__844_2_1)
  bool ring = false;       // ring algorithm (large or multi-node groups) instead of full mesh
};

struct Topology {
  int ranks = 0, tp = 1, pp = 1, dp = 1;
  std::vector<Group> groups;
  std::vector<int> tp_group, dp_group, pp_group;  // per global rank: index into groups

  int tp_index(int r) const { return r % tp; }
  int dp_index(int r) const { return (r / tp) % dp; }
  int pp_index(int r) const { return r / (tp * dp); }
  static int node(int r) { return r / kDevicesPerNode; }
  static Transport transport(int a, int b) {
    return a == b ? Transport::kLocal : node(a) == node(b) ? Transport::kHccs : Transport::kRdma;
  }
  // Local rank of global rank r in group g (-1 when not a member).
  int local_rank(int g, int r) const;
  // True when ranks a and b exchange data directly in some group (either direction).
  bool linked(int a, int b) const;
};

// Builds the layout for ranks = tp * pp * dp (caller validated). Group ids depend on `seed`.
Topology build_topology(int ranks, int tp, int pp, uint64_t seed);

// Host name of the node holding rank r, e.g. "devnode-0003", and its IP "10.170.22.4".
std::string node_host(int r);
std::string node_ip(int r);

}  // namespace cs::generator
