// NPU trace_view.json reader on the real msprof-analyze sample and on broken inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "readers/trace_view.h"

namespace cs::io {
namespace {

const std::string kTraceView = std::string(CS_TEST_DATA) + "/ascend/trace_view.json";

TEST(TraceView, ReadsRealSample) {
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_trace_view(kTraceView, t, diag));
  EXPECT_TRUE(diag.empty());
  EXPECT_EQ(t.total_events, 3670u);
  EXPECT_EQ(t.events.size(), 2212u);
  EXPECT_EQ(t.flows.size(), 1426u);
  EXPECT_EQ(t.process_names.at(800), "Ascend Hardware");
  EXPECT_EQ(t.process_names.at(4376751100LL), "Overlap Analysis");
  EXPECT_EQ(t.thread_names.at({4376751100LL, 2}), "Communication(Not Overlapped)");
  // String timestamps keep their nanoseconds.
  EXPECT_EQ(t.events.front().ts_ns, 1704161511420306491LL);
  EXPECT_EQ(t.strings.str(t.events.front().name), "aten::empty");
  EXPECT_EQ(t.events.front().kind, readers::EventKind::kCpuOp);

  size_t hw = 0, overlap = 0, cpu = 0, ai_cpu = 0, dma = 0;
  double hw_us = 0, computing_us = 0, free_us = 0;
  for (const auto& e : t.events) {
    switch (e.kind) {
      case readers::EventKind::kKernel:
        ++hw;
        hw_us += e.dur_us;
        if (t.strings.str(e.task_type) == "AI_CPU") ++ai_cpu;
        break;
      case readers::EventKind::kOverlap:
        ++overlap;
        if (t.strings.str(e.name) == "Computing") computing_us += e.dur_us;
        if (t.strings.str(e.name) == "Free") free_us += e.dur_us;
        break;
      case readers::EventKind::kCpuOp:
        ++cpu;
        break;
      case readers::EventKind::kDeviceDma:
        ++dma;
        break;
      default:
        break;
    }
  }
  // 276 Ascend Hardware tasks: 274 compute, 2 MEMCPY_ASYNC (DMA, 2.19 µs). The compute tasks
  // add up to the producer's own Overlap Analysis "Computing" (1788.2505 µs; no overlap on its
  // one stream).
  EXPECT_EQ(hw, 274u);
  EXPECT_EQ(dma, 2u);
  EXPECT_EQ(ai_cpu, 2u);
  EXPECT_NEAR(hw_us, 1788.2506236877448, 1e-9);
  EXPECT_EQ(overlap, 547u);
  EXPECT_NEAR(computing_us, 1788.2505, 1e-6);
  EXPECT_NEAR(free_us, 9481.667, 1e-6);
  EXPECT_EQ(cpu, 711u);
  // Flows: async_npu ends pair up by id; string ids ("38654705663") are parsed as numbers.
  const uint32_t h2d = t.strings.find("HostToDevice");
  ASSERT_NE(h2d, kNoString);
  EXPECT_TRUE(std::any_of(t.flows.begin(), t.flows.end(), [&](const readers::FlowEvent& f) {
    return f.cat == h2d && f.id == 38654705663ULL;
  }));
}

TEST(TraceView, EventKindFromProcess) {
  EXPECT_EQ(
      readers::npu_event_kind("Ascend Hardware", "aclnnMm_MatMul", readers::EventKind::kOther),
      readers::EventKind::kKernel);
  EXPECT_EQ(
      readers::npu_event_kind("Ascend Hardware", "hcom_allReduce__1", readers::EventKind::kOther),
      readers::EventKind::kCommunication);
  EXPECT_EQ(readers::npu_event_kind("HCCL", "hcom_broadcast__2", readers::EventKind::kOther),
            readers::EventKind::kCommunication);
  EXPECT_EQ(readers::npu_event_kind("HCCL", "Notify_Wait", readers::EventKind::kOther),
            readers::EventKind::kOther);
  EXPECT_EQ(readers::npu_event_kind("Overlap Analysis", "Free", readers::EventKind::kOther),
            readers::EventKind::kOverlap);
  EXPECT_EQ(readers::npu_event_kind("Python", "aten::mm", readers::EventKind::kCpuOp),
            readers::EventKind::kCpuOp);
}

TEST(TraceView, ObjectInsteadOfArrayIsAnError) {
  simdjson::padded_string p(std::string(R"({"traceEvents": []})"));
  readers::Trace t;
  Diagnostics diag;
  EXPECT_FALSE(readers::parse_trace_view(p, "tv.json", t, diag));
  ASSERT_TRUE(diag.has_errors());
  EXPECT_NE(diag.items().front().what.find("array"), std::string::npos);
}

TEST(TraceView, StringTimestampThatIsNotANumberIsSkipped) {
  simdjson::padded_string p(std::string(
      R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "12.5", "dur": 1},
          {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": "soon", "dur": 1}])"));
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_trace_view(p, "tv.json", t, diag));
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].ts_ns, 12500);
  EXPECT_EQ(t.skipped_events, 1u);
  EXPECT_EQ(diag.items().size(), 2u);  // the bad ts, and the missing process names
}

TEST(TraceView, TruncatedFileReportsByteOffset) {
  std::string json = R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "12.5", "dur": 1},
  {"ph": "X", "name": "b", "pid": 1, "ti)";
  simdjson::padded_string p(json);
  readers::Trace t;
  Diagnostics diag;
  readers::parse_trace_view(p, "tv.json", t, diag);
  ASSERT_TRUE(diag.has_errors());
  EXPECT_GE(diag.items().back().offset, 0);
}

}  // namespace
}  // namespace cs::io
