// The pp_chart recipe (1F1B naming).
// - pass_name: "forward" in any case is FP, anything else BP.
// - Golden: `cluster -m pp_chart --export_type db` on `generate JOB --ranks 4 --pp 4 --steps 2
//   --notify-tasks --mstx-passes --export-type db` writes a copy of each rank's database whose
//   StepTaskInfo and COMMUNICATION_OP (schema and rows) are exactly what msprof-analyze 8399c1cd
//   wrote into that rank's database in place (tests/data/generated-db/pp4_pp_chart/rank_N.txt;
//   tests/data/SOURCES.md), the input untouched, the same bytes under mpirun -np 1, 2 and 4.
// - Every rank's chart has 2 forward and 2 backward micro-batches per step, one after the other.
// - The text export writes nothing (as msprof-analyze); a job without mstx passes gets only the
//   pairing.
// - DualPipeV golden: on `generate JOB --ranks 4 --pp 2 --steps 2 --microbatches 4 --notify-tasks
//   --mstx-passes --pp-schedule dualpipev --export-type db` (META_DATA pp_info says dualpipev) each
//   rank's StepTaskInfo names the schedule's blocks ("0", "4b", "3F+5B", "logits", type = phase)
//   exactly as msprof-analyze 8399c1cd wrote them (tests/data/generated-db/dpv_pp_chart), the same
//   bytes under mpirun -np 1, 2 and 4; a step whose range count the stage does not expect keeps
//   empty names, a rank outside distributed_args' tp x pp x dp gets no chart; the generator
//   refuses a DualPipeV job with fewer than 2 * pp micro-batches.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "msprof_analyze/recipes/pp_chart/pp_chart.h"
#include "recipes/rank_copy_test_util.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::recipes::pp_chart::pass_name;
using cs::test::commop_dump;
using cs::test::dump_table;
using cs::test::rank_db;

namespace {

const fs::path& pp_chart_scratch() {
  static const cs::test::ScratchDir dir("pp-chart");
  return dir.path();
}

fs::path generate_pp_chart_job(const std::string& name, const std::string& args,
                               const std::string& shape = "--ranks 4 --pp 4 --steps 2") {
  const fs::path j = pp_chart_scratch() / name;
  const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() + " " +
                                           shape + " --export-type db " + args,
                                       (pp_chart_scratch() / (name + ".log")).string());
  EXPECT_EQ(rc, 0) << cs::test::read_file(pp_chart_scratch() / (name + ".log"));
  return j;
}

const fs::path& pp_chart_job() {
  static const fs::path j = generate_pp_chart_job("pp4", "--notify-tasks --mstx-passes");
  return j;
}

fs::path run_pp_chart(const fs::path& input, const std::string& launcher, const std::string& name,
                      const std::string& type) {
  const fs::path out = pp_chart_scratch() / name;
  const int rc =
      cs::test::run_command(launcher + CS_BINARY + " cluster -d " + input.string() + " -o " +
                                out.string() + " -m pp_chart --export_type " + type,
                            out.string() + ".log");
  EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  return out / "cluster_analysis_output";
}

TEST(PPChart, PassNames) {
  EXPECT_STREQ(pass_name("forward_step"), "FP");
  EXPECT_STREQ(pass_name("MegatronForward"), "FP");
  EXPECT_STREQ(pass_name("backward_step"), "BP");
  EXPECT_STREQ(pass_name("WeightGradStore_pop"), "BP");
}

TEST(PPChart, MatchesMsprofAnalyzeAtAnyProcessCountAndLeavesTheInput) {
  std::map<int, std::string> before;
  for (int r = 0; r < 4; ++r) before[r] = cs::test::dump_sqlite(rank_db(pp_chart_job(), r));
  const fs::path single = run_pp_chart(pp_chart_job(), "", "nolauncher", "db");
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / "pp4_pp_chart";
  for (int r = 0; r < 4; ++r) {
    const fs::path got = rank_db(single / "PPChart", r);
    ASSERT_FALSE(got.empty()) << "rank " << r;
    EXPECT_EQ(dump_table(got, "StepTaskInfo") + dump_table(got, "COMMUNICATION_OP"),
              cs::test::read_file(ref / ("rank_" + std::to_string(r) + ".txt")))
        << "rank " << r;
    EXPECT_EQ(cs::test::dump_sqlite(rank_db(pp_chart_job(), r)), before[r])
        << "input of rank " << r;
  }
  const auto expected = cs::test::read_tree(single);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(run_pp_chart(pp_chart_job(), cs::test::mpirun(np),
                                                 "np" + std::to_string(np), "db")) == expected)
        << "np=" << np;
}

TEST(PPChart, TwoForwardAndTwoBackwardPassesPerStep) {
  const fs::path out = run_pp_chart(pp_chart_job(), "", "chart", "db") / "PPChart";
  for (int r = 0; r < 4; ++r) {
    const std::string t = dump_table(rank_db(out, r), "StepTaskInfo");
    // 2 steps x 2 micro-batches, GPipe order: FP FP BP BP per step.
    const std::string fp = "t:FP|", bp = "t:BP|";
    size_t pos = t.find("\n== StepTaskInfo\n");
    ASSERT_NE(pos, std::string::npos) << t;
    std::string order;
    for (size_t at = t.find("t:", pos); at != std::string::npos; at = t.find("\nt:", at + 1))
      order += t.compare(at + (t[at] == '\n'), fp.size(), fp) == 0 ? "F" : "B";
    EXPECT_EQ(order, "FFBBFFBB") << "rank " << r << "\n" << t;
  }
}

TEST(PPChart, TextWritesNothingAndNoPassesGivesOnlyThePairing) {
  const fs::path text = run_pp_chart(pp_chart_job(), "", "text", "text");
  EXPECT_TRUE(rank_db(text, 0).empty());
  const fs::path plain =
      run_pp_chart(generate_pp_chart_job("plain", "--notify-tasks"), "", "plain-out", "db");
  const fs::path db = rank_db(plain / "PPChart", 1);
  ASSERT_FALSE(db.empty());
  EXPECT_EQ(dump_table(db, "StepTaskInfo"), "(no table)\n");
  EXPECT_NE(dump_table(db, "COMMUNICATION_OP").find("opConnectionId TEXT"), std::string::npos);
}

TEST(PPChart, ConvertsMstxCommunicationFirst) {
  // --tp 2 --pp 2 --steps 1 --mstx-comm --mstx-passes: no COMMUNICATION_OP, so msprof-analyze's
  // pp_chart runs mstx2commop in place before the chart (tests/data/generated-db/pc_pp_chart).
  const fs::path j = pp_chart_scratch() / "pc";
  ASSERT_EQ(cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                      " --ranks 4 --tp 2 --pp 2 --steps 1 --export-type db "
                                      "--mstx-comm --mstx-passes",
                                  (pp_chart_scratch() / "pc.log").string()),
            0)
      << cs::test::read_file(pp_chart_scratch() / "pc.log");
  const fs::path out = run_pp_chart(j, "", "pc-out", "db") / "PPChart";
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / "pc_pp_chart";
  for (int r = 0; r < 4; ++r) {
    const fs::path db = rank_db(out, r);
    ASSERT_FALSE(db.empty()) << "rank " << r;
    EXPECT_EQ(commop_dump(db) + dump_table(db, "StepTaskInfo"),
              cs::test::read_file(ref / ("rank_" + std::to_string(r) + ".txt")))
        << "rank " << r;
  }
}

const fs::path& dualpipev_job() {
  static const fs::path j =
      generate_pp_chart_job("dpv", "--notify-tasks --mstx-passes --pp-schedule dualpipev",
                            "--ranks 4 --pp 2 --steps 2 --microbatches 4");
  return j;
}

TEST(PPChart, DualPipeVMatchesMsprofAnalyzeAtAnyProcessCount) {
  const fs::path single = run_pp_chart(dualpipev_job(), "", "dpv-out", "db");
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / "dpv_pp_chart";
  for (int r = 0; r < 4; ++r) {
    const fs::path got = rank_db(single / "PPChart", r);
    ASSERT_FALSE(got.empty()) << "rank " << r;
    EXPECT_EQ(dump_table(got, "StepTaskInfo") + dump_table(got, "COMMUNICATION_OP"),
              cs::test::read_file(ref / ("rank_" + std::to_string(r) + ".txt")))
        << "rank " << r;
  }
  const auto expected = cs::test::read_tree(single);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(run_pp_chart(dualpipev_job(), cs::test::mpirun(np),
                                                 "dpv-np" + std::to_string(np), "db")) == expected)
        << "np=" << np;
}

TEST(PPChart, DualPipeVStepWithOtherRangeCountKeepsEmptyNames) {
  // Every rank's pp_info claiming 8 micro-batches: stage 0 then expects 30 ranges a step and
  // stage 1 21, not the 18 and 13 written, so every row keeps name "" and type 0 (msprof-analyze
  // 8399c1cd wrote the same on this job: "The number of mstx_count should be 30, not 18").
  const fs::path j = pp_chart_scratch() / "dpv-other";
  fs::copy(dualpipev_job(), j, fs::copy_options::recursive);
  for (int r = 0; r < 4; ++r) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(rank_db(j, r).c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "UPDATE META_DATA SET value = '{\"microbatch_num\": 8, \"pp_type\": "
                           "\"DualPipeV\"}' WHERE name = 'pp_info'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  const fs::path out = run_pp_chart(j, "", "dpv-other-out", "db") / "PPChart";
  for (int r = 0; r < 4; ++r) {
    const std::string t = dump_table(rank_db(out, r), "StepTaskInfo");
    const size_t rows = static_cast<size_t>(std::count(t.begin(), t.end(), '\n')) - 7;
    size_t empty = 0;
    for (size_t at = t.find("\nt:|"); at != std::string::npos; at = t.find("\nt:|", at + 1))
      ++empty;
    EXPECT_EQ(rows, r < 2 ? 36u : 26u) << "rank " << r << "\n" << t;
    EXPECT_EQ(empty, rows) << "rank " << r << "\n" << t;
    EXPECT_NE(t.find("|i:0\n"), std::string::npos);
  }
}

TEST(PPChart, DualPipeVRanksOutsideTheStagesGetNoChart) {
  // distributed_args saying dp 1 (tp 1 x pp 2 = 2 ranks): ranks 2 and 3 are in no stage and get
  // no StepTaskInfo (their pairing is still written), rank 1 is taken for stage 1, which expects
  // 13 ranges a step where it has 18 (names ""), rank 0 keeps its names. msprof-analyze 8399c1cd
  // wrote the same four databases on this pp_chart_job ("The rank 2 does not belong to any PP
  // stage").
  const fs::path j = pp_chart_scratch() / "dpv-dp1";
  fs::copy(dualpipev_job(), j, fs::copy_options::recursive);
  for (int r = 0; r < 4; ++r) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(rank_db(j, r).c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "UPDATE META_DATA SET value = json_set(value, '$.data_parallel_size', "
                           "1) WHERE name = 'distributed_args'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  const fs::path out = run_pp_chart(j, "", "dpv-dp1-out", "db") / "PPChart";
  EXPECT_NE(cs::test::read_file(pp_chart_scratch() / "dpv-dp1-out.log")
                .find("rank 2 does not belong to any pipeline stage"),
            std::string::npos);
  EXPECT_NE(dump_table(rank_db(out, 0), "StepTaskInfo").find("t:logits|"), std::string::npos);
  const std::string one = dump_table(rank_db(out, 1), "StepTaskInfo");
  EXPECT_NE(one.find("\nt:|i:"), std::string::npos) << one;
  EXPECT_EQ(one.find("\nt:0|"), std::string::npos) << one;
  for (int r : {2, 3}) {
    EXPECT_EQ(dump_table(rank_db(out, r), "StepTaskInfo"), "(no table)\n") << "rank " << r;
    EXPECT_NE(dump_table(rank_db(out, r), "COMMUNICATION_OP").find("opConnectionId TEXT"),
              std::string::npos);
  }
}

TEST(PPChart, GeneratorRefusesTooFewDualPipeVMicrobatches) {
  const fs::path j = pp_chart_scratch() / "dpv-few";
  const std::string log = (pp_chart_scratch() / "dpv-few.log").string();
  EXPECT_NE(cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                      " --ranks 4 --pp 2 --microbatches 3 --export-type db "
                                      "--mstx-passes --pp-schedule dualpipev",
                                  log),
            0);
  EXPECT_NE(cs::test::read_file(log).find("at least 2 * pp micro-batches"), std::string::npos)
      << cs::test::read_file(log);
}

}  // namespace
