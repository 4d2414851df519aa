#pragma once
// The per-rank queries of module_statistic (and of operator_mfu, which runs the same SQL in
// msprof-analyze): the module ranges (mstx ranges in the domain "Module"), the device rows of each
// kernel table with the framework op (PYTORCH_API) that launched them, and the forward/backward
// op links; and a time as the recipes read it.

#include <cstdint>
#include <string>
#include <string_view>

#include "frame/frame.h"

namespace cs::recipes::module_statistic {

// Module ranges: startNs, endNs and the message's text, ordered by start.
extern const char* const kModulesSql;

// Forward ops and the backward ops autograd linked to them (CONNECTION_IDS ids sharing a
// connectionId): the forward op's name, start and end, the backward op's start and end.
extern const char* const kFwdBwdSql;

// The kernel tables kernel_query() reads, in the order their rows are concatenated.
inline constexpr const char* kKernelTables[] = {"COMPUTE_TASK_INFO", "COMMUNICATION_OP",
                                                "COMMUNICATION_SCHEDULE_TASK_INFO"};

// The device rows of a compute table (COMPUTE_TASK_INFO, COMMUNICATION_SCHEDULE_TASK_INFO) or of
// COMMUNICATION_OP, each with the framework op that launched it: name, kernel_ts, kernel_end,
// op_name, op_ts, op_end, ordered by (op_ts, kernel_ts).
std::string kernel_query(const std::string& table);

// A time as msprof-analyze reads it (pd.to_numeric, errors coerced, NaN to 0, as int64):
// torch_npu stores PYTORCH_API's times as text. time_ns_text is the text case.
int64_t time_ns(const frame::Cell& v);
int64_t time_ns_text(std::string_view t);

}  // namespace cs::recipes::module_statistic
