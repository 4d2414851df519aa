// MegEngine's two profiler outputs (formats.md §11), on hand-written inputs in
// tests/data/megengine/:
//   static_graph.profile.json — six operators of a small conv net, device times in seconds:
//     data 0.5 ms, conv1 3.0 ms, relu1 1.0 ms, fc 2.0 ms on gpu0:0 and 1.5 ms on gpu0:1
//     (the longer counts), relu2 0.5 ms, shape_of host only (no device time) -> 7.0 ms in all;
//   dynamic.chrome_timeline.json — one process, threads channel (1), worker (2), gpu0:0 (10),
//     gpu0:1 (11); five ops dispatched, executed on the worker and spanned on the devices
//     (Convolution 30-130 µs, MatrixMul 130-210, Elemwise 215-235, CollectiveComm 240-300 on
//     gpu0:0, Elemwise 280-290 on gpu0:1), a HostToDevice copy 5-9 µs, Start/StopProfile;
//   cupti.chrome_timeline.json — the same threads with CUPTI on: four ops on the worker, each
//     launching one kernel (a B/E on the worker starting a KernelLink flow) that runs on stream
//     thread 30 or 31 (conv 50-150, sgemm 150-230, elemwise 240-260, nccl 250-320 µs) and ends
//     the flow at its end; Convolution's per-op span on gpu0:0 (25-160) is an annotation;
//   copy_graph.profile.json — a static-graph profile with two Copy operators (one on two comp
//     nodes), kern and host times, Float16 and Float32 inputs (values in
//     tests/top/test_top_megengine.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "io/input_kind.h"
#include "readers/megengine_profile.h"
#include "readers/megengine_timeline.h"

namespace cs::io {
namespace {

const std::string kDir = std::string(CS_TEST_DATA) + "/megengine/";

TEST(MegEngineProfile, ReadsOperatorsTimesAndFootprints) {
  readers::MegEngineProfile p;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_megengine_profile(kDir + "static_graph.profile.json", p, diag));
  EXPECT_TRUE(diag.empty());
  ASSERT_EQ(p.ops.size(), 6u);
  // Sorted by numeric id, not as strings ("11" after "9").
  EXPECT_EQ(p.ops[0].id, "1");
  EXPECT_EQ(p.ops[4].id, "11");
  const readers::MegEngineOperator& conv = p.ops[1];
  EXPECT_EQ(conv.name, "conv1");
  EXPECT_EQ(conv.type, "ConvolutionForward");
  EXPECT_NEAR(conv.device_s, 0.0035 - 0.0005, 1e-12);
  EXPECT_NEAR(conv.device_kern_s, 0.0006 - 0.0005, 1e-12);
  EXPECT_NEAR(conv.host_s, 0.00006 - 0.00002, 1e-12);
  EXPECT_DOUBLE_EQ(conv.computation, 236027904);  // 2 * 64*112*112 * 3*7*7
  EXPECT_DOUBLE_EQ(conv.memory, 3851008);         // (150528 + 9408 + 802816) * 4 bytes
  EXPECT_EQ(conv.in_shapes, "{1,3,224,224}, {64,3,7,7}");
  EXPECT_EQ(conv.out_shapes, "{1,64,112,112}");
  EXPECT_EQ(conv.in_dtypes, "Float32;Float32");
  // fc ran on two comp nodes: 2.0 ms and 1.5 ms -> the longer; kern − start 0.2 ms and 0.
  EXPECT_NEAR(p.ops[3].device_s, 0.002, 1e-12);
  EXPECT_NEAR(p.ops[3].device_kern_s, 0.0002, 1e-12);
  // computation null -> unknown; memory 0 is a value.
  EXPECT_LT(p.ops[0].computation, 0);
  EXPECT_EQ(p.ops[0].in_shapes, "");
  EXPECT_LT(p.ops[5].device_s, 0);  // shape_of: host only
  EXPECT_DOUBLE_EQ(p.ops[5].memory, 0);
  // 0.5 + 3.0 + 1.0 + 2.0 + 0.5 ms; host 20 + 40 + 20 + 30 + 20 + 10 µs.
  EXPECT_NEAR(p.total_device_s, 0.007, 1e-12);
  EXPECT_NEAR(p.total_host_s, 0.00014, 1e-12);
}

TEST(MegEngineProfile, WrongDocumentsAndDamagedEntries) {
  readers::MegEngineProfile p;
  Diagnostics diag;
  EXPECT_FALSE(readers::parse_megengine_profile(simdjson::padded_string(std::string("{\"a\": 1}")),
                                                "x.json", p, diag));
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("graph_exec"), std::string::npos);
  // One operator is not an object, one device entry has no end: both left out, one warning.
  const std::string text =
      R"({"graph_exec": {"operator": {"1": 5, "2": {"name": "a", "type": "T", "input": []}},
          "var": {}},
          "profiler": {"device": {"2": {"gpu0:0": {"start": 1.0}}}, "host": {}}})";
  readers::MegEngineProfile q;
  Diagnostics d2;
  ASSERT_TRUE(readers::parse_megengine_profile(simdjson::padded_string(text), "y.json", q, d2));
  ASSERT_EQ(q.ops.size(), 1u);
  EXPECT_LT(q.ops[0].device_s, 0);
  ASSERT_EQ(d2.warning_count(), 1u);
  EXPECT_NE(d2.items()[0].what.find("2 operator entries"), std::string::npos);
}

TEST(MegEngineProfile, BrokenJsonIsOneErrorNamingFileAndPlace) {
  // A cut file: one error, "ends early", at the end of what is there (line 3).
  const std::string cut =
      "{\"graph_exec\": {\"operator\": {\n\"1\": {\"id\": \"1\", \"name\": \"a\"},\n"
      "\"2\": {\"id\": \"2\", \"na";
  readers::MegEngineProfile p;
  Diagnostics diag;
  EXPECT_FALSE(readers::parse_megengine_profile(simdjson::padded_string(cut), "cut.json", p, diag));
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].file, "cut.json");
  EXPECT_EQ(diag.items()[0].line, 3);
  EXPECT_NE(diag.items()[0].what.find("ends early"), std::string::npos) << diag.items()[0].what;
  // NaN (Python's json.dump writes it; JSON has none): one error at the NaN, line 2.
  const std::string nan =
      "{\"graph_exec\": {\"operator\": {}},\n \"profiler\": {\"device\": {\"1\": {\"gpu0:0\": "
      "{\"start\": NaN, \"end\": 1}}}}}";
  Diagnostics d2;
  EXPECT_FALSE(readers::parse_megengine_profile(simdjson::padded_string(nan), "nan.json", p, d2));
  ASSERT_EQ(d2.items().size(), 1u);
  EXPECT_EQ(d2.items()[0].file, "nan.json");
  EXPECT_EQ(d2.items()[0].line, 2);
  EXPECT_EQ(d2.items()[0].offset, static_cast<int64_t>(nan.find("NaN")));
  EXPECT_NE(d2.items()[0].what.find("NaN is not a JSON number"), std::string::npos)
      << d2.items()[0].what;
  EXPECT_NE(diag.items()[0].hint.find("Nothing of it was read"), std::string::npos);
  // A time of the wrong type, an end before its start, a difference beyond double: the entries
  // are left out with one warning; the rest is read.
  const std::string odd = R"({"graph_exec": {"operator": {"1": {"name": "a", "type": "T"},
      "2": {"name": "b", "type": "T"}, "3": {"name": "c", "type": "T"},
      "4": {"name": "d", "type": "T"}}},
      "profiler": {"device": {"1": {"g": {"start": "0", "end": 1}}, "2": {"g": {"start": 2, "end": 1}},
                              "3": {"g": {"start": -1.7e308, "end": 1.7e308}},
                              "4": {"g": {"start": 0, "end": 0.5}}}}})";
  Diagnostics d3;
  readers::MegEngineProfile q;
  ASSERT_TRUE(readers::parse_megengine_profile(simdjson::padded_string(odd), "odd.json", q, d3));
  ASSERT_EQ(d3.items().size(), 1u);
  EXPECT_NE(d3.items()[0].what.find("3 operator entries are malformed"), std::string::npos)
      << d3.items()[0].what;
  EXPECT_NEAR(q.total_device_s, 0.5, 1e-12);
}

TEST(MegEngineTimeline, CutFileIsOneErrorNamingFileAndPlace) {
  const std::string cut =
      "{\"traceEvents\":[\n{\"name\":\"a\",\"ph\":\"B\",\"pid\":1,\"tid\":1,"
      "\"ts\":1},\n{\"name\":\"a\",\"ph\":\"E\",\"pid\":1,\"ti";
  readers::Trace t;
  Diagnostics diag;
  EXPECT_FALSE(
      readers::parse_megengine_timeline(simdjson::padded_string(cut), "cut.json", t, diag));
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].file, "cut.json");
  EXPECT_EQ(diag.items()[0].line, 3);
}

TEST(MegEngineTimeline, PairsBeginEndIntoEventsOfTheRightKind) {
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_megengine_timeline(kDir + "dynamic.chrome_timeline.json", t, diag));
  EXPECT_TRUE(diag.empty());
  size_t kernels = 0, memcpy = 0, ops = 0, other = 0;
  double kernel_us = 0;
  for (const auto& e : t.events) {
    ASSERT_EQ(e.phase, 'X');
    switch (e.kind) {
      case readers::EventKind::kKernel:
        ++kernels;
        kernel_us += e.dur_us;
        break;
      case readers::EventKind::kMemcpy:
        ++memcpy;
        EXPECT_EQ(t.strings.str(e.name), "HostToDevice");
        EXPECT_DOUBLE_EQ(e.dur_us, 4);
        break;
      case readers::EventKind::kCpuOp:
        ++ops;
        EXPECT_EQ(e.tid, 2);  // the worker
        break;
      default:
        ++other;  // Start/StopProfile, 5 OpDispatch
    }
  }
  EXPECT_EQ(kernels, 5u);
  EXPECT_DOUBLE_EQ(kernel_us, 100 + 80 + 20 + 60 + 10);
  EXPECT_EQ(memcpy, 1u);
  EXPECT_EQ(ops, 5u);
  EXPECT_EQ(other, 7u);
  // 5 OpDispatch s + 5 t, 5 KernelLaunch s + 5 f; the counter is not kept.
  EXPECT_EQ(t.flows.size(), 20u);
  EXPECT_EQ(t.thread_names.size(), 4u);
  EXPECT_EQ(t.process_names.at(100), "MegEngine");
  // In time order: the copy (5 µs) first, the convolution at 30 µs.
  const auto first_kernel = std::find_if(t.events.begin(), t.events.end(), [](const auto& e) {
    return e.kind == readers::EventKind::kKernel;
  });
  EXPECT_EQ(first_kernel->ts_ns, 30000);
  EXPECT_EQ(t.strings.str(first_kernel->name), "Convolution");
}

TEST(MegEngineTimeline, CuptiKernelsAreTheDeviceWorkAndUnpairedEventsAreCounted) {
  // gpu0:0 spans the op (0-50 µs); CUPTI puts its kernel on stream thread 7 (10-40 µs) and a
  // memcpy (40-45 µs). The span becomes an annotation so the device time is not counted twice.
  // One B on the worker never ends.
  const std::string text = R"({"traceEvents":[
    {"name":"MatrixMul","ph":"B","cat":"Kernel","pid":1,"tid":10,"ts":0},
    {"name":"sgemm_128x64","ph":"B","pid":1,"tid":7,"ts":10,"args":{"execution_time":30000}},
    {"name":"sgemm_128x64","ph":"E","pid":1,"tid":7,"ts":40,"args":{"execution_time":30000}},
    {"name":"Memcpy","ph":"B","pid":1,"tid":7,"ts":40,"args":{"bytes":"4096"}},
    {"name":"Memcpy","ph":"E","pid":1,"tid":7,"ts":45,"args":{"bytes":"4096"}},
    {"name":"MatrixMul","ph":"E","cat":"Kernel","pid":1,"tid":10,"ts":50,"args":{"__id__":1}},
    {"name":"Elemwise","ph":"B","pid":1,"tid":2,"ts":60},
    {"name":"thread_name","ph":"M","pid":1,"tid":10,"args":{"name":"gpu0:0"}}
  ],"metadata":{"localTime":"0"}})";
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_megengine_timeline(simdjson::padded_string(text), "c.json", t, diag));
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.events[0].kind, readers::EventKind::kGpuUserAnnotation);
  EXPECT_EQ(t.events[1].kind, readers::EventKind::kKernel);
  EXPECT_DOUBLE_EQ(t.events[1].dur_us, 30);
  EXPECT_EQ(t.events[2].kind, readers::EventKind::kMemcpy);
  ASSERT_EQ(diag.warning_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("1 begin/end events have no partner"), std::string::npos);
}

TEST(MegEngineTimeline, TimesBeyond2To62NsAreBadNotOverflows) {
  // A begin at -4.5e15 us and its end at +4.5e15 us: a duration of 9e18 ns, which fits in 64
  // bits. A time of 9.1e15 us (9.1e18 ns) is left out as a bad entry: the difference of two such
  // times would not fit (UBSan checks the arithmetic in the sanitizer build).
  const std::string text = R"({"traceEvents":[
    {"name":"Wide","ph":"B","pid":1,"tid":2,"ts":-4.5e15},
    {"name":"Wide","ph":"E","pid":1,"tid":2,"ts":4.5e15},
    {"name":"Far","ph":"B","pid":1,"tid":2,"ts":-9.1e15},
    {"name":"Far","ph":"E","pid":1,"tid":2,"ts":9.1e15}
  ]})";
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(
      readers::parse_megengine_timeline(simdjson::padded_string(text), "far.json", t, diag));
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].dur_ns, 9000000000000000000LL);
  EXPECT_EQ(diag.warning_count(), 1u) << "the two far events, one warning";
}

TEST(MegEngineTimeline, CuptiKernelLinkFlowMovedFromTheKernelEndToItsStart) {
  // MegEngine ends a CUPTI kernel's KernelLink flow at the kernel's end (ts 40); readers link a
  // flow where a kernel starts, so the reader moves it to 10. Another category's flow at a
  // kernel's end (CUPTILink, 45) stays where it is.
  const std::string text = R"({"traceEvents":[
    {"name":"sgemm","ph":"B","pid":1,"tid":2,"ts":1},
    {"cat":"KernelLink","id":7,"name":"1","ph":"s","pid":1,"tid":2,"ts":1},
    {"name":"sgemm","ph":"E","pid":1,"tid":2,"ts":2},
    {"name":"sgemm","ph":"B","pid":1,"tid":7,"ts":10,"args":{"execution_time":30000}},
    {"bp":"e","cat":"KernelLink","id":7,"name":"1","ph":"f","pid":1,"tid":7,"ts":40},
    {"name":"sgemm","ph":"E","pid":1,"tid":7,"ts":40,"args":{"execution_time":30000}},
    {"name":"k2","ph":"B","pid":1,"tid":7,"ts":41,"args":{"execution_time":4000}},
    {"bp":"e","cat":"CUPTILink","id":8,"name":"1","ph":"f","pid":1,"tid":7,"ts":45},
    {"name":"k2","ph":"E","pid":1,"tid":7,"ts":45,"args":{"execution_time":4000}}
  ]})";
  readers::Trace t;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_megengine_timeline(simdjson::padded_string(text), "k.json", t, diag));
  ASSERT_EQ(t.flows.size(), 3u);
  EXPECT_EQ(t.flows[0].ts_ns, 1000);   // the start, on the worker
  EXPECT_EQ(t.flows[1].ts_ns, 10000);  // was 40000
  EXPECT_EQ(t.flows[2].ts_ns, 45000);
}

TEST(MegEngineTimeline, DeviceNames) {
  for (const char* yes : {"gpu0:0", "cpu0:0", "xpux:0", "atlas1:2", "rocm0:0", "multithread2:0"})
    EXPECT_TRUE(readers::is_megengine_device_name(yes)) << yes;
  for (const char* no : {"worker", "channel", "gpu:0", "cpu0", "gpuA:0", ""})
    EXPECT_FALSE(readers::is_megengine_device_name(no)) << no;
  EXPECT_TRUE(readers::is_megengine_collective("CollectiveComm"));
  EXPECT_FALSE(readers::is_megengine_collective("Elemwise"));
}

TEST(MegEngineKinds, ClassifiedByContent) {
  const InputClass s = classify_input(kDir + "static_graph.profile.json");
  EXPECT_EQ(s.kind, InputKind::kMegEngineProfile) << s.reason;
  const InputClass d = classify_input(kDir + "dynamic.chrome_timeline.json");
  EXPECT_EQ(d.kind, InputKind::kMegEngineTimeline) << d.reason;
  EXPECT_TRUE(is_timeline_kind(d.kind));
  EXPECT_FALSE(is_timeline_kind(s.kind));
  // By content, whatever the name: a profile whose profiler block comes first.
  EXPECT_EQ(classify_head("trace.json", R"({"profiler": {"opr_footprint": {}}})").kind,
            InputKind::kMegEngineProfile);
  EXPECT_EQ(classify_head("x.json", R"({"traceEvents":[{"cat":"KernelLaunch","ph":"s"}]})").kind,
            InputKind::kMegEngineTimeline);
  // A Kineto trace stays one.
  EXPECT_EQ(
      classify_head("x.chrome_timeline.json", R"({"traceEvents":[{"cat":"kernel","ph":"X"}]})")
          .kind,
      InputKind::kKinetoTrace);
}

}  // namespace
}  // namespace cs::io
