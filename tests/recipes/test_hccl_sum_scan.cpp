// msprof_analyze/recipes/hccl_sum/hccl_sum_scan.h: hccl_sum's query read as table scans gives
// exactly what msprof-analyze's SQL gives on the same rows (NULL and out-of-range starts, NULL
// ends, string ids missing or NULL, texts and a number among the strings), and the scan declines
// what it cannot reproduce.
#include "msprof_analyze/recipes/hccl_sum/hccl_sum_scan.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "msprof_analyze/recipes/hccl_sum/hccl_sum.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "recipes/recipe_test_util.h"
#include "recipes/scan_test_util.h"

namespace cs::recipes {
namespace {

// The profiler's schema for the tables hccl_sum reads (as torch_npu writes them).
const char* kHcclSchema =
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
    "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId "
    "INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,retry INTEGER,dataType "
    "INTEGER,algType INTEGER,count NUMERIC,opType INTEGER, waitNs INTEGER);";

// Random rows on a small grid; some NULL, some negative starts (outside the range), some string
// ids missing; opIds out of insertion order (the scan follows the rowid).
std::string random_hccl_rows(unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto maybe_null = [&](int v) {
    return pick(0, 7) == 0 ? std::string("NULL") : std::to_string(v);
  };
  std::string sql = std::string("BEGIN;") + kHcclSchema;
  for (int i = 1; i <= 6; ++i)
    if (pick(0, 5))
      sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(i) + ", " +
             (i == 6 ? std::string("42") : "'S" + std::to_string(i) + "'") + ");";
  const int ops = pick(0, 40);
  for (int i = 0; i < ops; ++i) {
    const int s = pick(-3, 20);
    sql +=
        "INSERT INTO COMMUNICATION_OP (opId, opName, startNs, endNs, groupName, opType) "
        "VALUES (" +
        std::to_string(pick(0, 1000) * 50 + i) + "," + maybe_null(pick(1, 7)) + "," +
        maybe_null(s) + "," + maybe_null(s + pick(-2, 9)) + "," + maybe_null(pick(1, 7)) + "," +
        maybe_null(pick(1, 7)) + ");";
  }
  return sql + "COMMIT;";
}

TEST(HcclSumScan, RowsEqualTheSqlOnRandomRows) {
  for (unsigned seed = 1; seed <= 150; ++seed) {
    ScratchProfilerDb t("hccl-scan");
    t.exec(random_hccl_rows(seed));
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    ASSERT_TRUE(db.ok());
    frame::Frame want, got;
    ASSERT_TRUE(db.query(hccl_sum::hccl_sum_sql(), {0, kMaxNs}, want, "COMMUNICATION_OP", diag));
    ASSERT_TRUE(hccl_sum::scan_hccl_ops(db.database(), hccl_sum::hccl_sum_sql(), 0, kMaxNs, got))
        << "seed " << seed;
    expect_same_frame(got, want, seed);
  }
}

TEST(HcclSumScan, DeclinesWhatItCannotReproduce) {
  auto declines = [](const std::string& rows, const char* what) {
    ScratchProfilerDb t("hccl-decline");
    t.exec(rows);
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    frame::Frame got;
    EXPECT_FALSE(hccl_sum::scan_hccl_ops(db.database(), hccl_sum::hccl_sum_sql(), 0, kMaxNs, got))
        << what;
  };
  declines(random_hccl_rows(3) + "CREATE INDEX ix ON COMMUNICATION_OP (startNs);",
           "an index on startNs: another plan");
  declines(random_hccl_rows(3) + "INSERT INTO COMMUNICATION_OP (startNs, endNs) VALUES (1, 2.5);",
           "a real end");
  declines(random_hccl_rows(3) + "INSERT INTO COMMUNICATION_OP (startNs, opType) VALUES (1, 'x');",
           "a text string id");
  declines(random_hccl_rows(3) +
               "INSERT INTO COMMUNICATION_OP (startNs, endNs) VALUES (1, 4503599627370497);",
           "a duration round() may change");
}

}  // namespace
}  // namespace cs::recipes
