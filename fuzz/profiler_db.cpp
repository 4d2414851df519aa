// Harness: ascend_pytorch_profiler_N.db, opened read-only like rank_parser_db does, then every
// table the loader reads from it.
#include <optional>
#include <vector>

#include "db/database.h"
#include "db/profiler_db.h"
#include "db/string_ids.h"
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"

namespace cs::fuzz {

int profiler_db(const uint8_t* data, size_t size) {
  const std::string& path = write_temp_input("ascend_pytorch_profiler_0.db", data, size);
  io::Diagnostics diag;
  std::optional<db::Database> db = db::Database::open(path, diag);
  if (!db) return 0;
  std::vector<db::StepTime> steps;
  db::read_step_time(*db, steps, diag);
  readers::ProfilerMetadata meta;
  db::read_meta_data(*db, meta, diag);
  (void)db::read_rank_device_map(*db, diag);
  db::StringIds strings;
  if (strings.load(*db, diag)) {
    size_t kernels = 0;
    db::read_compute_kernels(
        *db, strings, [&](const readers::KernelRecord&) { ++kernels; }, diag);
  }
  return 0;
}

}  // namespace cs::fuzz
