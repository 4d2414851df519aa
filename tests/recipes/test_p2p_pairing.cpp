// The p2p_pairing recipe.
// - connection_ids: the n of "<domain>_<src>_<dst>_<n>" counts earlier ops of the same pair by
//   start, worked out by hand.
// - Golden: `cluster -m p2p_pairing` on `generate JOB --ranks 4 --pp 4 --steps 2 --notify-tasks
//   --export-type db` writes a copy of each rank's database whose COMMUNICATION_OP (schema and
//   rows, opConnectionId included) is exactly what msprof-analyze 8399c1cd wrote into that rank's
//   database in place (tests/data/generated-db/pp4_p2p_pairing/rank_N.txt; tests/data/SOURCES.md),
//   every other table as the input's; the input is left untouched; both export types and mpirun
//   -np 1, 2 and 4 write the same bytes.
// - Both sides of every pair carry the same id, the sender's as "send", the receiver's as
//   "receive".
// - The task query answered from the pages gives the same copies as SQLite (CS_RECIPE_SCANS=off).
// - A job without notify tasks gets nothing and says what to profile.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/p2p_pairing/p2p_pairing.h"
#include "recipes/rank_copy_test_util.h"
#include "recipes/recipe_cli_test_util.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::recipes::p2p_pairing::connection_ids;
using cs::recipes::p2p_pairing::P2POp;
using cs::test::dump_table;
using cs::test::rank_db;

namespace {

const fs::path& p2p_scratch() {
  static const cs::test::ScratchDir dir("p2p-pairing");
  return dir.path();
}

fs::path generate_p2p_job(const std::string& name, const std::string& args) {
  return cs::test::generate_job(p2p_scratch() / name,
                                "--ranks 4 --pp 4 --steps 2 --export-type db " + args);
}

const fs::path& p2p_job() {
  static const fs::path j = generate_p2p_job("pp4", "--notify-tasks");
  return j;
}

fs::path run_p2p(const fs::path& input, const std::string& launcher, const std::string& name,
                 const std::string& type, int expected_rc = 0) {
  return cs::test::run_recipe(input, p2p_scratch() / name, "p2p_pairing", type, launcher,
                              expected_rc);
}

fs::path run_p2p_ok(const std::string& launcher, const std::string& name, const std::string& type) {
  return run_p2p(p2p_job(), launcher, name, type);
}

// Every table but COMMUNICATION_OP.
std::string dump_others(const fs::path& db) {
  std::string all = cs::test::dump_sqlite(db);
  const std::string t = dump_table(db, "COMMUNICATION_OP");
  const size_t create = all.find(t.substr(0, t.find('\n') + 1));
  if (create != std::string::npos) all.erase(create, t.find('\n') + 1);
  const size_t rows = all.find("== COMMUNICATION_OP\n");
  const size_t end = all.find("\n== ", rows + 1);
  if (rows != std::string::npos) all.erase(rows, end == std::string::npos ? end : end - rows + 1);
  return all;
}

TEST(P2PPairing, ConnectionIdsCountEarlierOpsOfThePair) {
  const std::vector<P2POp> ops = {{"hcom_send__321_0_1", 5, 300, 0, 1},
                                  {"hcom_send__321_1_1", 6, 100, 0, 1},
                                  {"hcom_receive__321_2_1", 7, 200, 1, 0},
                                  {"hcom_send__321_3_1", 8, 100, 0, 1}};
  // By start: op 1 (100) and op 3 (100, after op 1: stable), op 2, op 0.
  EXPECT_EQ(connection_ids(ops),
            (std::vector<std::string>{"321_0_1_2", "321_0_1_0", "321_1_0_0", "321_0_1_1"}));
}

TEST(P2PPairing, MatchesMsprofAnalyzeAtAnyProcessCountAndLeavesTheInput) {
  std::map<int, std::string> before;
  for (int r = 0; r < 4; ++r) before[r] = cs::test::dump_sqlite(rank_db(p2p_job(), r));
  const fs::path single = run_p2p_ok("", "nolauncher", "db");
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / "pp4_p2p_pairing";
  for (int r = 0; r < 4; ++r) {
    const fs::path got = rank_db(single / "P2PPairing", r);
    ASSERT_FALSE(got.empty()) << "rank " << r;
    EXPECT_EQ(fs::relative(got, single / "P2PPairing"),
              fs::relative(rank_db(p2p_job(), r), p2p_job()));
    EXPECT_EQ(dump_table(got, "COMMUNICATION_OP"),
              cs::test::read_file(ref / ("rank_" + std::to_string(r) + ".txt")))
        << "rank " << r;
    EXPECT_EQ(dump_others(got), dump_others(rank_db(p2p_job(), r))) << "rank " << r;
    EXPECT_EQ(cs::test::dump_sqlite(rank_db(p2p_job(), r)), before[r]) << "input of rank " << r;
  }
  const auto expected = cs::test::read_tree(single);
  // The same databases (the run's list of the files it wrote names the staged database each
  // export type began and dropped).
  auto databases = [](std::map<std::string, std::string> tree) {
    std::erase_if(tree, [](const auto& f) { return !f.first.ends_with(".db"); });
    return tree;
  };
  EXPECT_EQ(databases(expected).size(), 4u);
  EXPECT_TRUE(databases(cs::test::read_tree(run_p2p_ok("", "text", "text"))) ==
              databases(expected));
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(
                    run_p2p_ok(cs::test::mpirun(np), "np" + std::to_string(np), "db")) == expected)
        << "np=" << np;
}

TEST(P2PPairing, BothSidesOfEveryPairCarryOneId) {
  const fs::path out = run_p2p_ok("", "pairs", "db") / "P2PPairing";
  std::map<std::string, std::vector<std::string>> sides;  // id -> op names
  for (int r = 0; r < 4; ++r) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(rank_db(out, r).c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
              SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db,
                                 "SELECT s.value, c.opConnectionId FROM COMMUNICATION_OP c JOIN "
                                 "STRING_IDS s ON s.id = c.opName",
                                 -1, &st, nullptr),
              SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
      const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      const bool p2p =
          name.find("send") != std::string::npos || name.find("receive") != std::string::npos;
      EXPECT_EQ(sqlite3_column_type(st, 1) != SQLITE_NULL, p2p) << name;
      if (p2p) sides[reinterpret_cast<const char*>(sqlite3_column_text(st, 1))].push_back(name);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  // 3 stage boundaries x (forward + backward) x 2 micro-batches x 2 steps.
  EXPECT_EQ(sides.size(), 24u);
  for (const auto& [id, names] : sides) {
    ASSERT_EQ(names.size(), 2u) << id;
    EXPECT_NE(names[0].find("send") == std::string::npos,
              names[1].find("send") == std::string::npos)
        << id;
  }
}

TEST(P2PPairing, WalContentIsInTheCopyAndTheInputKeepsItsWal) {
  const fs::path j = generate_p2p_job("wal", "--notify-tasks");
  const fs::path in = rank_db(j, 1);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(in.c_str(), &db), SQLITE_OK);
  sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  ASSERT_EQ(sqlite3_exec(db,
                         "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;"
                         "INSERT INTO STRING_IDS VALUES (999999, 'only_in_wal');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  ASSERT_GT(fs::file_size(in.string() + "-wal"), 0u);
  const fs::path out = run_p2p(j, "", "wal-out", "db");
  const fs::path copy = rank_db(out / "P2PPairing", 1);
  EXPECT_EQ(cs::test::dump_query(copy, "PRAGMA journal_mode"), "t:delete\n");
  EXPECT_EQ(cs::test::dump_query(copy, "SELECT value FROM STRING_IDS WHERE id = 999999"),
            "t:only_in_wal\n");
  EXPECT_EQ(dump_table(copy, "COMMUNICATION_OP"),
            cs::test::read_file(fs::path(CS_TEST_DATA) / "generated-db" / "pp4_p2p_pairing" /
                                "rank_1.txt"));
  EXPECT_FALSE(fs::exists(copy.string() + "-wal"));
  EXPECT_GT(fs::file_size(in.string() + "-wal"), 0u);
}

TEST(P2PPairing, NoNotifyTasksNoOutput) {
  const fs::path plain = generate_p2p_job("plain", "");
  const fs::path out = run_p2p(plain, "", "plain-out", "db", 1);
  EXPECT_NE(cs::test::read_file(p2p_scratch() / "plain-out.log").find("Notify_Record"),
            std::string::npos)
      << cs::test::read_file(p2p_scratch() / "plain-out.log");
  EXPECT_TRUE(rank_db(out, 0).empty());
}

// The task query is answered from the pages (p2p_scan.h) on every rank, and the copies are the
// same bytes as with the scans off (CS_RECIPE_SCANS=off: SQLite answers it).
TEST(P2PPairing, ScanGivesTheSqlOutputs) {
  cs::test::expect_scan_matches_sql(p2p_job(), p2p_scratch() / "scan", "p2p_pairing", "db",
                                    {{"p2p_pairing.tasks", 4}});
}

}  // namespace
