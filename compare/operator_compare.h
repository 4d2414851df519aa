#pragma once
// operator_compare.csv: the framework-op sequences of the two sides aligned by name with an
// exact LCS (compare/lcs.h), kernel time summed per op. An op launching more than
// `max_kernel_num` kernels is replaced by its children (recursively), so big modules are
// compared at a finer grain.
//
//   OperatorCompareOptions o; o.max_kernel_num = 10;
//   io::Table t = operator_compare_table(base, comparison, o);

#include <cstdint>
#include <vector>

#include "compare/name_map.h"
#include "compare/profile.h"
#include "io/table.h"

namespace cs::compare {

struct OperatorCompareOptions {
  bool use_input_shape = false;  // the key includes the op's input shapes
  int64_t max_kernel_num = -1;   // < 0: never drill into children
  const NameMap* name_map = nullptr;
};

// The ops compared for one side: top-level ops in time order, each replaced by its children
// while it launches more than max_kernel_num kernels and has children.
std::vector<int32_t> operator_sequence(const Profile& p, int64_t max_kernel_num);

// One row per aligned pair or unmatched op, in sequence order. Columns: order, base_op,
// comparison_op, base_input_shape, comparison_input_shape, base_device_us,
// comparison_device_us, base_kernel_count, comparison_kernel_count, diff_us, diff_ratio.
// An op present on one side only has "" and 0 on the other.
io::Table operator_compare_table(const Profile& base, const Profile& comparison,
                                 const OperatorCompareOptions& opt);

}  // namespace cs::compare
