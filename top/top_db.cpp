#include "top/top_db.h"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "db/database.h"
#include "db/profiler_db.h"
#include "db/string_ids.h"
#include "top/top_cost.h"
#include "top/top_formats.h"

namespace cs::top {

namespace fs = std::filesystem;

namespace {

bool is_profiler_db_name(const std::string& n) {
  return n.ends_with(".db") &&
         (n.starts_with("ascend_pytorch_profiler") || n.starts_with("ascend_mindspore_profiler") ||
          n.starts_with("msprof_"));
}

}  // namespace

std::string profiler_db_in(const std::string& rank_dir) {
  std::vector<std::string> found;
  for (const fs::path& dir : {fs::path(rank_dir) / "ASCEND_PROFILER_OUTPUT", fs::path(rank_dir)}) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec) && is_profiler_db_name(it->path().filename().string()))
        found.push_back(it->path().string());
    if (!found.empty()) break;
  }
  std::sort(found.begin(), found.end());
  return found.empty() ? std::string() : found.front();
}

bool load_profiler_db(const std::string& path, std::vector<OpCall>& out, io::Diagnostics& diag) {
  std::optional<db::Database> database = db::Database::open(path, diag);
  if (!database) return false;
  db::StringIds strings;
  if (!strings.load(*database, diag)) return false;
  const bool kernels_ok = db::read_compute_kernels(
      *database, strings,
      [&](const readers::KernelRecord& k) {
        OpCall c;
        c.name = std::string(k.name);
        c.type = std::string(k.type);
        c.input_shapes = std::string(k.input_shapes);
        c.input_dtypes = std::string(k.input_dtypes);
        c.output_shapes = std::string(k.output_shapes);
        c.dur_us = k.duration_us;
        const auto in = parse_shapes(k.input_shapes), outs = parse_shapes(k.output_shapes);
        c.flops = estimate_flops_with_formats(k.type, in, k.input_formats, outs, k.output_formats);
        c.bytes = estimate_bytes(in, k.input_dtypes, outs, "");
        out.push_back(std::move(c));
      },
      diag);
  if (!kernels_ok) return false;
  return db::read_communication_ops(
      *database, strings,
      [&](const db::CommunicationOp& op) {
        OpCall c;
        c.name = std::string(op.name);
        // Level0 exports type every collective "N/A": typed from the name as kernel_details.csv
        // types it.
        c.type = op.type.empty() || op.type == "N/A" ? hcom_type(op.name) : std::string(op.type);
        c.dur_us = op.duration_us;
        c.flops = std::numeric_limits<double>::quiet_NaN();
        c.bytes = std::numeric_limits<double>::quiet_NaN();
        out.push_back(std::move(c));
      },
      diag);
}

}  // namespace cs::top
