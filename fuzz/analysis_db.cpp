// Harness: analysis.db, opened read-only like rank_parser_db does, then every table the loader
// reads from it.
#include <optional>

#include "db/analysis_db.h"
#include "db/database.h"
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"

namespace cs::fuzz {

int analysis_db(const uint8_t* data, size_t size) {
  const std::string& path = write_temp_input("analysis.db", data, size);
  io::Diagnostics diag;
  std::optional<db::Database> db = db::Database::open(path, diag);
  if (!db) return 0;
  readers::StepTraceFile steps;
  db::read_step_trace_db(*db, steps, diag);
  readers::CommunicationFile comm;
  db::read_communication_db(*db, comm, diag);
  readers::MatrixFile matrix;
  db::read_matrix_db(*db, matrix, diag);
  return 0;
}

}  // namespace cs::fuzz
