#pragma once
// communication_compare.csv: communication ops of both sides per collective type (allreduce,
// allgather, reducescatter, broadcast, alltoall, send, receive, sendrecv, ...): calls, total,
// avg, max, min per side, diff and ratio.

#include <string>
#include <string_view>

#include "compare/profile.h"
#include "io/table.h"

namespace cs::compare {

// The collective type of a communication kernel/op, lower case, so GPU and NPU names meet:
//   "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)" -> "allreduce",
//   "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(...)" -> "sendrecv",
//   "hcom_reduceScatter__844_2_1" -> "reducescatter", Collective name arg "all_gather" ->
//   "allgather".
// `collective_arg` (the NCCL "Collective name" arg) wins when not empty.
std::string collective_type(std::string_view name, std::string_view collective_arg = {});

// One row per collective type seen on either side, in name order. Columns: op_type, base_calls,
// base_total_us, base_avg_us, base_max_us, base_min_us, the same for comparison, diff_us,
// diff_ratio.
io::Table communication_compare_table(const Profile& base, const Profile& comparison);

}  // namespace cs::compare
