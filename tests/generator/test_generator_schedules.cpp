// The generator's pipeline schedule and device-bound options.
// - --slow-device R:FACTOR: checked like --slow-rank (range, once); rank R's host runs the full
//   launch queue (kDeviceBoundLeadUs) ahead of its kernels, which run FACTOR times longer than on
//   a rank of the same stage; a rank whose host is slow keeps the host-limited lead.
// - --pp-schedule dualpipev: refused without --mstx-passes on a db export or with fewer than
//   2 * pp micro-batches; the database of each rank holds META_DATA pp_info and, per step, one
//   mstx range per block of its stage's DualPipeV schedule (18 on stage 0, 13 on stage 1 for pp 2
//   and 4 micro-batches), each tied to a device task, in start order, never overlapping, all
//   inside the step, with the messages of pipeline/dualpipev.h.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "generator/generator.h"
#include "generator/job/host_model.h"
#include "generator/job/simulation.h"
#include "generator/job/writers.h"
#include "pipeline/dualpipev.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using namespace cs::generator;

namespace {

GeneratorOptions job(int ranks, int pp) {
  GeneratorOptions o;
  o.ranks = ranks;
  o.pp = pp;
  o.steps = 2;
  o.seed = 7;
  return o;
}

TEST(SlowDevice, ValidationAndLaunchLead) {
  auto o = job(8, 2);
  o.slow_devices = {{8, 1.5}};
  cs::io::Diagnostics d1;
  EXPECT_FALSE(validate_options(o, d1));
  EXPECT_NE(d1.items().back().what.find("--slow-device 8 is out of range"), std::string::npos);
  o.slow_devices = {{5, 1.5}, {5, 2.0}};
  cs::io::Diagnostics d2;
  EXPECT_FALSE(validate_options(o, d2));
  o.slow_devices = {{5, 1.5}};
  o.slow_hosts = {{6, 50.0}};
  cs::io::Diagnostics d3;
  EXPECT_TRUE(validate_options(o, d3));
  EXPECT_EQ(launch_lead_us(o, 5), kDeviceBoundLeadUs);
  EXPECT_EQ(launch_lead_us(o, 4), kLaunchLeadUs);
  EXPECT_EQ(launch_lead_us(o, 6), kHostLimitedLeadUs);
}

TEST(SlowDevice, KernelsRunLongerOnTheSlowDevice) {
  auto o = job(8, 2);
  o.slow_devices = {{5, 1.5}};
  const Topology t = build_topology(o.ranks, o.tp, o.pp, o.seed);
  const SimulationResult r = simulate(o, t);
  auto busy = [&](int rank) {
    double us = 0;
    for (const KernelEvent& k : r.ranks[static_cast<size_t>(rank)].kernels) us += k.dur_us;
    return us;
  };
  // Ranks 4 and 5 are in stage 1 and run the same kernels; jitter is a few percent.
  EXPECT_NEAR(busy(5) / busy(4), 1.5, 0.05);
}

TEST(DualPipeVSchedule, Validation) {
  auto o = job(4, 2);
  o.microbatches = 4;
  o.pp_schedule = PpSchedule::kDualPipeV;
  cs::io::Diagnostics d1;
  EXPECT_FALSE(validate_options(o, d1));  // text export, no --mstx-passes
  EXPECT_NE(d1.items().back().hint.find("--mstx-passes --export-type db"), std::string::npos);
  o.mstx_passes = true;
  o.export_type = ExportKind::kDb;
  cs::io::Diagnostics d2;
  EXPECT_TRUE(validate_options(o, d2));
  o.microbatches = 3;
  cs::io::Diagnostics d3;
  EXPECT_FALSE(validate_options(o, d3));
  EXPECT_NE(d3.items().back().hint.find("--microbatches 4"), std::string::npos);
}

struct Range {
  int64_t start, end, host_start;
  std::string msg;
  int64_t step;
};

std::vector<Range> pass_ranges(const fs::path& db_path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  const char* sql =
      "SELECT t.startNs, t.endNs, m.startNs, s.value, st.id FROM MSTX_EVENTS m "
      "JOIN TASK t ON t.connectionId = m.connectionId JOIN STRING_IDS s ON s.id = m.message "
      "LEFT JOIN STEP_TIME st ON m.startNs >= st.startNs AND m.endNs <= st.endNs "
      "WHERE s.value LIKE '%forward%' OR s.value LIKE '%backward%' ORDER BY t.startNs";
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::vector<Range> out;
  while (sqlite3_step(st) == SQLITE_ROW)
    out.push_back({sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                   sqlite3_column_int64(st, 2),
                   reinterpret_cast<const char*>(sqlite3_column_text(st, 3)),
                   sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4)});
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

std::string pp_info(const fs::path& db_path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT value FROM META_DATA WHERE name = 'pp_info'", -1, &st, nullptr);
  std::string v = sqlite3_step(st) == SQLITE_ROW
                      ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0))
                      : "(none)";
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

TEST(DualPipeVSchedule, RangesFollowEachStagesBlocks) {
  cs::test::TempDir dir("dualpipev_job");
  auto o = job(4, 2);
  o.microbatches = 4;
  o.pp_schedule = PpSchedule::kDualPipeV;
  o.mstx_passes = true;
  o.export_type = ExportKind::kDb;
  cs::io::Diagnostics diag;
  ASSERT_TRUE(generate_cluster(dir.str(), o, diag));
  const auto schedule = cs::pipeline::dualpipev_schedule(2, 4);
  int found = 0;
  for (const auto& f : fs::recursive_directory_iterator(dir.path())) {
    const std::string name = f.path().filename().string();
    if (name.rfind("ascend_pytorch_profiler_", 0) != 0) continue;
    const int rank = std::stoi(name.substr(24));
    const auto& blocks = schedule.blocks[static_cast<size_t>(rank / 2)];  // tp 1, dp 2
    ++found;
    EXPECT_EQ(pp_info(f.path()), "{\"microbatch_num\": 4, \"pp_type\": \"dualpipev\"}");
    const auto ranges = pass_ranges(f.path());
    ASSERT_EQ(ranges.size(), 2 * blocks.size()) << name;  // two steps
    for (size_t i = 0; i < ranges.size(); ++i) {
      const Range& r = ranges[i];
      EXPECT_EQ(r.msg, cs::pipeline::block_message(blocks[i % blocks.size()])) << name << " " << i;
      EXPECT_EQ(r.step, static_cast<int64_t>(i / blocks.size()) + 1) << name << " " << i;
      EXPECT_LT(r.host_start, r.start);  // recorded on the host ahead of the device
      EXPECT_LT(r.start, r.end);
      if (i > 0) {
        EXPECT_GT(r.start, ranges[i - 1].end) << name << " " << i;
      }
    }
  }
  EXPECT_EQ(found, 4);
}

}  // namespace
