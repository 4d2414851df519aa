#include "msprof_analyze/recipes/slow_link/slow_link.h"

#include <cmath>
#include <string>
#include <utility>

#include "frame/pandas_math.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "msprof_analyze/recipes/slow_link/slow_link_reduce.h"
#include "msprof_analyze/recipes/slow_link/slow_link_scan.h"

namespace cs::recipes::slow_link {

namespace {

// msprof-analyze's per-rank query (SlowLinkExport): durations in ns, the bytes an op moves from
// its element count and data type (NULL for a type not listed), no step range.
const char* kQuery =
    "SELECT si.value AS groupName, co.endNs - co.startNs AS communicationTime, "
    "sii.value AS opName, op.value AS opType, et.name AS dataType, "
    "CASE WHEN et.name = 'INT8' THEN 1 * co.count WHEN et.name = 'INT16' THEN 2 * co.count "
    "WHEN et.name = 'INT32' THEN 4 * co.count WHEN et.name = 'INT64' THEN 8 * co.count "
    "WHEN et.name = 'UINT64' THEN 8 * co.count WHEN et.name = 'UINT8' THEN 1 * co.count "
    "WHEN et.name = 'UINT16' THEN 2 * co.count WHEN et.name = 'UINT32' THEN 4 * co.count "
    "WHEN et.name = 'FP16' THEN 2 * co.count WHEN et.name = 'FP32' THEN 4 * co.count "
    "WHEN et.name = 'FP64' THEN 8 * co.count WHEN et.name = 'BFP16' THEN 2 * co.count "
    "WHEN et.name = 'INT128' THEN 16 * co.count END AS dataSize "
    "FROM COMMUNICATION_OP co CROSS JOIN STRING_IDS si ON co.groupName = si.id "
    "JOIN STRING_IDS sii ON co.opName = sii.id "
    "JOIN ENUM_HCCL_DATA_TYPE et ON co.dataType = et.id "
    "JOIN STRING_IDS op ON co.opType = op.id";

}  // namespace

bool has_z_score_outlier(const std::vector<double>& values) {
  if (values.empty()) return false;
  const double n = static_cast<double>(values.size());
  const double mean = frame::numpy_sum(values) / n;
  std::vector<double> sq(values.size());
  for (size_t i = 0; i < values.size(); ++i) sq[i] = (values[i] - mean) * (values[i] - mean);
  const double sd = std::sqrt(frame::numpy_sum(sq) / n);
  if (sd == 0) return false;
  const double high = 3 * sd + mean, low = -3 * sd + mean;
  for (double v : values)
    if (v > high || v < low) return true;
  return false;
}

bool SlowLink::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  if (!tables_present(db, paths.profiler_db,
                      {"COMMUNICATION_OP", "STRING_IDS", "ENUM_HCCL_DATA_TYPE"}, diag))
    return false;
  // Answered by its scan (slow_link_scan.h) or by SQLite (answer_query).
  frame::Frame rows;
  if (!answer_query(
          "slow_link.communication_ops",
          [&] { return scan_slow_links(db.database(), kQuery, rows); },
          [&] { return db.query(kQuery, {}, rows, "COMMUNICATION_OP", diag); }))
    return false;
  if (rows.rows() == 0) {
    diag.warn(paths.profiler_db, 0, "no rows in COMMUNICATION_OP", "this rank adds nothing");
    return false;
  }
  frame::Frame f;  // rankId first, as msprof-analyze inserts it
  f.add("rankId").cells.assign(rows.rows(), frame::Cell::integer(paths.rank));
  for (auto& c : rows.columns) f.columns.push_back(std::move(c));
  out["rows"] = std::move(f);
  return true;
}

bool SlowLink::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                      io::Diagnostics& diag) const {
  bool any = false;
  for (const RankPartial& p : parts) any = any || (p.used && has_frame(p, "rows"));
  if (!any) return true;
  if (out.export_type != ExportType::kDb) {
    diag.warn(out.cluster_output_dir, 0,
              "slow_link writes nothing for --export_type text (as msprof-analyze)",
              "run it with --export_type db for the SlowLinkSum and SlowLinkOps tables");
    return true;
  }
  // Rank by rank from the held or parked frames (slow_link_reduce.h).
  return reduce_slow_links(parts, out, diag);
}

}  // namespace cs::recipes::slow_link
