#pragma once
// `top` on the DB export: a rank's ascend_pytorch_profiler_{N}.db (or MindSpore's / CANN's
// equivalent) read as kernel_details.csv would list it — the compute kernels of
// COMPUTE_TASK_INFO x TASK with their shapes, dtypes and formats, and the collectives of
// COMMUNICATION_OP typed "hcom_allReduce_" like kernel_details.csv's HCCL rows.
//
//   std::vector<OpCall> calls; io::Diagnostics diag;
//   load_profiler_db(".../ascend_pytorch_profiler_0.db", calls, diag);

#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "top/top_profile.h"

namespace cs::top {

// The profiler database below a rank directory (its ASCEND_PROFILER_OUTPUT or itself), "" when
// none: ascend_pytorch_profiler_N.db, ascend_mindspore_profiler_N.db or msprof_*.db.
std::string profiler_db_in(const std::string& rank_dir);

// Appends the database's calls to `out`. False with an error diagnostic when the file is no
// usable database or lacks COMPUTE_TASK_INFO / TASK / STRING_IDS.
bool load_profiler_db(const std::string& path, std::vector<OpCall>& out, io::Diagnostics& diag);

}  // namespace cs::top
