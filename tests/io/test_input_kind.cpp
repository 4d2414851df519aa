// The one input classifier (io/input_kind.h) on the real samples in tests/data and on small
// layouts written here.

#include "io/input_kind.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::io::classify_head;
using cs::io::classify_input;
using cs::io::InputKind;

namespace {

const std::string kData = CS_TEST_DATA;

using cs::test::TempDir;

}  // namespace

TEST(InputKind, RealKinetoTracesInEveryForm) {
  // Object form, gzip, distributedInfo.rank in the head.
  auto c = classify_input(kData + "/kineto/sampled_rank-0.json.gz");
  EXPECT_EQ(c.kind, InputKind::kKinetoTrace) << c.reason;
  EXPECT_TRUE(c.gzip);
  EXPECT_FALSE(c.array_form);
  EXPECT_EQ(c.rank, 0);
  // Chrome's JSON Array Format, 2020 categories: a Kineto trace, not an NPU one.
  c = classify_input(kData + "/kineto-variants/array_format_resnet50_worker0.pt.trace.json.gz");
  EXPECT_EQ(c.kind, InputKind::kKinetoTrace) << c.reason;
  EXPECT_TRUE(c.array_form);
  // Pretty-printed with a leading metadata object.
  for (const char* f :
       {"pretty_h100_falconsai.json.gz", "pretty_mi300_falconsai.json.gz",
        "mtia_inference_rank_0.json.gz", "cpu_only_rank34.json.gz", "hta_compare_base.json.gz"}) {
    c = classify_input(kData + "/kineto-variants/" + f);
    EXPECT_EQ(c.kind, InputKind::kKinetoTrace) << f << ": " << c.reason;
    EXPECT_FALSE(c.array_form) << f;
  }
  EXPECT_EQ(classify_input(kData + "/kineto-variants/cpu_only_rank34.json.gz").rank, 34);
}

TEST(InputKind, RealNpuTimelinesByContent) {
  // A plain trace_view.json and a gzip copy of another under a different name: the content
  // decides.
  auto c = classify_input(kData + "/ascend/trace_view.json");
  EXPECT_EQ(c.kind, InputKind::kTraceView) << c.reason;
  EXPECT_TRUE(c.array_form);
  c = classify_input(kData +
                     "/ascend-real/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                     "trace_view.json.gz");
  EXPECT_EQ(c.kind, InputKind::kTraceView) << c.reason;
  EXPECT_TRUE(c.gzip);
  EXPECT_EQ(classify_input(kData + "/ascend/kernel_details.csv").kind, InputKind::kKernelDetails);
  EXPECT_EQ(classify_input(kData + "/ascend/kernel_details_small.csv").kind,
            InputKind::kKernelDetails);
  EXPECT_EQ(classify_input(kData + "/ascend/cluster_communication.json").kind,
            InputKind::kOtherJson);
}

TEST(InputKind, ArrayFormIsDecidedByContentNotShape) {
  // Same array shape; only the Ascend marks make it NPU.
  EXPECT_EQ(classify_head("t.json", R"([{"ph":"X","cat":"Kernel","ts":1,"dur":2}])").kind,
            InputKind::kKinetoTrace);
  EXPECT_EQ(classify_head("t.json", R"([{"ph":"X","name":"a","ts":"1.5","dur":2}])").kind,
            InputKind::kTraceView);
  EXPECT_EQ(classify_head("t.json", "[\n  {\n    \"ph\": \"X\",\n    \"ts\" : \"17\"}]").kind,
            InputKind::kTraceView);
  EXPECT_EQ(
      classify_head("t.json", R"([{"name":"process_name","ph":"M","args":{"name":"CANN"}}])").kind,
      InputKind::kTraceView);
  EXPECT_EQ(classify_head("t.json", "[1, 2, 3]").kind, InputKind::kOtherJson);
  EXPECT_EQ(classify_head("t.json", R"({"otherData":{"merged_by":"clusterscope merge"},
                                        "traceEvents":[]})")
                .kind,
            InputKind::kMergedTrace);
  EXPECT_EQ(classify_head("t.json", R"({"a": 1})").kind, InputKind::kOtherJson);
}

TEST(InputKind, SqliteExportsByMagicAndName) {
  const std::string magic("SQLite format 3\0rest", 20);
  for (const char* n : {"analysis.db", "ascend_pytorch_profiler_3.db",
                        "ascend_mindspore_profiler_0.db", "msprof_20250101.db"})
    EXPECT_EQ(classify_head(n, magic).kind, InputKind::kDbExport) << n;
  EXPECT_EQ(classify_head("other.db", magic).kind, InputKind::kOtherSqlite);
  // The name alone is not enough.
  EXPECT_EQ(classify_head("analysis.db", "not sqlite").kind, InputKind::kOtherFile);
}

// Issue 17, finding 10: a FIFO is refused without blocking, a symlink loop is named as such
// (neither is "does not exist").
TEST(InputKind, FifoAndSymlinkLoopAreUnreadableNotMissing) {
  TempDir t;
  const std::string fifo = t.str() + "/trace.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto c = classify_input(fifo);
  EXPECT_EQ(c.kind, InputKind::kUnreadable);
  EXPECT_NE(c.reason.find("FIFO"), std::string::npos) << c.reason;
  fs::create_symlink(t.str() + "/b.json", t.str() + "/a.json");
  fs::create_symlink(t.str() + "/a.json", t.str() + "/b.json");
  c = classify_input(t.str() + "/a.json");
  EXPECT_EQ(c.kind, InputKind::kUnreadable);
  EXPECT_NE(c.reason.find("symlink loop"), std::string::npos) << c.reason;
  EXPECT_EQ(classify_input(t.str() + "/absent.json").kind, InputKind::kMissing);
}

TEST(InputKind, DirectoryLayouts) {
  TempDir t;
  const std::string magic("SQLite format 3\0", 16);
  // A DB export rank directory.
  t.file("job/host_1_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db", magic);
  t.file("job/host_1_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db",
         magic);
  t.file("job/host_1_20250101_ascend_pt/profiler_info_1.json", "{}");
  auto c = classify_input(t.str() + "/job/host_1_20250101_ascend_pt");
  EXPECT_EQ(c.kind, InputKind::kRankDir);
  EXPECT_TRUE(c.db.ends_with("ascend_pytorch_profiler_1.db")) << c.db;
  EXPECT_TRUE(c.trace_view.empty());
  // A text export rank directory under another name, and its output directory itself.
  t.file("job/rank7/ASCEND_PROFILER_OUTPUT/trace_view.json", "[]");
  t.file("job/rank7/ASCEND_PROFILER_OUTPUT/kernel_details.csv", "Name,Type,Duration(us)\n");
  c = classify_input(t.str() + "/job/rank7/");
  EXPECT_EQ(c.kind, InputKind::kRankDir);
  EXPECT_TRUE(c.trace_view.ends_with("rank7/ASCEND_PROFILER_OUTPUT/trace_view.json"));
  EXPECT_TRUE(c.kernel_details.ends_with("kernel_details.csv"));
  c = classify_input(t.str() + "/job/rank7/ASCEND_PROFILER_OUTPUT");
  EXPECT_EQ(c.kind, InputKind::kRankDir);
  EXPECT_FALSE(c.trace_view.empty());
  EXPECT_EQ(classify_input(t.dir("PROF_000001_20250101_ABC")).kind, InputKind::kProfDir);
  EXPECT_EQ(classify_input(t.str() + "/job").kind, InputKind::kClusterDir);
  // Kineto traces only (one in array form).
  t.file("gpu/a/trace.json", R"({"traceEvents":[]})");
  t.file("gpu/b/worker.json", R"([{"ph":"X","cat":"Operator","ts":1,"dur":1}])");
  t.file("gpu/notes.json", R"({"x":1})");
  EXPECT_EQ(classify_input(t.str() + "/gpu").kind, InputKind::kClusterDir);
  std::vector<std::pair<std::string, cs::io::InputClass>> other;
  const auto tl = cs::io::timelines_below(t.str() + "/gpu", &other);
  ASSERT_EQ(tl.size(), 2u);
  EXPECT_TRUE(tl[0].ends_with("a/trace.json"));
  EXPECT_TRUE(tl[1].ends_with("b/worker.json"));
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].second.kind, InputKind::kOtherJson);
  EXPECT_EQ(classify_input(t.dir("empty")).kind, InputKind::kOtherDir);
  EXPECT_EQ(classify_input(t.str() + "/nope").kind, InputKind::kMissing);
  // Corrupt gzip: unreadable, with the reason.
  c = classify_input(t.file("bad.json.gz", std::string("\x1f\x8b\x08\x00garbage", 11)));
  EXPECT_EQ(c.kind, InputKind::kUnreadable);
  EXPECT_FALSE(c.reason.empty());
}
