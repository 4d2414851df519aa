#pragma once
// kernel_compare.csv: device kernels of both sides grouped by key (kernel name, optionally with
// the launching op's input shapes): total, count, avg, max, min per side, diff and ratio.
//
//   io::Table t = kernel_compare_table(base, comparison, /*use_input_shape=*/false);

#include <string>

#include "compare/profile.h"
#include "io/table.h"

namespace cs::compare {

// The key of kernel `k` of `p`: its name, plus " | <input shapes>" of the op that launched it
// when `use_input_shape` (no suffix when the op or its shapes are unknown).
std::string kernel_key(const Profile& p, const DeviceKernel& k, bool use_input_shape);

// One row per key seen on either side (communication kernels excluded), largest |diff| first.
// Columns: key, base_total_us, base_count, base_avg_us, base_max_us, base_min_us, the same
// for comparison, diff_us (comparison − base), diff_ratio (comparison / base).
io::Table kernel_compare_table(const Profile& base, const Profile& comparison,
                               bool use_input_shape);

}  // namespace cs::compare
