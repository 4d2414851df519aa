// `clusterscope cluster -d` on GPU jobs end to end: discovery of the shared real traces, a mixed
// job refused with one line, the outputs, and the same files at 1, 2 and 4 MPI processes.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "gpu/gpu_discovery.h"
#include "support/test_files.h"

namespace {

namespace fs = std::filesystem;
using cs::test::TempDir;

const std::string kSamples = std::string(CS_TEST_DATA) + "/kineto";

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(GpuDiscovery, SharedSamples) {
  EXPECT_TRUE(cs::gpu::looks_like_gpu_job(kSamples));
  const auto d = cs::gpu::discover_gpu_traces(kSamples);
  ASSERT_FALSE(d.fatal);
  ASSERT_EQ(d.traces.size(), 2u);
  EXPECT_EQ(d.traces[0].name_rank, 0);
  EXPECT_EQ(d.traces[1].name_rank, 1);
  EXPECT_GT(d.traces[0].bytes, 100'000u);
}

TEST(GpuDiscovery, RankFromFileName) {
  EXPECT_EQ(cs::gpu::rank_from_file_name("a/rank-12.json.gz"), 12);
  EXPECT_EQ(cs::gpu::rank_from_file_name("worker3.pt.trace.json"), 3);
  EXPECT_EQ(cs::gpu::rank_from_file_name("host_123_rank7_trace.json"), 7);
  EXPECT_EQ(cs::gpu::rank_from_file_name("trace.json"), -1);
  EXPECT_EQ(cs::gpu::rank_from_file_name("h100_rank_3.json.gz"), 3);
  EXPECT_EQ(cs::gpu::rank_from_file_name("node2-worker5.pt.trace.json"), 5);
  EXPECT_EQ(cs::gpu::rank_from_file_name("job7_rank-12.json"), 12);
}

TEST(GpuDiscovery, AscendJobIsNotGpu) {
  TempDir t("gpu_disc");
  t.file("x_1_2_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", "[]");
  t.file("notes.json", R"({"a": 1})");
  EXPECT_FALSE(cs::gpu::looks_like_gpu_job(t.str()));
}

TEST(GpuClusterCli, MixedJobRefusedInOneLine) {
  TempDir t("gpu_mixed");
  fs::copy_file(kSamples + "/sampled_rank-0.json.gz", t.path() / "rank-0.json.gz");
  t.file("node_1_2_ascend_pt/profiler_info_1.json", "{}");
  std::string out;
  const int rc = cs::test::run_merged(
      std::string(CS_BINARY) + " cluster -d " + t.str() + " -o " + (t.path() / "out").string(),
      out);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_EQ(count_lines(out), 1) << out;
  EXPECT_NE(out.find("mixes 1 Kineto trace(s) with 1 Ascend rank directory"), std::string::npos)
      << out;
}

TEST(GpuClusterCli, SharedSamplesEndToEnd) {
  TempDir t("gpu_e2e");
  std::string out;
  const int rc = cs::test::run_merged(
      std::string(CS_BINARY) + " cluster -d " + kSamples + " -o " + t.str(), out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("GPU job: 2 rank(s) of world size 128, 2 step(s), 20 collective"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("msprof-analyze's documents"), std::string::npos) << out;
  const fs::path o = t.path() / "cluster_analysis_output";
  const std::string st = cs::test::slurp(o / "step_trace.csv");
  // The figures of tests/gpu/test_gpu_rank.cpp (independent script), in µs.
  EXPECT_EQ(st,
            "step,rank,computing_us,comm_not_overlapped_us,overlapped_us,communication_us,"
            "free_us,memory_us,step_us,kernel_us\n"
            "551,0,106252,172259,23068,195327,321378,169,600058,301579\n"
            "552,0,104068,164724,36148,200872,346625,184,615601,304940\n"
            "551,1,135548,134336,33691,168027,328671,2119,600674,303575\n"
            "552,1,136425,169187,41839,211026,315239,2435,623286,347451\n");
  const std::string coll = cs::test::slurp(o / "collectives.csv");
  // The 2023 trace's SendRecv kernels carry no process group: their peers are unknown, so each
  // rank's stay its own (header + 10 per rank).
  EXPECT_EQ(count_lines(coll), 21) << coll;
  EXPECT_NE(coll.find("p2p@1,0,sendrecv,551,1,1,-1,"), std::string::npos) << coll;
  EXPECT_TRUE(fs::exists(o / "cluster_analysis.h5"));
  EXPECT_TRUE(fs::exists(o / "kernels_topn.csv"));
  EXPECT_EQ(count_lines(cs::test::slurp(o / "slow_ranks.csv")), 1);  // header only
  EXPECT_FALSE(fs::exists(o / "cluster_step_trace_time.csv"));
  // report.html (default --format all): the per-rank step table holds each rank's mean over its
  // two steps of the figures above (rank 0 computing (106252 + 104068) / 2 = 105160, rank 1 free
  // (328671 + 315239) / 2 = 321955), and no finding on this healthy pair.
  const std::string page = cs::test::slurp(o / "report.html");
  EXPECT_NE(page.find("GPU cluster report"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"n\">105,160.0</td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"n\">321,955.0</td>"), std::string::npos);
  EXPECT_NE(page.find("Nothing stands out"), std::string::npos);
}

TEST(GpuClusterCli, DamagedTraceNamedOthersAnalysed) {
  TempDir t("gpu_bad");
  fs::copy_file(kSamples + "/sampled_rank-0.json.gz", t.path() / "rank-0.json.gz");
  fs::copy_file(kSamples + "/sampled_rank-1.json.gz", t.path() / "rank-1.json.gz");
  // Cut inside a string: not JSON the reader can use; it says where and why.
  t.file("rank-2.json",
         R"({"distributedInfo": {"rank": 2, "world_size": 4}, "traceEvents": [)"
         R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5},)"
         R"({"ph": "X", "cat": "ker)");
  // Not JSON at all but named like a trace: a gzip header and nothing else.
  t.file("rank-3.json.gz", std::string("\x1f\x8b\x08\x00", 4));
  for (const std::string& launcher :
       {std::string(), std::string("mpirun --allow-run-as-root --oversubscribe -np 2 ")}) {
    SCOPED_TRACE(launcher);
    const fs::path out = t.path() / (launcher.empty() ? "o1" : "o2");
    std::string log;
    const int rc = cs::test::run_merged(
        launcher + CS_BINARY + " cluster -d " + t.str() + " -o " + out.string(), log);
    EXPECT_EQ(rc, 3) << log;
    EXPECT_NE(log.find("rank-2.json: not valid JSON"), std::string::npos) << log;
    EXPECT_NE(log.find("rank-3.json.gz: cannot be read"), std::string::npos) << log;
    EXPECT_EQ(log.find("\"ker"), std::string::npos) << log;  // the input is never quoted
    const std::string st = cs::test::slurp(out / "cluster_analysis_output" / "step_trace.csv");
    EXPECT_NE(st.find("\n551,0,"), std::string::npos) << st;
    EXPECT_NE(st.find("\n551,1,"), std::string::npos) << st;
    EXPECT_EQ(st.find("\n551,2,"), std::string::npos) << st;
  }
}

TEST(GpuClusterCli, SameFilesAt124Processes) {
  TempDir t("gpu_mpi");
  // The two real traces copied into two sub-folders: a tree of four traces whose ranks repeat
  // (the first by path is kept, the run is partial), split across the processes.
  for (const char* sub : {"a", "b"})
    for (int r : {0, 1}) {
      fs::create_directories(t.path() / "in" / sub);
      fs::copy_file(kSamples + "/sampled_rank-" + std::to_string(r) + ".json.gz",
                    t.path() / "in" / sub / ("rank-" + std::to_string(r) + ".json.gz"));
    }
  const std::string mpirun = "mpirun --allow-run-as-root --oversubscribe -np ";
  std::string ref;
  for (int np : {0, 1, 2, 4}) {
    const fs::path out = t.path() / ("o" + std::to_string(np));
    std::string log;
    const std::string launcher = np == 0 ? "" : mpirun + std::to_string(np) + " ";
    const int rc = cs::test::run_merged(launcher + CS_BINARY + " cluster -q --format csv -d " +
                                            (t.path() / "in").string() + " -o " + out.string(),
                                        log);
    EXPECT_EQ(rc, 3) << np << ": " << log;  // partial: the duplicate ranks were left out
    std::string all;
    for (const char* f :
         {"step_trace.csv", "collectives.csv", "collective_groups.csv", "rank_waits.csv",
          "kernels_topn.csv", "slow_ranks.csv", "slow_groups.csv", "rank_manifest.csv"})
      all += cs::test::slurp(out / "cluster_analysis_output" / f);
    EXPECT_FALSE(fs::exists(out / "cluster_analysis_output" / "report.html")) << "--format csv";
    if (np == 0)
      ref = all;
    else
      EXPECT_EQ(all, ref) << "np " << np;
  }
  EXPECT_NE(ref.find("in/a/rank-0.json.gz"), std::string::npos);
}

}  // namespace
