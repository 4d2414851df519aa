// End to end: `clusterscope merge` on the real samples (two Kineto traces; two NPU rank
// directories built from trace_view.json), checked by tests/data/merge/check_merged.py with
// Python's json module: event counts, pid ranges, renamed processes, flow pairs, exact
// timestamps (with and without --align), gzip output; broken input, rank filter, MPI, memory.
//
// Until `merge` is registered in cli/main.cpp, set CS_MERGE_BINARY to a binary that has it;
// otherwise these tests are skipped with a message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/cli_test_util.h"
#include "cli/strict_json_check.h"
#include "support/missing_tool.h"
#include "support/test_data.h"
#include "support/under_asan.h"

namespace fs = std::filesystem;
using cs::test::mpirun;
using cs::test::read_file;
using cs::test::run_command;

namespace {

using cs::test::kData;
const std::string kPython = "/usr/bin/python3 ";

std::string binary() {
  const char* env = std::getenv("CS_MERGE_BINARY");
  return env && *env ? env : CS_BINARY;
}

class MergeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = cs::test::temp_dir("merge");
    const int rc = run_command(binary() + " merge --help", (root_ / "help.log").string());
    registered_ = rc == 0;
    // Two Kineto traces (ranks from distributedInfo).
    fs::create_directories(root_ / "kineto" / "traces");
    for (int r = 0; r < 2; ++r)
      fs::copy_file(
          kData + "/kineto/sampled_rank-" + std::to_string(r) + ".json.gz",
          root_ / "kineto" / "traces" / ("sampled_rank-" + std::to_string(r) + ".json.gz"));
    // Two NPU rank directories; rank 1's clock runs 1234.567 us ahead of rank 0's.
    ASSERT_EQ(run_command(kPython + kData + "/merge/make_merge_inputs.py npu " +
                              (root_ / "npu").string() + " " + kData +
                              "/ascend/trace_view.json --shift-us 1234.567",
                          (root_ / "make.log").string()),
              0)
        << read_file(root_ / "make.log");
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  void SetUp() override {
    if (!registered_)
      CS_MISSING_TOOL("'" << binary()
                          << " merge' (register run_merge in cli/main.cpp, or set "
                             "CS_MERGE_BINARY)");
  }

  // Runs `clusterscope merge ARGS`; stdout+stderr go to LOG.
  static int merge(const std::string& args, const fs::path& log, const std::string& launcher = "") {
    return run_command(launcher + binary() + " merge " + args, log.string());
  }
  // Runs the checker; returns its output, fails the test when it fails. The merged file (the
  // first argument) must also be strict JSON (simdjson, and Python refusing NaN/Infinity).
  static std::string check(const std::string& args) {
    const fs::path log = root_ / "check.log";
    const int rc = run_command(kPython + kData + "/merge/check_merged.py " + args, log.string());
    std::string out = read_file(log);
    EXPECT_EQ(rc, 0) << out;
    const std::string merged = args.substr(0, args.find(' '));
    if (merged.size() < 3 || merged.substr(merged.size() - 3) != ".gz") {
      EXPECT_EQ(cs::test::strict_json_error(merged), "") << merged;
      EXPECT_EQ(cs::test::python_json_error(merged), "") << merged;
    }
    return out;
  }
  static std::string npu_trace(int rank) {
    return (root_ / "npu" /
            ("node_" + std::to_string(rank) + "_1700000000" + std::to_string(rank) + "_ascend_pt") /
            "ASCEND_PROFILER_OUTPUT" / "trace_view.json")
        .string();
  }
  static std::string kineto_trace(int rank) {
    return (root_ / "kineto" / "traces" / ("sampled_rank-" + std::to_string(rank) + ".json.gz"))
        .string();
  }

  static fs::path root_;
  static bool registered_;
};
fs::path MergeTest::root_;
bool MergeTest::registered_ = false;

TEST_F(MergeTest, KinetoPairKeepsEveryEventAndRenamesProcesses) {
  const fs::path out = root_ / "kineto.json";
  ASSERT_EQ(merge((root_ / "kineto").string() + " -o " + out.string(), root_ / "k.log"), 0)
      << read_file(root_ / "k.log");
  const std::string res = check(out.string() + " 0=" + kineto_trace(0) + " 1=" + kineto_trace(1) +
                                " --rank-from 0=distributedInfo --rank-from 1=distributedInfo");
  EXPECT_NE(res.find("OK events="), std::string::npos) << res;
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
}

TEST_F(MergeTest, OutputInsideTheInputIsNotMergedAgain) {
  const fs::path dir = root_ / "inside";
  fs::create_directories(dir);
  for (int r = 0; r < 2; ++r)
    fs::copy_file(kineto_trace(r), dir / fs::path(kineto_trace(r)).filename());
  for (const char* name : {"first.json", "second.json"}) {
    const fs::path out = dir / name;
    const fs::path log = root_ / "inside.log";
    ASSERT_EQ(merge(dir.string() + " -o " + out.string() + " -q", log), 0) << read_file(log);
    check(out.string() + " 0=" + kineto_trace(0) + " 1=" + kineto_trace(1));
  }
  EXPECT_NE(read_file(root_ / "inside.log").find("an earlier merged trace"), std::string::npos);
}

TEST_F(MergeTest, KinetoGzipOutputWithAlign) {
  const fs::path out = root_ / "kineto-aligned.json.gz";
  ASSERT_EQ(merge((root_ / "kineto").string() + " -o " + out.string() +
                      " --align ncclKernel_SendRecv --quiet",
                  root_ / "kg.log"),
            0)
      << read_file(root_ / "kg.log");
  // The file is gzip (magic bytes) and Python's gzip reads it (inside the checker).
  const std::string head = read_file(out).substr(0, 2);
  EXPECT_EQ(head, "\x1f\x8b");
  const std::string res = check(out.string() + " 0=" + kineto_trace(0) + " 1=" + kineto_trace(1) +
                                " --align ncclKernel_SendRecv");
  // The two samples start their first SendRecv kernel at different times: rank 1 moves.
  EXPECT_EQ(res.find("shifts_ns=[0, 0]"), std::string::npos) << res;
}

TEST_F(MergeTest, NpuPairKeepsNanosecondDigits) {
  const fs::path out = root_ / "npu.json";
  ASSERT_EQ(merge((root_ / "npu").string() + " -o " + out.string(), root_ / "n.log"), 0)
      << read_file(root_ / "n.log");
  const std::string res = check(out.string() + " 0=" + npu_trace(0) + " 1=" + npu_trace(1) +
                                " --rank-from 0=profiler_info --rank-from 1=profiler_info");
  EXPECT_NE(res.find("shifts_ns=[0, 0]"), std::string::npos) << res;
  // String timestamps come out as numbers with the same digits.
  const std::string text = read_file(out);
  EXPECT_NE(text.find("\"ts\":1704161511420306.491"), std::string::npos);
  EXPECT_EQ(text.find("\"ts\":\"17"), std::string::npos);
}

TEST_F(MergeTest, NpuAlignUndoesTheClockOffset) {
  const fs::path out = root_ / "npu-aligned.json";
  ASSERT_EQ(merge((root_ / "npu").string() + " -o " + out.string() + " --align aclnnMm_TransData",
                  root_ / "na.log"),
            0)
      << read_file(root_ / "na.log");
  const std::string res = check(out.string() + " 0=" + npu_trace(0) + " 1=" + npu_trace(1) +
                                " --align aclnnMm_TransData");
  EXPECT_NE(res.find("shifts_ns=[0, -1234567]"), std::string::npos) << res;
  // Rank 1's copy of the first event lands exactly on rank 0's.
  const std::string text = read_file(out);
  size_t first = text.find("\"ts\":1704161511420306.491");
  ASSERT_NE(first, std::string::npos);
  EXPECT_NE(text.find("\"ts\":1704161511420306.491", first + 1), std::string::npos);
}

TEST_F(MergeTest, RankFilter) {
  const fs::path out = root_ / "npu-rank1.json";
  ASSERT_EQ(merge((root_ / "npu").string() + " -o " + out.string() + " --ranks 1", root_ / "r.log"),
            0)
      << read_file(root_ / "r.log");
  check(out.string() + " 1=" + npu_trace(1));
}

TEST_F(MergeTest, BrokenTraceIsSkippedWithExitStatus3) {
  const fs::path dir = root_ / "broken";
  ASSERT_EQ(run_command(kPython + kData + "/merge/make_merge_inputs.py npu " + dir.string() + " " +
                        kData + "/ascend/trace_view.json"),
            0);
  // Rank 1's file is cut in the middle of an event.
  const std::string tv1 =
      (dir / "node_1_17000000001_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")
          .string();
  const std::string whole = read_file(tv1);
  fs::remove(tv1);
  std::ofstream(tv1, std::ios::binary) << whole.substr(0, whole.size() / 2);
  const fs::path out = root_ / "broken.json";
  const fs::path log = root_ / "b.log";
  EXPECT_EQ(merge(dir.string() + " -o " + out.string() + " --quiet", log), 3) << read_file(log);
  const std::string err = read_file(log);
  EXPECT_NE(err.find("clusterscope: " + tv1), std::string::npos) << err;
  EXPECT_NE(err.find("\u2014"), std::string::npos) << err;
  check(out.string() + " 0=" +
        (dir / "node_0_17000000000_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")
            .string());
}

// Issue 17, finding 5: fuzzing made `merge` copy broken pieces verbatim (71 of 3,039 runs gave an
// unparseable merged.json, 23 with rc 0). Every field that is not valid JSON is left out, with one
// warning per file giving the count; the output always parses, strictly.
TEST_F(MergeTest, BrokenFieldsAreLeftOutAndTheOutputStaysValid) {
  const fs::path dir = root_ / "hostile";
  fs::create_directories(dir);
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  auto event = [](const std::string& name, int ts, const std::string& rest) {
    return "{\"ph\":\"X\",\"name\":\"" + name +
           "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(ts) + "," + rest + "}";
  };
  std::ofstream(dir / "trace_rank_0.json", std::ios::binary)
      << "{\"distributedInfo\": {\"rank\": 0}, \"traceEvents\": [\n"
      << event("good", 10, "\"dur\":5,\"args\":{\"a\":1}") << ",\n"
      << event("nan", 20, "\"dur\":5,\"args\":{\"x\":NaN}") << ",\n"
      << event("inf", 30, "\"dur\":1,\"args\":{\"x\":[Infinity,-Infinity]}") << ",\n"
      << event("array", 40, "\"dur\":1,\"args\":[1 2]") << ",\n"
      << event("comma", 50, "\"dur\":1,\"args\":{\"a\":1,}") << ",\n"
      << event("escape", 60, "\"dur\":1,\"args\":{\"a\":\"\\q\"}") << ",\n"
      << event("deep", 80, "\"dur\":1,\"args\":{\"a\":" + deep + "}") << ",\n"
      << "{\"ph\":\"X\",\"name\":\"token\",\"pid\":1,\"tid\":1,\"ts\":tru,\"dur\":01}"
      << ",\n"
      << event("key", 90, "\"dur\":1,\"k\\q\":1") << ",\n"
      << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":{\"x\":1}}"
         "}"
      << "\n]}";
  // Rank 1: an unterminated string; rank 2: bytes that are not UTF-8 in a name; rank 3: raw
  // control characters in a string (simdjson refuses the whole file: it is skipped, named).
  std::ofstream(dir / "trace_rank_1.json", std::ios::binary)
      << "{\"distributedInfo\": {\"rank\": 1}, \"traceEvents\": [\n"
      << event("ok", 10, "\"dur\":5") << ",\n"
      << event("open", 20, "\"dur\":1,\"args\":{\"a\":\"abc}}") << "\n]}";
  std::ofstream(dir / "trace_rank_2.json", std::ios::binary)
      << "{\"distributedInfo\": {\"rank\": 2}, \"traceEvents\": [\n"
      << event("bad\xff\xfe utf8", 10, "\"dur\":5") << "\n]}";
  std::ofstream(dir / "trace_rank_3.json", std::ios::binary)
      << "{\"distributedInfo\": {\"rank\": 3}, \"traceEvents\": [\n"
      << event("control", 70, "\"dur\":1,\"args\":{\"a\":\"x\x01y\tz\"}") << "\n]}";

  // Rank 0 alone: merged, rc 0, one warning with the count of fields left out.
  const fs::path one = root_ / "hostile0.json";
  const fs::path log0 = root_ / "h0.log";
  EXPECT_EQ(merge(dir.string() + " -o " + one.string() + " --ranks 0", log0), 0) << read_file(log0);
  const std::string err = read_file(log0);
  EXPECT_NE(err.find("trace_rank_0.json: 10 event field(s) were not valid JSON"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("were not valid JSON", err.find("were not valid JSON") + 1), std::string::npos)
      << err;
  EXPECT_EQ(cs::test::strict_json_error(one.string()), "");
  EXPECT_EQ(cs::test::python_json_error(one.string()), "");
  const std::string merged = read_file(one);
  EXPECT_NE(
      merged.find("\"name\":\"good\",\"pid\":0,\"tid\":1,\"ts\":10,\"dur\":5,\"args\":{\"a\":1}"),
      std::string::npos)
      << merged;
  EXPECT_NE(merged.find("\"name\":\"nan\",\"pid\":0,\"tid\":1,\"ts\":20,\"dur\":5}"),
            std::string::npos)
      << merged;
  EXPECT_NE(merged.find("(name not valid JSON)"), std::string::npos) << merged;

  // All four: whatever is skipped, the output is strict JSON.
  const fs::path all = root_ / "hostile.json";
  const fs::path log = root_ / "h.log";
  const int rc = merge(dir.string() + " -o " + all.string(), log);
  EXPECT_TRUE(rc == 0 || rc == 3) << rc << read_file(log);
  EXPECT_EQ(cs::test::strict_json_error(all.string()), "") << read_file(log);
  EXPECT_EQ(cs::test::python_json_error(all.string()), "") << read_file(log);
}

TEST_F(MergeTest, RankFromFileNameThenOrder) {
  const fs::path dir = root_ / "names";
  fs::create_directories(dir);
  // Plain JSON without distributedInfo: one named rank_5, one with no rank in its name.
  const std::string strip =
      "import gzip,json,sys; d=json.load(gzip.open(sys.argv[1])); d.pop('distributedInfo');"
      "json.dump(d, open(sys.argv[2],'w'))";
  ASSERT_EQ(run_command(kPython + "-c \"" + strip + "\" " + kineto_trace(0) + " " +
                        (dir / "trace_rank_5.json").string()),
            0);
  ASSERT_EQ(run_command(kPython + "-c \"" + strip + "\" " + kineto_trace(1) + " " +
                        (dir / "worker.json").string()),
            0);
  std::ofstream(dir / "not_a_trace.json") << "{\"a\": 1}";
  const fs::path out = root_ / "names.json";
  ASSERT_EQ(merge(dir.string() + " -o " + out.string(), root_ / "nm.log"), 0)
      << read_file(root_ / "nm.log");
  check(out.string() + " 5=" + (dir / "trace_rank_5.json").string() +
        " 0=" + (dir / "worker.json").string() + " --rank-from 5=file\\ name --rank-from 0=order");
}

TEST_F(MergeTest, NothingFoundAndBadCommandLine) {
  const fs::path empty = root_ / "empty";
  fs::create_directories(empty);
  const fs::path log = root_ / "e.log";
  EXPECT_EQ(merge(empty.string() + " -o " + (root_ / "e.json").string(), log), 1) << read_file(log);
  EXPECT_NE(read_file(log).find("no timeline found"), std::string::npos) << read_file(log);
  EXPECT_FALSE(fs::exists(root_ / "e.json"));
  EXPECT_EQ(merge(empty.string(), log), 2);
  EXPECT_EQ(merge((root_ / "npu").string() + " -o x.json --ranks 3-1", log), 2);
}

TEST_F(MergeTest, SameBytesUnderMpirun) {
  const fs::path one = root_ / "mpi1.json";
  ASSERT_EQ(merge((root_ / "npu").string() + " -o " + one.string() + " --quiet", root_ / "m1.log"),
            0)
      << read_file(root_ / "m1.log");
  for (int np : {2, 3}) {
    const fs::path many = root_ / ("mpi" + std::to_string(np) + ".json");
    const fs::path log = root_ / ("m" + std::to_string(np) + ".log");
    ASSERT_EQ(
        merge((root_ / "npu").string() + " -o " + many.string() + " --quiet", log, mpirun(np)), 0)
        << read_file(log);
    EXPECT_TRUE(read_file(one) == read_file(many)) << "np=" << np;
    for (int p = 1; p < np; ++p)
      EXPECT_FALSE(fs::exists(many.string() + ".part" + std::to_string(p) + ".tmp"));
  }
}

// Peak RSS must not grow with the number of ranks (one file in memory at a time). The numbers
// are printed for the record; the bound is generous.
TEST_F(MergeTest, PeakMemoryDoesNotGrowWithRanks) {
#if CS_UNDER_ASAN
  // Platform, not a missing tool: ASan keeps freed memory in quarantine (256 MB by default), so
  // RSS grows with what was freed.
  GTEST_SKIP() << "peak RSS means nothing under AddressSanitizer";
#endif
  long rss[2] = {0, 0};
  const int counts[2] = {1, 8};
  for (int k = 0; k < 2; ++k) {
    const fs::path dir = root_ / ("mem" + std::to_string(counts[k]));
    ASSERT_EQ(run_command(kPython + kData + "/merge/make_merge_inputs.py npu " + dir.string() +
                          " " + kData + "/ascend/trace_view.json --repeat 30 --ranks " +
                          std::to_string(counts[k])),
              0);
    const fs::path out = root_ / "mem.json.gz";
    const fs::path time_log = root_ / "time.log";
    ASSERT_EQ(run_command("/usr/bin/time -f '%M %e' -o " + time_log.string() + " " + binary() +
                              " merge " + dir.string() + " -o " + out.string() + " --quiet",
                          (root_ / "mem.log").string()),
              0)
        << read_file(root_ / "mem.log");
    double secs = 0;
    std::ifstream(time_log) >> rss[k] >> secs;
    std::printf(
        "[ measure  ] merge of %d x %.1f MB trace_view.json: peak RSS %ld KB, %.2f s\n", counts[k],
        static_cast<double>(fs::file_size(fs::canonical(
            dir / "node_0_17000000000_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"))) /
            1e6,
        rss[k], secs);
    fs::remove_all(dir);
  }
  ASSERT_GT(rss[0], 0);
  EXPECT_LT(rss[1], rss[0] * 3 / 2 + 20000) << "peak RSS grows with the number of ranks";
}

}  // namespace
