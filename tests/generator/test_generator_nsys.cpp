// generate --nsys-sqlite: the GPU twin agrees with the NPU side it was made from. Per rank (GPU
// device = rank): one kernel per compute task and collective of the NPU database, each joined to
// its launch; the NVTX module ranges are the NPU's mstx module ranges (same starts, same names
// once "Ascend" is removed); every thread's NVTX ranges nest (push/pop); the option needs the
// torch_npu DB export.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <utility>
#include <vector>

#include "generator/generator.h"
#include "load/discovery.h"
#include "support/test_files.h"

using namespace cs::generator;

namespace {

// The rows of a one-column or two-column query, as "a b" strings.
std::vector<std::string> rows(const std::string& path, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    std::string r;
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      const auto* t = sqlite3_column_text(st, c);
      r += (c ? " " : "") + std::string(t ? reinterpret_cast<const char*>(t) : "NULL");
    }
    out.push_back(r);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

TEST(GeneratorNsys, GpuTwinMatchesTheNpuSide) {
  cs::test::TempDir dir;
  GeneratorOptions o;
  o.ranks = 4;
  o.tp = 2;
  o.pp = 2;
  o.steps = 2;
  o.export_type = ExportKind::kDb;
  o.nsys_sqlite = (dir.path() / "gpu.sqlite").string();
  cs::io::Diagnostics diag;
  ASSERT_TRUE(generate_cluster((dir.path() / "job").string(), o, diag));
  const std::string gpu = o.nsys_sqlite;
  const auto ranks = cs::load::discover_ranks((dir.path() / "job").string()).ranks;
  ASSERT_EQ(ranks.size(), 4u);
  // Every kernel has its launch and a name.
  EXPECT_EQ(rows(gpu,
                 "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN "
                 "CUPTI_ACTIVITY_KIND_RUNTIME r USING (correlationId) LEFT JOIN StringIds s ON "
                 "s.id = k.demangledName WHERE r.start IS NULL OR s.value IS NULL OR k.end <= "
                 "k.start"),
            std::vector<std::string>{"0"});
  for (const auto& e : ranks) {
    const std::string npu = e.path + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_" +
                            std::to_string(e.rank) + ".db";
    const std::string dev = std::to_string(e.rank);
    // One kernel per device event of the NPU side (each compute task and collective).
    EXPECT_EQ(rows(gpu, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = " + dev),
              rows(npu,
                   "SELECT (SELECT COUNT(*) FROM COMPUTE_TASK_INFO) + (SELECT COUNT(*) FROM "
                   "COMMUNICATION_OP)"))
        << e.rank;
    // The module ranges: the NPU's mstx ranges of the domain Module, as NVTX ranges of the
    // device's thread.
    const std::string thread =
        "(SELECT DISTINCT r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN "
        "CUPTI_ACTIVITY_KIND_KERNEL k USING (correlationId) WHERE k.deviceId = " +
        dev + ")";
    const auto gpu_modules =
        rows(gpu,
             "SELECT n.start, s.value FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
             "WHERE n.globalTid = " +
                 thread + " ORDER BY n.start");
    auto npu_modules = rows(npu,
                            "SELECT m.startNs, REPLACE(s.value, 'Ascend', '') FROM MSTX_EVENTS m "
                            "JOIN STRING_IDS s ON s.id = m.message JOIN STRING_IDS d ON d.id = "
                            "m.domainId WHERE d.value = 'Module' ORDER BY m.startNs");
    ASSERT_FALSE(gpu_modules.empty());
    EXPECT_EQ(gpu_modules, npu_modules) << e.rank;
    // Push/pop ranges nest on every thread: each starts after, and ends before, the innermost
    // range still open.
    std::vector<std::pair<int64_t, int64_t>> open;
    for (const std::string& r : rows(gpu, "SELECT start, end FROM NVTX_EVENTS WHERE globalTid = " +
                                              thread + " ORDER BY start, end DESC")) {
      const int64_t s = std::stoll(r.substr(0, r.find(' '))), t = std::stoll(r.substr(r.find(' ')));
      while (!open.empty() && open.back().second < s) open.pop_back();
      ASSERT_TRUE(open.empty() || (open.back().first < s && t < open.back().second))
          << e.rank << " " << r;
      open.emplace_back(s, t);
    }
  }
  // Without the DB export the option is refused.
  GeneratorOptions text = o;
  text.export_type = ExportKind::kText;
  cs::io::Diagnostics d2;
  EXPECT_FALSE(generate_cluster((dir.path() / "text").string(), text, d2));
  ASSERT_FALSE(d2.items().empty());
  EXPECT_NE(d2.items().front().what.find("--nsys-sqlite"), std::string::npos);
}

}  // namespace
