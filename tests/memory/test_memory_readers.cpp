// The memory readers on the real torch_npu samples: every figure checked against values worked out
// by hand from the files. The expected numbers come from a short Python script reading the same
// files with csv / sqlite3 and decimal arithmetic, independently of this code:
//   series: the first of PTA+GE, MindSpore+GE, GE, PTA with a Total Allocated value;
//   peak_allocated = max Total Allocated(MB) * 1048576 of that series (the first row at the max);
//   peak_reserved = max Total Reserved of the series; app = max APP Total Reserved (DB: NPU_MEM
//   rows whose type is STRING_IDS 'app', hbm + ddr); blocks live at the peak: allocation time <=
//   peak time and (no release time or release time > peak time); the step: kernel_details.csv's
//   Step Id 50, min start .. max start + duration (DB: STEP_TIME).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "db/database.h"
#include "memory/memory_db.h"
#include "memory/memory_kineto.h"
#include "memory/memory_text.h"
#include "support/test_data.h"

namespace {

using cs::memory::RankMemory;

using cs::test::kData;

RankMemory text_rank(int r) {
  const std::string dir =
      kData + "/memory/text_level1/rank" + std::to_string(r) + "_ascend_pt/ASCEND_PROFILER_OUTPUT";
  // The step range as hand-computed from kernel_details.csv (rank 0 / rank 1).
  std::vector<cs::memory::StepRange> steps = {
      r == 0 ? cs::memory::StepRange{50, 1736408883704643328, 1736408883841224216}
             : cs::memory::StepRange{50, 1736408883709301248, 1736408883841213840}};
  cs::io::Diagnostics diag;
  uint64_t files = 0, bytes = 0;
  auto m = cs::memory::read_memory_text(dir, steps, diag, &files, &bytes);
  EXPECT_EQ(diag.error_count(), 0u);
  EXPECT_EQ(diag.warning_count(), 0u);
  EXPECT_EQ(files, 3u);
  EXPECT_GT(bytes, 100000u);
  EXPECT_TRUE(m.has_value());
  return m.value_or(RankMemory{});
}

RankMemory db_rank(int r) {
  const std::string path = kData + "/ascend-real/db_level1/rank" + std::to_string(r) +
                           "_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_" +
                           std::to_string(r) + ".db";
  cs::io::Diagnostics diag;
  auto db = cs::db::Database::open(path, diag);
  EXPECT_TRUE(db.has_value());
  if (!db) return {};
  // STEP_TIME of rank 0 / rank 1.
  std::vector<cs::memory::StepRange> steps = {
      r == 0 ? cs::memory::StepRange{50, 1736410576386409710, 1736410576538298460}
             : cs::memory::StepRange{50, 1736410576389878870, 1736410576538144290}};
  auto m = cs::memory::read_memory_db(*db, steps, diag);
  EXPECT_EQ(diag.error_count(), 0u);
  EXPECT_TRUE(m.has_value());
  return m.value_or(RankMemory{});
}

int64_t component(const RankMemory& m, const std::string& kind, const std::string& name) {
  for (const auto& c : m.components)
    if (c.kind == kind && c.name == name) return c.peak_reserved;
  return -1;
}

TEST(MemoryTextReader, RealRank0FiguresAsWorkedOutByHand) {
  const RankMemory m = text_rank(0);
  EXPECT_EQ(m.series, "PTA+GE");
  EXPECT_EQ(m.peak_allocated, 1322299392);  // 1261.0430908203125 MB
  EXPECT_EQ(m.peak_time_ns, 1736408883743396450);
  EXPECT_EQ(m.reserved_at_peak, 1600913408);  // 1526.75 MB
  EXPECT_EQ(m.peak_reserved, 1600913408);
  EXPECT_EQ(m.peak_app_reserved, 2216407040);  // APP 2113.73046875 MB
  EXPECT_EQ(m.peak_step, 50);
  EXPECT_EQ(m.records, 495);  // PTA+GE rows
  EXPECT_EQ(m.blocks, 184);
  EXPECT_EQ(m.never_released, 24);
  EXPECT_EQ(m.never_released_bytes, 264920064);
  EXPECT_EQ(m.live_bytes_at_peak, 586741248);  // 43 blocks live at the peak
  ASSERT_GE(m.live_at_peak.size(), 2u);
  EXPECT_EQ(m.live_at_peak[0].op, "aten::mm");
  EXPECT_EQ(m.live_at_peak[0].bytes, 150995456);
  EXPECT_EQ(m.live_at_peak[0].alloc_ns, 1736408883732502390);
  EXPECT_EQ(m.live_at_peak[1].op, "aten::_foreach_add");
  ASSERT_GE(m.holders.size(), 2u);
  EXPECT_EQ(m.holders[0].op, "aten::_foreach_add");
  EXPECT_EQ(m.holders[0].bytes, 245275136);
  EXPECT_EQ(m.holders[1].op, "aten::mm");
  EXPECT_EQ(m.holders[1].bytes, 234489344);
  EXPECT_EQ(m.peak_operator, "cann::Conv2DBackpropFilter10");  // allocated at the peak's time
  ASSERT_GE(m.operators.size(), 3u);
  EXPECT_EQ(m.operators[0].op, "aten::mm");
  EXPECT_EQ(m.operators[0].calls, 7);
  EXPECT_EQ(m.operators[0].bytes, 258591744);
  EXPECT_EQ(m.operators[0].max_block, 150995456);
  EXPECT_EQ(m.operators[1].op, "aten::_foreach_add");
  EXPECT_EQ(m.operators[1].calls, 17);
  EXPECT_EQ(m.operators[1].bytes, 245276160);
  EXPECT_EQ(m.operators[2].op, "aten::max_pool2d_with_indices_backward");
  EXPECT_EQ(m.operators[2].bytes, 156016128);
  EXPECT_EQ(component(m, "pool", "PTA"), 1522532352);
  EXPECT_EQ(component(m, "pool", "GE"), 78381056);
  EXPECT_EQ(component(m, "pool", "APP"), 2216407040);
  EXPECT_EQ(component(m, "module", "HCCL"), 423690240);  // 404.0625 MB
  EXPECT_EQ(component(m, "module", "APP"), 1522532352);
  EXPECT_EQ(m.components.size(), 4u + 77u);  // 4 pools, 77 modules
  EXPECT_EQ(m.capacity, -1);                 // the text export does not name the chip
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.steps[0].step, 50);
  EXPECT_EQ(m.steps[0].peak_allocated, m.peak_allocated);
  // The curve keeps the peak: its largest bucket max is the peak.
  int64_t top = 0;
  for (const auto& b : m.curve) top = std::max(top, b.max_allocated);
  EXPECT_EQ(top, m.peak_allocated);
  EXPECT_LE(m.curve.size(), RankMemory::kCurveBuckets);
}

TEST(MemoryTextReader, RealRank1FiguresAsWorkedOutByHand) {
  const RankMemory m = text_rank(1);
  EXPECT_EQ(m.peak_allocated, 1322299392);
  EXPECT_EQ(m.peak_time_ns, 1736408883749732560);
  EXPECT_EQ(m.peak_app_reserved, 2216411136);
  EXPECT_EQ(m.live_bytes_at_peak, 586741248);
  EXPECT_EQ(m.peak_step, 50);
}

TEST(MemoryDbReader, RealRank0FiguresAsWorkedOutByHand) {
  const RankMemory m = db_rank(0);
  EXPECT_EQ(m.series, "PTA+GE");
  EXPECT_EQ(m.peak_allocated, 1263251456);
  EXPECT_EQ(m.peak_time_ns, 1736410576444401680);
  EXPECT_EQ(m.reserved_at_peak, 1600913408);
  EXPECT_EQ(m.peak_reserved, 1600913408);
  EXPECT_EQ(m.peak_app_reserved, 2216402944);  // NPU_MEM app: hbm + ddr
  EXPECT_EQ(m.peak_step, 50);
  EXPECT_EQ(m.blocks, 184);
  EXPECT_EQ(m.never_released, 24);
  EXPECT_EQ(m.never_released_bytes, 264920064);
  EXPECT_EQ(m.live_bytes_at_peak, 527693312);
  EXPECT_EQ(m.peak_operator, "Conv2DBackpropInput5");  // the DB names CANN ops without cann::
  ASSERT_GE(m.operators.size(), 1u);
  EXPECT_EQ(m.operators[0].op, "aten::mm");
  EXPECT_EQ(m.operators[0].calls, 7);
  EXPECT_EQ(m.operators[0].bytes, 258591744);
  EXPECT_EQ(component(m, "module", "HCCL"), 423690240);
  EXPECT_EQ(component(m, "pool", "APP"), 2216402944);
  EXPECT_EQ(m.capacity, -1);  // NPU_INFO says "Ascend910B": 32 or 64 GB parts
}

TEST(MemoryDbReader, RealRank1FiguresAsWorkedOutByHand) {
  const RankMemory m = db_rank(1);
  EXPECT_EQ(m.peak_allocated, 1322295296);
  EXPECT_EQ(m.peak_time_ns, 1736410576446350820);
  EXPECT_EQ(m.peak_app_reserved, 2216407040);
  EXPECT_EQ(m.live_bytes_at_peak, 586737152);
  EXPECT_EQ(m.peak_operator, "Conv2DBackpropFilter10");
}

TEST(MemorySummary, PackUnpackIsLossless) {
  const RankMemory m = text_rank(0);
  cs::io::ByteWriter w;
  m.pack(w);
  cs::io::ByteReader r(w.data());
  EXPECT_EQ(RankMemory::unpack(r), m);
  EXPECT_TRUE(r.done());
}

TEST(MemoryTextReader, TimestampsAndUnits) {
  int64_t ns = 0;
  ASSERT_TRUE(cs::memory::parse_us_timestamp("1736408883694624.810\t", ns));
  EXPECT_EQ(ns, 1736408883694624810);
  ASSERT_TRUE(cs::memory::parse_us_timestamp("12", ns));
  EXPECT_EQ(ns, 12000);
  ASSERT_TRUE(cs::memory::parse_us_timestamp("1.23456", ns));
  EXPECT_EQ(ns, 1234);
  EXPECT_FALSE(cs::memory::parse_us_timestamp("", ns));
  EXPECT_FALSE(cs::memory::parse_us_timestamp("12a", ns));
  EXPECT_EQ(cs::memory::header_unit_bytes("Size(KB)"), 1024.0);
  EXPECT_EQ(cs::memory::header_unit_bytes("Total Reserved(MB)"), 1048576.0);
  EXPECT_EQ(cs::memory::header_unit_bytes("Size(B)"), 1.0);
  EXPECT_EQ(cs::memory::header_unit_bytes("Size"), 0.0);
}

TEST(MemoryTextReader, BadRowsAreSaidOnceAndSkipped) {
  cs::io::Diagnostics diag;
  const std::string dir = ::testing::TempDir() + "/cs_memory_bad";
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/memory_record.csv");
    f << "Component,Timestamp(us),Total Allocated(KB),Total Reserved(KB),Total Active(KB)\n"
         "PTA+GE,10.5\t,1024,2048,\n"
         "PTA+GE,oops,1,1,\n"
         "PTA+GE,11.0,zz,1,\n"
         "PTA+GE,12.0,4096,4096,\n";
  }
  auto m = cs::memory::read_memory_text(dir, {}, diag);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->peak_allocated, 4096 * 1024);  // KB read as KB
  EXPECT_EQ(m->peak_time_ns, 12000);
  EXPECT_EQ(m->records, 2);
  ASSERT_EQ(diag.warning_count(), 1u);
  EXPECT_EQ(diag.items()[0].line, 3);
  EXPECT_NE(diag.items()[0].what.find("2 row(s) skipped"), std::string::npos);
  EXPECT_EQ(diag.items()[0].what.find("oops"), std::string::npos);  // never quotes the input
  EXPECT_EQ(m->blocks, 0);  // no operator_memory.csv: no blocks, no error
  std::filesystem::remove_all(dir);
}

// Times at the edge of int64 nanoseconds: read while they fit, refused past it, and a row whose
// allocation time plus duration would overflow is left out like any implausible time (found by
// the memory fuzzer: tests/data/fuzz/memory/crash-duration-overflow).
TEST(MemoryTextReader, TimesPastInt64AreRefusedNotOverflowed) {
  int64_t ns = 0;
  // (INT64_MAX - 999) / 1000 whole microseconds is the largest that fits with three decimals.
  ASSERT_TRUE(cs::memory::parse_us_timestamp("9223372036854774.999", ns));
  EXPECT_EQ(ns, 9223372036854774999);
  EXPECT_FALSE(cs::memory::parse_us_timestamp("9223372036854775", ns));
  EXPECT_FALSE(cs::memory::parse_us_timestamp("99999999999999999999", ns));

  cs::io::Diagnostics diag;
  const std::string dir = ::testing::TempDir() + "/cs_memory_overflow";
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/memory_record.csv");
    f << "Component,Timestamp(us),Total Allocated(KB),Total Reserved(KB),Device\n"
         "PTA+GE,1000.5,2048,4096,NPU:0\n"
         "PTA+GE,1001.0,6144,8192,NPU:0\n";
    std::ofstream o(dir + "/operator_memory.csv");
    o << "Name,Size(KB),Allocation Time(us),Duration(us),Device Type\n"
         "ok,4,1000.9,1.0,NPU:0\n"
         "huge,1,7631408883720993.440,1736408883720992.760,NPU:0\n";
  }
  auto m = cs::memory::read_memory_text(dir, {}, diag);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->peak_time_ns, 1001000);
  EXPECT_EQ(m->blocks, 1);  // "huge" ends past any time: left out
  EXPECT_EQ(m->live_bytes_at_peak, 4 * 1024);
  EXPECT_EQ(m->peak_operator, "ok");
  std::filesystem::remove_all(dir);

  // A kernel's start or duration past 2^62 ns widens no step.
  std::map<int64_t, cs::memory::StepRange> ranges;
  cs::memory::widen_step(ranges, 1, 1e300, 1.0);
  cs::memory::widen_step(ranges, 1, 10.0, 9e15);
  cs::memory::widen_step(ranges, 1, 10.0, std::nan(""));
  EXPECT_TRUE(ranges.empty());
  cs::memory::widen_step(ranges, 1, 10.0, 2.5);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[1].start_ns, 10000);
  EXPECT_EQ(ranges[1].end_ns, 12500);
}

TEST(MemoryTextReader, NoMemoryRecordNoMemory) {
  cs::io::Diagnostics diag;
  EXPECT_FALSE(cs::memory::read_memory_text(kData + "/memory", {}, diag).has_value());
  EXPECT_TRUE(diag.empty());
}

}  // namespace

namespace {

// A real Kineto trace with profile_memory=True (HF Falconsai on an H100: tests/data/SOURCES.md).
// Hand-computed with json + sorted() on the same file: the device ("Device Type" 1) events sorted
// by ts; the peak is the largest "Total Allocated" (first at the max); blocks pair an allocation
// with the release of its Addr; ProfilerStep#6 (user_annotation) spans the peak.
TEST(MemoryKinetoReader, RealH100TraceFiguresAsWorkedOutByHand) {
  cs::io::Diagnostics diag;
  const auto m = cs::memory::read_memory_kineto(
      kData + "/kineto-variants/pretty_h100_falconsai.json.gz", diag);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(diag.error_count(), 0u);
  EXPECT_EQ(m->series, "CUDA");
  EXPECT_EQ(m->peak_allocated, 231332864);
  EXPECT_EQ(m->peak_time_ns, 1414456663238781);
  EXPECT_EQ(m->reserved_at_peak, 245366784);
  EXPECT_EQ(m->peak_reserved, 245366784);
  EXPECT_EQ(m->capacity, 85018279936);  // deviceProperties' totalGlobalMem
  EXPECT_EQ(m->records, 572);           // 286 allocations, 286 releases
  EXPECT_EQ(m->blocks, 286);
  EXPECT_EQ(m->never_released, 0);
  EXPECT_EQ(m->live_bytes_at_peak, 16455680);  // 7 blocks
  EXPECT_EQ(m->peak_step, 6);
  EXPECT_FALSE(m->peak_operator.empty());
  // A trace without memory events has no memory.
  EXPECT_FALSE(
      cs::memory::read_memory_kineto(kData + "/kineto/sampled_rank-0.json.gz", diag).has_value());
}

// Events whose times are past 2^62 ns, and a step number past int64, are left out; the rest of
// the trace is read.
TEST(MemoryKinetoReader, TimesAndStepNumbersPastInt64AreLeftOut) {
  const std::string path = ::testing::TempDir() + "/cs_memory_kineto_huge.json";
  {
    std::ofstream f(path);
    f << R"({"traceEvents":[
      {"name":"[memory]","ph":"i","ts":100.0,"args":{"Device Type":1,"Total Allocated":512,
       "Total Reserved":1024,"Bytes":512,"Addr":1}},
      {"name":"[memory]","ph":"i","ts":1e300,"args":{"Device Type":1,"Total Allocated":4096,
       "Total Reserved":8192,"Bytes":4096,"Addr":2}},
      {"name":"[memory]","ph":"i","ts":200.0,"args":{"Device Type":1,"Total Allocated":0,
       "Total Reserved":1024,"Bytes":-512,"Addr":1}},
      {"name":"ProfilerStep#99999999999999999999999","ph":"X","cat":"user_annotation",
       "ts":50.0,"dur":1e300},
      {"name":"aten::empty","ph":"X","cat":"cpu_op","ts":99.0,"dur":1e300}
    ]})";
  }
  cs::io::Diagnostics diag;
  const auto m = cs::memory::read_memory_kineto(path, diag);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->records, 2);
  EXPECT_EQ(m->peak_allocated, 512);
  EXPECT_EQ(m->peak_time_ns, 100000);
  EXPECT_EQ(m->peak_step, -1);  // the one step was left out
  std::filesystem::remove(path);
}

}  // namespace
