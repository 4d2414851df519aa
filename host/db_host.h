#pragma once
// The host input of a rank from its DB export (ascend_pytorch_profiler_N.db): PYTORCH_API's
// operators (type "op" in ENUM_API_TYPE), their device tasks through CONNECTION_IDS (an
// operator's connectionId is an id there; its rows' connectionIds are TASK's, or
// COMMUNICATION_OP's for a collective, whose own tasks are then not counted again), the launching
// CANN_API call (same connectionId as the task), host ranges by cause from CANN_API and
// PYTORCH_API names, OVERLAP_ANALYSIS's Free intervals and STEP_TIME. Names from STRING_IDS.

#include "db/database.h"
#include "db/string_ids.h"
#include "host/host_input.h"
#include "io/diagnostics.h"

namespace cs::host {

// Fills `out` from an open profiler database. Returns false (with an error naming the file and
// table in `diag`) when PYTORCH_API or another needed table is missing or unreadable. `strings`,
// when not null, is the database's STRING_IDS already loaded (without a diagnostic), not read
// again.
bool host_input_from_db(const db::Database& db, HostInput& out, io::Diagnostics& diag,
                        const db::StringIds* strings = nullptr);

}  // namespace cs::host
