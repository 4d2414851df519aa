// Kineto (PyTorch profiler) trace reader on the real HTA samples and on broken inputs.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "io/json/gzip_input.h"
#include "readers/kineto_trace.h"

namespace cs::io {
namespace {

const std::string kRank0 = std::string(CS_TEST_DATA) + "/kineto/sampled_rank-0.json.gz";
const std::string kRank1 = std::string(CS_TEST_DATA) + "/kineto/sampled_rank-1.json.gz";

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

TEST(KinetoTrace, ReadsRealRank0) {
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_kineto_trace(kRank0, t, diag));
  EXPECT_TRUE(diag.empty()) << diag.items().front().to_string();
  EXPECT_EQ(t.total_events, 4855u);
  EXPECT_EQ(t.events.size(), 4811u);  // 44 M events are metadata
  EXPECT_EQ(t.skipped_events, 0u);
  EXPECT_TRUE(t.distributed.present);
  EXPECT_EQ(t.distributed.backend, "nccl");
  EXPECT_EQ(t.distributed.rank, 0);
  EXPECT_EQ(t.distributed.world_size, 128);

  size_t kernels = 0, nccl = 0, cpu_ops = 0;
  double kernel_us = 0, nccl_us = 0;
  int64_t first = INT64_MAX, last = 0;
  std::set<std::string> steps;
  for (const auto& e : t.events) {
    const auto name = t.strings.str(e.name);
    if (e.kind == readers::EventKind::kKernel) {
      ++kernels;
      kernel_us += e.dur_us;
      first = std::min(first, e.ts_ns);
      last = std::max(last, e.end_ns());
      EXPECT_GE(e.correlation, 0);
      if (starts_with(name, "nccl")) {
        ++nccl;
        nccl_us += e.dur_us;
      }
    }
    if (e.kind == readers::EventKind::kCpuOp) ++cpu_ops;
    if (starts_with(name, "ProfilerStep#")) steps.insert(std::string(name));
  }
  EXPECT_EQ(kernels, 1154u);
  EXPECT_EQ(nccl, 10u);
  EXPECT_EQ(cpu_ops, 2329u);
  EXPECT_DOUBLE_EQ(kernel_us, 606519.0);
  EXPECT_DOUBLE_EQ(nccl_us, 396199.0);
  EXPECT_EQ(first, 1682725898082228000LL);
  EXPECT_EQ(last, 1682725899305046000LL);
  EXPECT_EQ(steps, (std::set<std::string>{"ProfilerStep#551", "ProfilerStep#552"}));
  EXPECT_EQ(t.process_labels.at(0), "GPU 0");
  // Input shapes of cpu ops are kept as raw JSON.
  auto mean = std::find_if(t.events.begin(), t.events.end(), [&](const readers::TraceEvent& e) {
    return t.strings.str(e.name) == "MeanBackward0";
  });
  ASSERT_NE(mean, t.events.end());
  EXPECT_EQ(t.strings.str(mean->input_dims), "[[]]");
  EXPECT_EQ(mean->external_id, 41507);
}

TEST(KinetoTrace, ReadsRealRank1) {
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_kineto_trace(kRank1, t, diag));
  EXPECT_EQ(t.total_events, 4720u);
  EXPECT_EQ(t.distributed.rank, 1);
  const auto kernels = std::count_if(
      t.events.begin(), t.events.end(),
      [](const readers::TraceEvent& e) { return e.kind == readers::EventKind::kKernel; });
  EXPECT_EQ(kernels, 1104);
}

TEST(KinetoTrace, NanosecondTimestampsAndFlowsAndNcclArgs) {
  const std::string json = R"J({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7,
     "ts": 1704161511420306.491, "dur": 3.5, "args": {"correlation": 12}},
    {"ph": "s", "id": 12, "pid": 7, "tid": 7, "ts": 1704161511420306.491, "cat": "ac2g", "name": "ac2g"},
    {"ph": "f", "id": 12, "pid": 0, "tid": 20, "ts": 1704161511420400.0005, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
     "pid": 0, "tid": 20, "ts": 1704161511420400.0005, "dur": 12.25,
     "args": {"correlation": 12, "Collective name": "all_reduce", "In msg nelems": 1024,
              "Out msg nelems": 1024, "Group size": 8, "dtype": "Float",
              "Process Group Name": "0", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}},
    {"ph": "i", "s": "t", "name": "marker", "pid": 7, "tid": 7, "ts": 5},
    {"ph": "M", "name": "thread_name", "pid": 7, "tid": 7, "args": {"name": "python"}}
  ], "baseTimeNanoseconds": 1700000000000000000
})J";
  simdjson::padded_string p(json);
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_kineto_trace(p, "inline", t, diag));
  EXPECT_TRUE(diag.empty());
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.events[0].ts_ns, 1704161511420306491LL);
  EXPECT_EQ(t.events[0].dur_ns, 3500);
  EXPECT_EQ(t.events[1].ts_ns, 1704161511420400001LL);  // 0.5 ns rounds up
  EXPECT_EQ(t.events[1].kind, readers::EventKind::kKernel);
  ASSERT_GE(t.events[1].collective, 0);
  const auto& c = t.collectives[static_cast<size_t>(t.events[1].collective)];
  EXPECT_EQ(t.strings.str(c.collective_name), "all_reduce");
  EXPECT_EQ(c.in_nelems, 1024);
  EXPECT_EQ(c.group_size, 8);
  EXPECT_EQ(t.strings.str(c.dtype), "Float");
  EXPECT_EQ(t.strings.str(c.pg_ranks), "[0, 1, 2, 3, 4, 5, 6, 7]");
  EXPECT_EQ(t.events[2].phase, 'i');
  ASSERT_EQ(t.flows.size(), 2u);
  EXPECT_EQ(t.flows[0].phase, 's');
  EXPECT_EQ(t.flows[1].phase, 'f');
  EXPECT_EQ(t.flows[1].id, 12u);
  EXPECT_TRUE(t.flows[1].bind_enclosing);
  EXPECT_EQ(t.strings.str(t.flows[0].cat), "ac2g");
  EXPECT_EQ(t.thread_names.at({7, 7}), "python");
  EXPECT_EQ(t.base_time_ns, 1700000000000000000LL);
  EXPECT_FALSE(t.distributed.present);
}

// Escaped strings, string pids / tids / ids / timestamps and the less usual number forms take the
// general paths of the reader and must read as the plain ones do.
TEST(KinetoTrace, EscapesStringIdsAndNumberForms) {
  const std::string json = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "say \"hi\"\n", "pid": "Spans", "tid": "7", "ts": "100.5",
     "dur": 2, "args": {"External id": "42", "correlation": 5.0}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 4037.0, "tid": -3, "ts": 1.5e1,
     "dur": "0.25"},
    {"ph":"X","cat":"cpu_\u006fp","name":"aten::mm","pid":1234567890123456789,"tid":0,"ts":200 ,"dur":1.0 },
    {"ph": "s", "id": "0x1f", "pid": 1, "tid": 1, "ts": 1, "cat": "ac2g", "name": "ac2g"},
    {"ph": "f", "id": "77", "pid": 1, "tid": 1, "ts": 2, "cat": "ac2g", "name": "ac2g", "bp": "e"}
  ]})J";
  simdjson::padded_string p(json);
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_kineto_trace(p, "forms.json", t, diag));
  EXPECT_TRUE(diag.empty());
  ASSERT_EQ(t.events.size(), 3u);
  const auto& a = t.events[0];
  EXPECT_EQ(t.strings.str(a.name), "say \"hi\"\n");
  EXPECT_EQ(a.pid, -1 - static_cast<int64_t>(t.strings.find("Spans")));
  EXPECT_EQ(a.tid, -1 - static_cast<int64_t>(t.strings.find("7")));
  EXPECT_EQ(a.ts_ns, 100500);
  EXPECT_EQ(a.dur_ns, 2000);
  EXPECT_EQ(a.external_id, 42);
  EXPECT_EQ(a.correlation, 5);
  const auto& b = t.events[1];
  EXPECT_EQ(b.pid, 4037);
  EXPECT_EQ(b.tid, -3);
  EXPECT_EQ(b.ts_ns, 15000);
  EXPECT_EQ(b.dur_ns, 250);
  EXPECT_EQ(b.name, t.events[2].name);
  const auto& c = t.events[2];
  EXPECT_EQ(c.cat, a.cat);  // "cpu_\u006fp" is "cpu_op"
  EXPECT_EQ(c.kind, readers::EventKind::kCpuOp);
  EXPECT_EQ(c.pid, 1234567890123456789LL);
  EXPECT_EQ(c.ts_ns, 200000);
  ASSERT_EQ(t.flows.size(), 2u);
  EXPECT_EQ(t.flows[0].id, std::hash<std::string_view>{}("0x1f"));
  EXPECT_EQ(t.flows[1].id, 77u);
  EXPECT_TRUE(t.flows[1].bind_enclosing);
  EXPECT_FALSE(t.flows[0].bind_enclosing);
}

// simdjson 3.0.1's get_double() is wrong for numbers of more than 19 significant digits.
TEST(KinetoTrace, LongDurationsAreExact) {
  const std::string json = R"J({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 2, "ts": 10,
     "dur": 12.3456789012345678901234 },
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 2, "ts": 30, "dur": 1.5}
  ]})J";
  simdjson::padded_string p(json);
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_kineto_trace(p, "long.json", t, diag));
  EXPECT_TRUE(diag.empty());
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].dur_ns, 12346);  // 12.3456... us
  EXPECT_EQ(t.events[1].dur_ns, 1500);
}

// Issue 17, finding 9: numbers beyond int64 are never converted (UBSan's double->int64 site):
// a pid of 1e300 skips its event, a correlation of 1e30 becomes unknown (-1), a dur whose ns
// would overflow skips its event; a distributedInfo rank outside [0, world_size) or beyond 32
// bits leaves both unknown, with one warning.
TEST(KinetoTrace, OutOfRangeNumbersAreRefused) {
  const std::string json = R"J({"distributedInfo": {"rank": 2147483648, "world_size": 8},
    "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 1e300, "tid": 2, "ts": 10, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 2, "ts": 10, "dur": 1,
     "args": {"correlation": 1e30}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 2, "ts": 10, "dur": 1e300}
  ]})J";
  simdjson::padded_string p(json);
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_kineto_trace(p, "range.json", t, diag));
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].correlation, -1);
  EXPECT_EQ(t.skipped_events, 2u);
  EXPECT_EQ(t.distributed.rank, -1);
  EXPECT_EQ(t.distributed.world_size, -1);
  EXPECT_EQ(diag.warning_count(), 3u);
  for (const char* rank : {"-5", "8", "9000000000"}) {
    const std::string j = std::string(R"({"distributedInfo": {"rank": )") + rank +
                          R"(, "world_size": 8}, "traceEvents": []})";
    simdjson::padded_string q(j);
    readers::Trace u;
    Diagnostics d;
    readers::parse_kineto_trace(q, "rank.json", u, d);
    EXPECT_EQ(u.distributed.rank, -1) << rank;
    ASSERT_EQ(d.warning_count(), 1u) << rank;
    EXPECT_NE(d.items()[0].what.find("0 <= rank < world_size"), std::string::npos);
  }
}

TEST(KinetoTrace, ParseMicrosecondsToNanoseconds) {
  int64_t ns = 0;
  EXPECT_TRUE(readers::parse_us_to_ns("1704161511420306.491", ns));
  EXPECT_EQ(ns, 1704161511420306491LL);
  EXPECT_TRUE(readers::parse_us_to_ns("\"12\"", ns));
  EXPECT_EQ(ns, 12000);
  EXPECT_TRUE(readers::parse_us_to_ns("1.5e3", ns));
  EXPECT_EQ(ns, 1500000);
  EXPECT_TRUE(readers::parse_us_to_ns("-2.0004", ns));
  EXPECT_EQ(ns, -2000);
  EXPECT_FALSE(readers::parse_us_to_ns("", ns));
  EXPECT_FALSE(readers::parse_us_to_ns("abc", ns));
  EXPECT_FALSE(readers::parse_us_to_ns("12x", ns));
  EXPECT_FALSE(readers::parse_us_to_ns("99999999999999999999", ns));
}

TEST(KinetoTrace, BadEventsAreSkippedWithDiagnostics) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "name": "ok", "pid": 1, "tid": 1, "ts": 10, "dur": 1},
    {"ph": "X", "name": "no ts", "pid": 1, "tid": 1, "dur": 1},
    {"ph": "X", "name": "bad dur", "pid": 1, "tid": 1, "ts": 11, "dur": "x"},
    {"ph": "X", "name": "no dur", "pid": 1, "tid": 1, "ts": 12},
    {"ph": "X", "name": "ok2", "pid": 1, "tid": 1, "ts": 13, "dur": 2},
    7
  ]})";
  simdjson::padded_string p(json);
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_kineto_trace(p, "bad.json", t, diag));
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.skipped_events, 4u);
  EXPECT_EQ(diag.warning_count(), 4u);
  EXPECT_EQ(diag.items()[0].file, "bad.json");
  EXPECT_EQ(diag.items()[0].line, 3);
  EXPECT_GT(diag.items()[0].offset, 0);
}

TEST(KinetoTrace, TruncatedJsonKeepsEarlierEventsAndReportsError) {
  std::string json = R"({"traceEvents": [
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 10, "dur": 1},
    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 20, "dur": 1},
    {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": 3)";
  simdjson::padded_string p(json);
  readers::Trace t;
  Diagnostics diag;
  readers::parse_kineto_trace(p, "cut.json", t, diag);
  EXPECT_TRUE(diag.has_errors());
  EXPECT_LE(t.events.size(), 2u);
  EXPECT_EQ(diag.items().back().file, "cut.json");
}

TEST(KinetoTrace, WrongShapesAreErrors) {
  for (const char* json : {"[1, 2]", R"({"foo": []})", R"({"traceEvents": 5})", "", "nul"}) {
    simdjson::padded_string p{std::string(json)};
    readers::Trace t;
    Diagnostics diag;
    EXPECT_FALSE(readers::parse_kineto_trace(p, "x.json", t, diag)) << json;
    EXPECT_TRUE(diag.has_errors()) << json;
    EXPECT_FALSE(diag.items().front().hint.empty());
  }
}

std::string gzip_bytes(const std::string& text) {
  z_stream s{};
  deflateInit2(&s, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&s, text.size()) + 64, '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  s.avail_in = static_cast<uInt>(text.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  deflate(&s, Z_FINISH);
  out.resize(s.total_out);
  deflateEnd(&s);
  return out;
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = std::string(CS_BUILD_DIR) + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(GzipInput, RoundTripAndConcatenatedMembers) {
  const std::string a = R"({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, )";
  const std::string b = R"("ts": 1, "dur": 2}]})";
  const auto path = write_temp("kt_two_members.json.gz", gzip_bytes(a) + gzip_bytes(b));
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_kineto_trace(path, t, diag));
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].dur_ns, 2000);
}

TEST(GzipInput, CorruptAndTruncatedGzipAreErrors) {
  std::string gz = gzip_bytes(std::string(5000, ' ') + R"({"traceEvents": []})");
  std::string corrupt = gz;
  for (size_t i = 20; i < 40 && i < corrupt.size(); ++i)
    corrupt[i] = static_cast<char>(~corrupt[i]);
  std::string truncated = gz.substr(0, gz.size() / 2);
  for (const auto& [name, bytes] :
       {std::pair<std::string, std::string>{"kt_corrupt.json.gz", corrupt},
        {"kt_truncated.json.gz", truncated}}) {
    const auto path = write_temp(name, bytes);
    readers::Trace t;
    Diagnostics diag;
    EXPECT_FALSE(readers::read_kineto_trace(path, t, diag)) << name;
    ASSERT_TRUE(diag.has_errors()) << name;
    EXPECT_EQ(diag.items().front().file, path);
    EXPECT_GE(diag.items().front().offset, 0) << name;
  }
}

TEST(GzipInput, MissingAndEmptyFiles) {
  Diagnostics diag;
  simdjson::padded_string s;
  EXPECT_FALSE(load_json_maybe_gzip("/nonexistent/trace.json", s, diag));
  EXPECT_NE(diag.items().front().what.find("cannot open"), std::string::npos);
  Diagnostics diag2;
  EXPECT_FALSE(load_json_maybe_gzip(write_temp("kt_empty.json", ""), s, diag2));
  EXPECT_NE(diag2.items().front().what.find("empty"), std::string::npos);
}

}  // namespace
}  // namespace cs::io
