// analysis.db and ascend_pytorch_profiler_N.db readers on the real db_level1 sample, checked
// against msprof-analyze's own reading of the same files (its cluster_analysis.db, copied to
// tests/data/ascend-real/msprof-analyze-ref/db_level1__all/): every per-op row of its
// ClusterCommunicationTime, every row of ClusterStepTraceTime, the row counts of its bandwidth and
// matrix tables. Kernel counts were read with the sqlite3 shell:
//   sqlite3 ascend_pytorch_profiler_0.db "select count(*) from COMPUTE_TASK_INFO c join TASK t
//     on t.globalTaskId=c.globalTaskId"                                            -> 187
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "db/analysis_db.h"
#include "db/profiler_db.h"

using cs::db::Database;
using cs::db::StepResult;

namespace {

const std::string kData = CS_TEST_DATA;
std::string analysis_db(int rank) {
  return kData + "/ascend-real/db_level1/rank" + std::to_string(rank) +
         "_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db";
}
std::string profiler_db(int rank) {
  return kData + "/ascend-real/db_level1/rank" + std::to_string(rank) +
         "_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_" + std::to_string(rank) +
         ".db";
}
const std::string kRef =
    kData + "/ascend-real/msprof-analyze-ref/db_level1__all/cluster_analysis.db";

Database open_or_die(const std::string& path) {
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  EXPECT_TRUE(db) << path;
  return std::move(*db);
}

}  // namespace

TEST(AnalysisDb, CommunicationEqualsMsprofAnalyzeRows) {
  Database ref = open_or_die(kRef);
  cs::io::Diagnostics diag;
  auto st = ref.prepare(
      "SELECT rank_id, step, hccl_op_name, group_name, start_timestamp, elapsed_time, "
      "transit_time, wait_time, synchronization_time, idle_time FROM ClusterCommunicationTime "
      "WHERE hccl_op_name != 'Total Op Info'",
      "ClusterCommunicationTime", diag);
  ASSERT_TRUE(st);
  std::map<int, cs::readers::CommunicationFile> files;
  for (int r : {0, 1}) {
    Database db = open_or_die(analysis_db(r));
    ASSERT_TRUE(cs::db::read_communication_db(db, files[r], diag));
  }
  ASSERT_TRUE(diag.empty());
  std::map<int, size_t> next;
  int rows = 0;
  while (st->step(diag) == StepResult::kRow) {
    ++rows;
    int rank = static_cast<int>(*st->int64_at(0));
    const auto& f = files[rank];
    ASSERT_EQ(f.steps.size(), 1u);
    EXPECT_EQ(f.steps[0].step, st->text_at(1));
    const auto& op = f.steps[0].collective.at(next[rank]++);
    EXPECT_EQ(op.op_name(), st->text_at(2));
    EXPECT_EQ(op.group(), st->text_at(3));
    const int fields[] = {cs::readers::kStartTimestampUs, cs::readers::kElapseTimeMs,
                          cs::readers::kTransitTimeMs,    cs::readers::kWaitTimeMs,
                          cs::readers::kSyncTimeMs,       cs::readers::kIdleTimeMs};
    for (int i = 0; i < 6; ++i) {
      ASSERT_TRUE(op.time.has(fields[i]));
      EXPECT_EQ(op.time.get(fields[i]), *st->double_at(4 + i)) << op.name << " field " << i;
    }
    // The producer's per-op ratio, round(wait / (wait + transit), 4).
    double w = op.time.get(cs::readers::kWaitTimeMs), t = op.time.get(cs::readers::kTransitTimeMs);
    EXPECT_NEAR(op.time.get(cs::readers::kWaitTimeRatio), w / (w + t), 5e-5);
  }
  EXPECT_EQ(rows, 8);
  EXPECT_EQ(next[0], 4u);
  EXPECT_EQ(next[1], 4u);
  EXPECT_TRUE(files[0].steps[0].p2p.empty());
}

TEST(AnalysisDb, BandwidthRowsBecomeTransportsAndBuckets) {
  // rank 0, hcom_allReduce__210_0_1: HCCS rows (2.064384 MB x 12, 1.937312 MB x 2) and one SDMA
  // row of zeros (no packets) -> HCCS with two buckets, SDMA with an empty distribution.
  Database db = open_or_die(analysis_db(0));
  cs::io::Diagnostics diag;
  cs::readers::CommunicationFile f;
  ASSERT_TRUE(cs::db::read_communication_db(db, f, diag));
  const auto& op = f.steps[0].collective[0];
  EXPECT_EQ(op.name, "hcom_allReduce__210_0_1@17148521525495523210");
  ASSERT_EQ(op.transports.size(), 2u);
  EXPECT_EQ(op.transports[0].name.view(), "HCCS");
  EXPECT_DOUBLE_EQ(op.transports[0].get(cs::readers::kTrSizeMb), 28.647232);
  EXPECT_DOUBLE_EQ(op.transports[0].get(cs::readers::kTrBandwidthGbps), 15.7239);
  auto hccs = op.size_distribution(op.transports[0]);
  ASSERT_EQ(hccs.size(), 2u);
  EXPECT_EQ(hccs[0].size_key, "2.064384");
  EXPECT_EQ(hccs[0].count.v, 12);
  EXPECT_TRUE(hccs[0].count.is_int);
  EXPECT_DOUBLE_EQ(hccs[0].duration_ms.v, 1.58139153125);
  EXPECT_EQ(hccs[1].size_key, "1.937312");
  EXPECT_EQ(op.transports[1].name.view(), "SDMA");
  EXPECT_TRUE(op.transports[1].has_size_distribution);
  EXPECT_TRUE(op.size_distribution(op.transports[1]).empty());
  // Bucket rows in the whole file: 12 bandwidth rows, of which the zero rows carry no bucket.
  size_t buckets = 0;
  for (const auto& o : f.steps[0].collective) buckets += o.buckets.size();
  auto st = db.prepare("SELECT count(*) FROM CommAnalyzerBandwidth WHERE count > 0",
                       "CommAnalyzerBandwidth", diag);
  ASSERT_EQ(st->step(diag), StepResult::kRow);
  EXPECT_EQ(static_cast<int64_t>(buckets), *st->int64_at(0));
}

TEST(AnalysisDb, MatrixRowsKeepKeysAndLinks) {
  Database db = open_or_die(analysis_db(1));
  cs::io::Diagnostics diag;
  cs::readers::MatrixFile m;
  ASSERT_TRUE(cs::db::read_matrix_db(db, m, diag));
  ASSERT_EQ(m.steps.size(), 1u);
  size_t links = 0;
  for (const auto& op : m.steps[0].collective) {
    EXPECT_EQ(op.group(), "17148521525495523210");
    links += op.links.size();
  }
  EXPECT_EQ(links, 48u);  // sqlite3: select count(*) from CommAnalyzerMatrix -> 48
  const auto& op0 = m.steps[0].collective[0];
  EXPECT_EQ(op0.key, "allreduce-top1@17148521525495523210");
  const auto& l = op0.links[0];
  EXPECT_EQ(m.link_key(l), std::to_string(l.src_local) + "-" + std::to_string(l.dst_local));
  EXPECT_TRUE(l.has_op_name);
  EXPECT_FALSE(l.has(cs::readers::kLinkUtilization));  // the DB has no utilization
  EXPECT_TRUE(diag.empty());
}

TEST(AnalysisDb, StepTraceEqualsMsprofAnalyzeRows) {
  Database ref = open_or_die(kRef);
  cs::io::Diagnostics diag;
  auto st = ref.prepare("SELECT * FROM ClusterStepTraceTime WHERE type = 'rank' ORDER BY \"index\"",
                        "ClusterStepTraceTime", diag);
  ASSERT_TRUE(st);
  for (int r : {0, 1}) {
    ASSERT_EQ(st->step(diag), StepResult::kRow);
    Database db = open_or_die(analysis_db(r));
    cs::readers::StepTraceFile f;
    ASSERT_TRUE(cs::db::read_step_trace_db(db, f, diag));
    ASSERT_EQ(f.rows.size(), 1u);
    ASSERT_EQ(f.columns.size(), 9u);
    EXPECT_EQ(f.columns[0], "Computing");
    EXPECT_EQ(f.columns[8], "Preparing");
    EXPECT_EQ(f.rows[0].step, st->text_at(0));
    for (int c = 0; c < 9; ++c) EXPECT_EQ(f.rows[0].values[c], *st->double_at(3 + c)) << c;
  }
  EXPECT_TRUE(diag.empty());
}

TEST(ProfilerDb, ComputeKernelsWithNamesStepsAndDurations) {
  Database db = open_or_die(profiler_db(0));
  cs::io::Diagnostics diag;
  cs::db::StringIds ids;
  ASSERT_TRUE(ids.load(db, diag));
  int n = 0, in_step = 0;
  double last_start = 0;
  std::map<std::string, int> types;
  ASSERT_TRUE(cs::db::read_compute_kernels(
      db, ids,
      [&](const cs::readers::KernelRecord& k) {
        ++n;
        in_step += k.step_id == 50;
        EXPECT_GE(k.start_us, last_start);
        last_start = k.start_us;
        EXPECT_GE(k.duration_us, 0);
        EXPECT_FALSE(k.name.empty());
        ++types[std::string(k.type)];
      },
      diag));
  EXPECT_EQ(n, 187);
  EXPECT_EQ(in_step, 187);  // STEP_TIME: step 50 covers the whole capture
  EXPECT_GT(types["TransData"], 0);
  EXPECT_TRUE(diag.empty());
}

// An endNs so far from startNs that endNs - startNs does not fit in 64 bits (found by the
// profiler_db fuzzer: signed overflow) is a bad endNs: the row is left out, one error counts it.
TEST(ProfilerDb, DurationsBeyondInt64AreBadCellsNotOverflows) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cs-db-span-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path copy = dir / "ascend_pytorch_profiler_0.db";
  std::filesystem::copy_file(profiler_db(0), copy,
                             std::filesystem::copy_options::overwrite_existing);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(copy.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "UPDATE TASK SET endNs = -9223372036854775807 - 1 WHERE globalTaskId = "
                         "(SELECT min(globalTaskId) FROM COMPUTE_TASK_INFO)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  Database db = open_or_die(copy.string());
  cs::io::Diagnostics diag;
  cs::db::StringIds ids;
  ASSERT_TRUE(ids.load(db, diag));
  int n = 0;
  ASSERT_TRUE(cs::db::read_compute_kernels(
      db, ids, [&](const cs::readers::KernelRecord&) { ++n; }, diag));
  EXPECT_EQ(n, 186);  // 187 in the file, one with the impossible endNs left out
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_NE(diag.items()[0].what.find("TASK.endNs: 1"), std::string::npos) << diag.items()[0].what;
  EXPECT_NE(diag.items()[0].what.find("out-of-range"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ProfilerDb, MetaDataAndRankDeviceMap) {
  Database db = open_or_die(profiler_db(1));
  cs::io::Diagnostics diag;
  cs::readers::ProfilerMetadata meta;
  // This producer's META_DATA has no distributed_args or parallel_group_info.
  EXPECT_FALSE(cs::db::read_meta_data(db, meta, diag));
  auto map = cs::db::read_rank_device_map(db, diag);
  ASSERT_EQ(map.size(), 1u);
  EXPECT_EQ(map[0].first, 1);
  EXPECT_EQ(map[0].second, 1);
  std::vector<cs::db::StepTime> steps;
  ASSERT_TRUE(cs::db::read_step_time(db, steps, diag));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].id, 50);
  EXPECT_TRUE(diag.empty());
}
