// The mstx2commop recipe.
// - double_hash: worked out by hand for "ab" (h0 = 97 * 29 + 98, h1 = 97 * 131 + 98).
// - Golden: `cluster -m mstx2commop` on `generate JOB --ranks 4 --tp 2 --pp 2 --steps 1
//   --mstx-comm --export-type db` writes each rank's database copy under Mstx2Commop/ with the
//   COMMUNICATION_OP (schema, index, rows with every id resolved to its text) and STRING_IDS
//   texts msprof-analyze 8399c1cd wrote (tests/data/generated-db/mc_mstx2commop; its ids follow
//   Python's set order, so opId is checked to be 0..n-1 and the ids unique), the input untouched;
//   text and db exports, and mpirun -np 1, 2 and 4, write the same databases.
// - A rank that has COMMUNICATION_OP is left alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "msprof_analyze/recipes/mstx2commop/mstx2commop.h"
#include "recipes/rank_copy_test_util.h"
#include "recipes/recipe_cli_test_util.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::recipes::mstx2commop::double_hash;
using cs::test::commop_dump;
using cs::test::rank_db;

namespace {

const fs::path& mstx2commop_scratch() {
  static const cs::test::ScratchDir dir("mstx2commop");
  return dir.path();
}

fs::path generate_mstx2commop_job(const std::string& name, const std::string& args) {
  return cs::test::generate_job(mstx2commop_scratch() / name,
                                "--ranks 4 --tp 2 --pp 2 --steps 1 --export-type db " + args);
}

const fs::path& mstx2commop_job() {
  static const fs::path j = generate_mstx2commop_job("mc", "--mstx-comm");
  return j;
}

fs::path run_mstx2commop(const fs::path& input, const std::string& launcher,
                         const std::string& name, const std::string& type, int expected_rc = 0) {
  return cs::test::run_recipe(input, mstx2commop_scratch() / name, "mstx2commop", type, launcher,
                              expected_rc);
}

fs::path run_mstx2commop_ok(const std::string& launcher, const std::string& name,
                            const std::string& type) {
  return run_mstx2commop(mstx2commop_job(), launcher, name, type);
}

std::map<std::string, std::string> databases(std::map<std::string, std::string> tree) {
  std::erase_if(tree, [](const auto& f) { return !f.first.ends_with(".db"); });
  return tree;
}

TEST(Mstx2Commop, DoubleHash) {
  EXPECT_EQ(double_hash("ab"), std::to_string((uint64_t{97 * 29 + 98} << 32) | (97 * 131 + 98)));
  EXPECT_EQ(double_hash(""), "0");
}

TEST(Mstx2Commop, MatchesMsprofAnalyzeAtAnyProcessCountAndLeavesTheInput) {
  std::map<int, std::string> before;
  for (int r = 0; r < 4; ++r) before[r] = cs::test::dump_sqlite(rank_db(mstx2commop_job(), r));
  const fs::path single = run_mstx2commop_ok("", "nolauncher", "db");
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / "mc_mstx2commop";
  for (int r = 0; r < 4; ++r) {
    const fs::path got = rank_db(single / "Mstx2Commop", r);
    ASSERT_FALSE(got.empty()) << "rank " << r;
    EXPECT_EQ(commop_dump(got), cs::test::read_file(ref / ("rank_" + std::to_string(r) + ".txt")))
        << "rank " << r;
    EXPECT_EQ(cs::test::dump_sqlite(rank_db(mstx2commop_job(), r)), before[r])
        << "input of rank " << r;
  }
  const auto expected = databases(cs::test::read_tree(single));
  EXPECT_EQ(expected.size(), 4u);
  EXPECT_TRUE(databases(cs::test::read_tree(run_mstx2commop_ok("", "text", "text"))) == expected);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(databases(cs::test::read_tree(run_mstx2commop_ok(
                    cs::test::mpirun(np), "np" + std::to_string(np), "db"))) == expected)
        << "np=" << np;
}

TEST(Mstx2Commop, RanksWithCommunicationOpAreLeftAlone) {
  const fs::path out =
      run_mstx2commop(generate_mstx2commop_job("plain", ""), "", "plain-out", "db", 1);
  EXPECT_NE(
      cs::test::read_file(mstx2commop_scratch() / "plain-out.log").find("COMMUNICATION_OP already"),
      std::string::npos)
      << cs::test::read_file(mstx2commop_scratch() / "plain-out.log");
  EXPECT_TRUE(rank_db(out, 0).empty());
}

}  // namespace
