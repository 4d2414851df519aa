// The communication_bottleneck recipe.
// - match_tasks and the microsecond texts on values worked out by hand.
// - Golden: `cluster -m communication_bottleneck --rank_id 0|5` on `generate JOB --ranks 8 --tp 4
//   --pp 2 --steps 3 --slow-rank 5:1.5 --export-type db` writes exactly what msprof-analyze
//   8399c1cd wrote for that job (tests/data/generated-db/tp4pp2s3_communication_bottleneck_r*;
//   tests/data/SOURCES.md): ops with no slow NPU, host-bound ones with their PyTorch and CANN
//   differences, and ones without node@launch tasks; the same bytes under mpirun -np 1, 2 and 4.
// - Device-bound golden: the same job with `--slow-device 5:1.5` instead (rank 5's device slower,
//   its host a 250 µs launch queue ahead, so its node@launch tasks wait on the device) gives, for
//   --rank_id 5, "[Device-bound]Device: ..." verdicts with the device tasks' differences, exactly
//   as msprof-analyze 8399c1cd wrote them (tp4pp2s3dev_communication_bottleneck_r5__{text,db}),
//   the same bytes under mpirun -np 1, 2 and 4.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/communication_bottleneck/communication_bottleneck.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
namespace cb = cs::recipes::communication_bottleneck;

namespace {

const fs::path& bottleneck_scratch() {
  static const cs::test::ScratchDir dir("communication-bottleneck");
  return dir.path();
}

const fs::path& bottleneck_job() {
  static const fs::path job = [] {
    const fs::path j = bottleneck_scratch() / "tp4pp2s3";
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                             " --ranks 8 --tp 4 --pp 2 --steps 3 --slow-rank "
                                             "5:1.5 --export-type db",
                                         (bottleneck_scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(bottleneck_scratch() / "generate.log");
    return j;
  }();
  return job;
}

cb::Span span(int64_t start, int64_t duration, const char* name) {
  return {start, start + duration, duration, name};
}

TEST(CommunicationBottleneckRecipe, MatchesLatestTasksFirstUntilAligned) {
  // Slow rank, latest first: c@900, b@700, a@500, a@100; fast: c@400, a@300, b@200, a@50.
  // Clock shift -300: c: 900 - 400 - 300 = 200 (not below 150); b: the next fast b after c is
  // b@200: 700 - 200 - 300 = 200; a: the next fast a after b@200 is a@50: 500 - 50 - 300 = 150;
  // a@100: no fast a left. Nothing started within 150: unaligned.
  const std::vector<cb::Span> slow = {span(100, 5, "a"), span(500, 7, "a"), span(700, 9, "b"),
                                      span(900, 4, "c")};
  const std::vector<cb::Span> fast = {span(50, 5, "a"), span(200, 3, "b"), span(300, 6, "a"),
                                      span(400, 4, "c")};
  bool unaligned = false;
  auto d = cb::match_tasks(slow, fast, -300, 150, unaligned);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_TRUE(unaligned);
  EXPECT_EQ(d[0].name, "c");
  EXPECT_EQ(d[0].diff_start_ns, 200);
  EXPECT_EQ(d[1].name, "b");
  EXPECT_EQ(d[1].diff_start_ns, 200);
  EXPECT_EQ(d[1].diff_duration, 6);
  EXPECT_EQ(d[2].diff_start_ns, 150);
  EXPECT_EQ(d[2].diff_duration, 2);
  // With a threshold of 201 the first pair is aligned and the matching stops there.
  d = cb::match_tasks(slow, fast, -300, 201, unaligned);
  EXPECT_EQ(d.size(), 1u);
  EXPECT_FALSE(unaligned);
}

TEST(CommunicationBottleneckRecipe, MicrosecondTexts) {
  // str(Decimal(ns) / 1000): exact, trailing zeros dropped down to the units.
  EXPECT_EQ(cb::us_text(1708156100210705042), "1708156100210705.042");
  EXPECT_EQ(cb::us_text(1708156100210705040), "1708156100210705.04");
  EXPECT_EQ(cb::us_text(1708156100210705000), "1708156100210705");
  EXPECT_EQ(cb::us_text(5), "0.005");
  EXPECT_EQ(cb::us_text(-1500), "-1.5");
  // round(ns * 0.001, 3) as a Python float.
  EXPECT_EQ(cb::us_float(484708), "484.708");
  EXPECT_EQ(cb::us_float(0), "0.0");
  EXPECT_EQ(cb::us_float(34400216), "34400.216");
}

class CommunicationBottleneckGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(CommunicationBottleneckGolden, MatchesMsprofAnalyze) {
  const std::string type = GetParam();
  for (const char* rank : {"0", "5"}) {
    const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" /
                         ("tp4pp2s3_communication_bottleneck_r" + std::string(rank) + "__" + type);
    const fs::path out = bottleneck_scratch() / (type + "-r" + rank);
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " cluster -q -d " +
                                             bottleneck_job().string() + " -o " + out.string() +
                                             " -m communication_bottleneck --rank_id " + rank +
                                             " --export_type " + type,
                                         out.string() + ".log");
    EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
    cs::test::expect_same_outputs(out / "cluster_analysis_output", ref);
  }
}

INSTANTIATE_TEST_SUITE_P(Export, CommunicationBottleneckGolden, ::testing::Values("text", "db"));

const fs::path& device_bound_job() {
  static const fs::path job = [] {
    const fs::path j = bottleneck_scratch() / "tp4pp2s3dev";
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                             " --ranks 8 --tp 4 --pp 2 --steps 3 --slow-device "
                                             "5:1.5 --export-type db",
                                         (bottleneck_scratch() / "generate-dev.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(bottleneck_scratch() / "generate-dev.log");
    return j;
  }();
  return job;
}

class CommunicationBottleneckDeviceBound : public ::testing::TestWithParam<const char*> {};

TEST_P(CommunicationBottleneckDeviceBound, MatchesMsprofAnalyzeAtAnyProcessCount) {
  const std::string type = GetParam();
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" /
                       ("tp4pp2s3dev_communication_bottleneck_r5__" + type);
  auto run = [&](const std::string& launcher, const std::string& name) {
    const fs::path out = bottleneck_scratch() / ("dev-" + type + "-" + name);
    const int rc = cs::test::run_command(launcher + CS_BINARY + " cluster -q -d " +
                                             device_bound_job().string() + " -o " + out.string() +
                                             " -m communication_bottleneck --rank_id 5 "
                                             "--export_type " +
                                             type,
                                         out.string() + ".log");
    EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
    return out / "cluster_analysis_output";
  };
  const fs::path single = run("", "single");
  cs::test::expect_same_outputs(single, ref);
  if (type == "text") {  // the verdict this job was made for, said in the reason
    const std::string csv = cs::test::read_file(single / "CommunicatonBottleneckAnalysis" /
                                                "communication_bottleneck.csv");
    EXPECT_NE(csv.find("[Device-bound]Device: max duration-diff op "), std::string::npos) << csv;
    EXPECT_EQ(csv.find("[Host-bound]"), std::string::npos) << csv;
  }
  const auto expected = cs::test::read_tree(single);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(run(cs::test::mpirun(np), "np" + std::to_string(np))) ==
                expected)
        << "np=" << np;
}

INSTANTIATE_TEST_SUITE_P(Export, CommunicationBottleneckDeviceBound,
                         ::testing::Values("text", "db"));

TEST(CommunicationBottleneckRecipe, SameBytesAtAnyProcessCount) {
  auto run = [&](const std::string& launcher, const std::string& name) {
    const fs::path out = bottleneck_scratch() / ("mpi-" + name);
    const int rc = cs::test::run_command(
        launcher + CS_BINARY + " cluster -q -d " + bottleneck_job().string() + " -o " +
            out.string() + " -m communication_bottleneck --rank_id 5 --export_type db",
        out.string() + ".log");
    EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
    return cs::test::read_tree(out / "cluster_analysis_output");
  };
  const auto expected = run("", "single");
  EXPECT_FALSE(expected.empty());
  for (int np : {1, 2, 4})
    EXPECT_TRUE(run(cs::test::mpirun(np), "np" + std::to_string(np)) == expected) << "np=" << np;
}

TEST(CommunicationBottleneckRecipe, UnknownRankIsAnError) {
  const fs::path out = bottleneck_scratch() / "unknown";
  const int rc =
      cs::test::run_command(std::string(CS_BINARY) + " cluster -q -d " + bottleneck_job().string() +
                                " -o " + out.string() + " -m communication_bottleneck --rank_id 42",
                            out.string() + ".log");
  EXPECT_NE(rc, 0);
  EXPECT_NE(cs::test::read_file(out.string() + ".log").find("rank 42"), std::string::npos);
}

}  // namespace
