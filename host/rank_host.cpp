// read_text_host / read_db_host: a rank's host files to its HostSummary.

#include "host/rank_host.h"

#include "db/database.h"
#include "host/db_host.h"
#include "host/kineto_host.h"
#include "host/trace_host.h"
#include "readers/trace_view.h"

namespace cs::host {

bool read_text_host(const std::string& trace_view_path, HostSummary& out, io::Diagnostics& diag) {
  readers::Trace trace;
  if (!readers::read_trace_view(trace_view_path, trace, diag)) return false;
  HostInput in;
  if (!host_input_from_trace(trace, in)) return false;
  out = summarize(in);
  return true;
}

bool read_kineto_host(const std::string& trace_path, HostSummary& out, io::Diagnostics& diag) {
  readers::Trace trace;
  if (!readers::read_kineto_trace(trace_path, trace, diag)) return false;
  HostInput in;
  if (!host_input_from_kineto(trace, in)) return false;
  out = summarize(in);
  return true;
}

bool read_db_host(const std::string& db_path, HostSummary& out, io::Diagnostics& diag) {
  auto db = db::Database::open(db_path, diag);
  if (!db) return false;
  return read_db_host(*db, out, diag);
}

bool read_db_host(const db::Database& db, HostSummary& out, io::Diagnostics& diag,
                  const db::StringIds* strings) {
  HostInput in;
  if (!host_input_from_db(db, in, diag, strings)) return false;
  out = summarize(in);
  return true;
}

}  // namespace cs::host
