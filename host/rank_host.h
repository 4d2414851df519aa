#pragma once
// One rank's host summary from the files its export holds: trace_view.json (text export) or
// ascend_pytorch_profiler_N.db (DB export). Problems go to `diag` (file, what to do); the
// caller keeps analysing the other ranks.

#include <string>

#include "db/database.h"
#include "db/string_ids.h"
#include "host/host_summary.h"
#include "io/diagnostics.h"

namespace cs::host {

// From ASCEND_PROFILER_OUTPUT/trace_view.json. False when it cannot be read or has no host
// operators (then `out` is left empty).
bool read_text_host(const std::string& trace_view_path, HostSummary& out, io::Diagnostics& diag);

// From a PyTorch Kineto trace (.json or .json.gz). False as above.
bool read_kineto_host(const std::string& trace_path, HostSummary& out, io::Diagnostics& diag);

// From the profiler database at `db_path`. False as above.
bool read_db_host(const std::string& db_path, HostSummary& out, io::Diagnostics& diag);
// From a profiler database already open; `strings`, when not null, its STRING_IDS already
// loaded. False as above.
bool read_db_host(const db::Database& db, HostSummary& out, io::Diagnostics& diag,
                  const db::StringIds* strings = nullptr);

}  // namespace cs::host
