// The pieces of `clusterscope merge` on tiny inline traces: exact timestamp shifts, process
// ordering and pid mapping, the rewritten event text, and the diagnostics of a broken file.
#include <gtest/gtest.h>

#include <string>

#include "timeline/merge_sources.h"
#include "timeline/merge_timestamp.h"
#include "timeline/merge_trace.h"

namespace {

using cs::timeline::shift_timestamp;

std::string shifted(std::string_view raw, int64_t ns) {
  std::string out;
  if (!shift_timestamp(raw, ns, out)) return "<bad>";
  return out;
}

TEST(MergeTimestamp, KeepsDigitsAndShiftsExactly) {
  EXPECT_EQ(shifted("\"1704161511420306.491\"", 0), "1704161511420306.491");
  EXPECT_EQ(shifted("1682725897235145", 0), "1682725897235145");
  EXPECT_EQ(shifted("\"1704161511420306.491\"", -1234567), "1704161511419071.924");
  EXPECT_EQ(shifted("1682725897235145", 1000), "1682725897235146");
  EXPECT_EQ(shifted("1682725897235145", 1), "1682725897235145.001");
  EXPECT_EQ(shifted("100.5", 1500), "102.0");
  EXPECT_EQ(shifted("7", -2), "6.998");
  EXPECT_EQ(shifted("0.5", -1000), "-0.5");
  EXPECT_EQ(shifted("1.2345678", 1), "1.2355678");  // finer than ns: digits kept
  EXPECT_EQ(shifted("1.5e3", 500), "1500.500");
  EXPECT_EQ(shifted("\"abc\"", 0), "<bad>");
  EXPECT_EQ(shifted("\"12.\"", 5), "<bad>");
  // 36 digits are shifted exactly; more are refused before they could overflow 128 bits (UBSan
  // flags the overflow without the check).
  const std::string d36(36, '1');
  EXPECT_EQ(shifted(d36, 1000), d36.substr(0, 35) + "2");  // 1000 ns: 1 us more
  EXPECT_EQ(shifted(std::string(50, '9'), 1000), "<bad>");
  EXPECT_EQ(shifted("1." + std::string(45, '9'), 1000), "<bad>");
}

std::string merged(const std::string& json, int rank, int64_t shift, cs::timeline::TraceScan& scan,
                   cs::io::Diagnostics& diag, const std::string& align = "") {
  simdjson::padded_string text(json);
  if (!cs::timeline::scan_trace(text, "t.json", align, scan, diag)) return "<scan failed>";
  auto plan = cs::timeline::plan_rank(scan, rank, shift);
  std::string out;
  cs::timeline::RewriteStats st;
  if (!cs::timeline::rewrite_trace(
          text, "t.json", scan, plan, [&](std::string_view b) { out += b; }, st, diag))
    return "<rewrite failed>";
  return out;
}

TEST(MergeTrace, RewritesPidsNamesFlowsAndKeepsTheRest) {
  const std::string json = R"([
    {"ph": "X", "name": "a", "pid": 77, "tid": 5, "ts": "10.250", "dur": 1.5, "args": {"k": [1, {"x": "y"}]}},
    {"ph": "s", "id": "0x1f", "cat": "fwdbwd", "pid": 77, "tid": 5, "ts": 11, "name": "f"},
    {"name": "f", "ph": "f", "bp": "e", "id": "0x1f", "cat": "fwdbwd", "pid": "Spans", "tid": "x", "ts": 12},
    {"name": "process_name", "pid": 77, "tid": 0, "args": {"name": "Py\"thon"}, "ph": "M"},
    {"name": "process_sort_index", "pid": 77, "tid": 0, "args": {"sort_index": 9}, "ph": "M"},
    {"name": "process_sort_index", "pid": "Spans", "args": {"sort_index": 3}, "ph": "M"}
  ])";
  cs::timeline::TraceScan scan;
  cs::io::Diagnostics diag;
  const std::string out = merged(json, 2, 0, scan, diag);
  ASSERT_EQ(scan.events, 6u);
  ASSERT_EQ(scan.processes.size(), 2u);
  // "Spans" sorts first (sort index 3 < 9): pid 20000; 77 -> 20001.
  EXPECT_EQ(
      out,
      ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":20000,\"tid\":0,\"args\":{\"name\":"
      "\"rank 2 \u00b7 pid Spans\"}}"
      ",\n{\"ph\":\"X\",\"name\":\"a\",\"pid\":20001,\"tid\":5,\"ts\":10.250,\"dur\":1.5,"
      "\"args\":{\"k\": [1, {\"x\": \"y\"}]}}"
      ",\n{\"ph\":\"s\",\"id\":2000000001,\"cat\":\"fwdbwd\",\"pid\":20001,\"tid\":5,\"ts\":11,"
      "\"name\":\"f\"}"
      ",\n{\"name\":\"f\",\"ph\":\"f\",\"bp\":\"e\",\"id\":2000000001,\"cat\":\"fwdbwd\","
      "\"pid\":20000,\"tid\":\"x\",\"ts\":12}"
      ",\n{\"name\":\"process_name\",\"pid\":20001,\"tid\":0,\"args\":{\"name\":\"rank 2 "
      "\u00b7 Py\\\"thon\"},\"ph\":\"M\"}"
      ",\n{\"name\":\"process_sort_index\",\"pid\":20001,\"tid\":0,\"args\":{\"sort_index\":"
      "20001},\"ph\":\"M\"}"
      ",\n{\"name\":\"process_sort_index\",\"pid\":20000,\"args\":{\"sort_index\":20000},"
      "\"ph\":\"M\"}");
  EXPECT_TRUE(diag.empty());
}

TEST(MergeTrace, KinetoObjectFactsAndAlign) {
  const std::string json =
      R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 3},
    "traceEvents": [
      {"ph": "X", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 500.5, "dur": 2},
      {"ph": "X", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 400.25, "dur": 2},
      {"ph": "f", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 1.0, "id": 4}
    ], "baseTimeNanoseconds": 1700000000000000000})";
  cs::timeline::TraceScan scan;
  cs::io::Diagnostics diag;
  const std::string out = merged(json, 0, -250, scan, diag, "AllReduce");
  EXPECT_TRUE(scan.object_form);
  EXPECT_EQ(scan.distributed_rank, 3);
  EXPECT_EQ(scan.base_time_ns, 1700000000000000000LL);
  ASSERT_TRUE(scan.align_found);
  EXPECT_EQ(scan.align_ns, 400250);  // the earliest X, not the flow end
  EXPECT_NE(out.find("\"ts\":500.25"), std::string::npos) << out;
  EXPECT_NE(out.find("\"ts\":400.00"), std::string::npos) << out;
  EXPECT_NE(out.find("\"ts\":0.75"), std::string::npos) << out;
}

// Python reads integers beyond 64 bits (issue 17): merge keeps them, digit for digit, in args
// and in ts (shifted exactly).
TEST(MergeTrace, IntegersBeyond64BitsAreKeptExactly) {
  const std::string big = "123456789012345678901234567890";
  const std::string json = R"([
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": )" +
                           big + R"(, "dur": 1, "args": {"seq": )" + big + R"(, "n": [-)" + big +
                           R"(]}}
  ])";
  for (const int64_t shift : {int64_t{0}, int64_t{2000}, int64_t{-1}}) {
    cs::timeline::TraceScan scan;
    cs::io::Diagnostics diag;
    const std::string out = merged(json, 0, shift, scan, diag);
    const std::string ts = shift == 0      ? big
                           : shift == 2000 ? "123456789012345678901234567892"
                                           : "123456789012345678901234567889.999";
    EXPECT_NE(out.find("\"ts\":" + ts + ","), std::string::npos) << out;
    EXPECT_NE(out.find("\"args\":{\"seq\": " + big + ", \"n\": [-" + big + "]}"), std::string::npos)
        << out;
    EXPECT_FALSE(diag.has_errors() || !diag.items().empty()) << diag.items().size();
  }
  EXPECT_EQ(shifted(big, 1), big + ".001");
}

TEST(MergeTrace, BrokenFileGivesOneErrorWithPosition) {
  const std::string json =
      "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"ts\": 1},\n {\"ph\": \"X\", \"na";
  cs::timeline::TraceScan scan;
  cs::io::Diagnostics diag;
  EXPECT_EQ(merged(json, 0, 0, scan, diag), "<scan failed>");
  ASSERT_EQ(diag.error_count(), 1u);
  const auto& d = diag.items()[0];
  EXPECT_EQ(d.file, "t.json");
  EXPECT_GE(d.offset, 0);
  EXPECT_NE(d.hint.find("left out of the merge"), std::string::npos);

  cs::io::Diagnostics diag2;
  cs::timeline::TraceScan scan2;
  EXPECT_EQ(merged("{\"a\": 1}", 0, 0, scan2, diag2), "<scan failed>");
  ASSERT_EQ(diag2.error_count(), 1u);
  EXPECT_NE(diag2.items()[0].what.find("traceEvents"), std::string::npos);
}

TEST(MergeSources, RankFromFileName) {
  using cs::timeline::rank_from_file_name;
  EXPECT_EQ(rank_from_file_name("sampled_rank-3.json.gz"), 3);
  EXPECT_EQ(rank_from_file_name("trace_RANK_12.json"), 12);
  EXPECT_EQ(rank_from_file_name("rank7.pt.trace.json"), 7);
  EXPECT_EQ(rank_from_file_name("trace.json"), std::nullopt);
  EXPECT_EQ(rank_from_file_name("ranking.json"), std::nullopt);
}

}  // namespace
