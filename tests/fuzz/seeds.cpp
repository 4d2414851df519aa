// The fuzz seeds (tests/data/fuzz/<harness>/seed-*, cut by fuzz/make_seeds.py) are inputs the
// readers accept with content: a seed the reader rejected outright would start the fuzzer from
// noise. Each check reads a seed through the reader its harness calls and expects records and no
// error.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "db/analysis_db.h"
#include "db/database.h"
#include "db/profiler_db.h"
#include "db/string_ids.h"
#include "io/input_kind.h"
#include "memory/memory_db.h"
#include "memory/memory_text.h"
#include "readers/communication.h"
#include "readers/kineto_trace.h"
#include "readers/matrix.h"
#include "readers/megengine_profile.h"
#include "readers/megengine_timeline.h"
#include "readers/step_trace.h"
#include "readers/trace_view.h"
#include "support/test_files.h"

namespace {

std::string seed(const std::string& harness, const std::string& name) {
  return std::string(CS_TEST_DATA) + "/fuzz/" + harness + "/seed-" + name;
}

TEST(FuzzSeeds, JsonSeedsHaveRecords) {
  for (const char* n : {"sample_split.json", "text_level1.json"}) {
    cs::readers::CommunicationFile f;
    cs::io::Diagnostics d;
    EXPECT_TRUE(cs::readers::read_communication_json(seed("communication", n), f, d)) << n;
    EXPECT_FALSE(f.steps.empty()) << n;
    EXPECT_EQ(d.error_count(), 0u) << n << (d.items().empty() ? "" : d.items()[0].to_string());
  }
  for (const char* n : {"comm.json", "set_order.json", "text_level1.json"}) {
    cs::readers::MatrixFile f;
    cs::io::Diagnostics d;
    EXPECT_TRUE(cs::readers::read_communication_matrix_json(seed("communication_matrix", n), f, d));
    EXPECT_FALSE(f.steps.empty()) << n;
    EXPECT_EQ(d.error_count(), 0u) << n << (d.items().empty() ? "" : d.items()[0].to_string());
  }
}

TEST(FuzzSeeds, TimelineSeedsHaveEvents) {
  for (const char* n :
       {"hta_base.json.gz", "hta_test.json", "array_form.json", "sampled_rank0.json"}) {
    cs::readers::Trace t;
    cs::io::Diagnostics d;
    EXPECT_TRUE(cs::readers::read_kineto_trace(seed("kineto_trace", n), t, d)) << n;
    EXPECT_GT(t.events.size(), 10u) << n;
    EXPECT_EQ(d.error_count(), 0u) << n << (d.items().empty() ? "" : d.items()[0].to_string());
  }
  for (const char* n : {"a2.json", "text_level1.json"}) {
    cs::readers::Trace t;
    cs::io::Diagnostics d;
    EXPECT_TRUE(cs::readers::read_trace_view(seed("trace_view", n), t, d)) << n;
    EXPECT_GT(t.events.size(), 10u) << n;
    EXPECT_FALSE(t.process_names.empty()) << n;
    EXPECT_EQ(d.error_count(), 0u) << n << (d.items().empty() ? "" : d.items()[0].to_string());
  }
}

TEST(FuzzSeeds, StepTraceSeedsHaveRows) {
  for (const char* n : {"step_trace.csv", "text_level1.csv", "stages8.csv"}) {
    cs::readers::StepTraceFile f;
    cs::io::Diagnostics d;
    EXPECT_TRUE(cs::readers::read_step_trace_csv(seed("step_trace", n), f, d)) << n;
    EXPECT_FALSE(f.rows.empty()) << n;
    EXPECT_GE(f.column("Computing"), 0) << n;
  }
}

TEST(FuzzSeeds, DatabaseSeedsHaveRows) {
  cs::io::Diagnostics d;
  for (const char* n : {"level0.db", "level1.db"}) {
    auto db = cs::db::Database::open(seed("analysis_db", n), d);
    ASSERT_TRUE(db) << n;
    cs::readers::StepTraceFile steps;
    EXPECT_TRUE(cs::db::read_step_trace_db(*db, steps, d)) << n;
    EXPECT_FALSE(steps.rows.empty()) << n;
  }
  auto db = cs::db::Database::open(seed("profiler_db", "level1.db"), d);
  ASSERT_TRUE(db);
  cs::db::StringIds strings;
  ASSERT_TRUE(strings.load(*db, d));
  size_t kernels = 0;
  EXPECT_TRUE(cs::db::read_compute_kernels(
      *db, strings, [&](const cs::readers::KernelRecord&) { ++kernels; }, d));
  EXPECT_EQ(kernels, 12u);  // fuzz/make_seeds.py keeps 12 compute tasks
  std::vector<cs::db::StepTime> step_times;
  EXPECT_TRUE(cs::db::read_step_time(*db, step_times, d));
  EXPECT_EQ(d.error_count(), 0u);
}

TEST(FuzzSeeds, InputKindSeedsAreClassified) {
  // The first byte picks the name in fuzz/input_kind.cpp: 0 trace.json, 2 trace_view.json.
  auto head_of = [](const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    std::string s(1 << 16, '\0');
    size_t n = f ? std::fread(s.data(), 1, s.size(), f) : 0;
    if (f) std::fclose(f);
    s.resize(n);
    return s.size() > 1 ? s.substr(1) : std::string();
  };
  EXPECT_EQ(cs::io::classify_head("trace.json", head_of(seed("input_kind", "kineto.json"))).kind,
            cs::io::InputKind::kKinetoTrace);
  EXPECT_EQ(
      cs::io::classify_head("trace_view.json", head_of(seed("input_kind", "trace_view.json"))).kind,
      cs::io::InputKind::kTraceView);
}

TEST(FuzzSeeds, MegEngineSeedsHaveRecords) {
  // The seed without its first byte (which picks the reader) is the file.
  auto body = [](const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    std::string s(1 << 16, '\0');
    size_t n = f ? std::fread(s.data(), 1, s.size(), f) : 0;
    if (f) std::fclose(f);
    s.resize(n);
    return simdjson::padded_string(s.size() > 1 ? s.substr(1) : std::string());
  };
  cs::readers::MegEngineProfile p;
  cs::io::Diagnostics d;
  EXPECT_TRUE(
      cs::readers::parse_megengine_profile(body(seed("megengine", "static.json")), "s", p, d));
  EXPECT_EQ(p.ops.size(), 6u);
  cs::readers::Trace t;
  EXPECT_TRUE(
      cs::readers::parse_megengine_timeline(body(seed("megengine", "timeline.json")), "t", t, d));
  EXPECT_GT(t.events.size(), 10u);
  EXPECT_EQ(d.error_count() + d.warning_count(), 0u);
}

TEST(FuzzSeeds, MemorySeedsHaveAPeak) {
  // Text seeds: the first byte, then the four files separated by two NUL bytes (fuzz/memory.cpp).
  for (const char* n : {"text_level1.csv", "cann_text.csv"}) {
    std::ifstream in(seed("memory", n), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty()) << n;
    cs::test::TempDir dir("fuzz_memory");
    size_t at = 1;
    for (const char* name :
         {"memory_record.csv", "operator_memory.csv", "npu_module_mem.csv", "static_op_mem.csv"}) {
      const size_t end = bytes.find(std::string("\0\0", 2), at);
      const std::string part =
          bytes.substr(at, end == std::string::npos ? std::string::npos : end - at);
      if (!part.empty()) std::ofstream(dir.path() / name, std::ios::binary) << part;
      at = end == std::string::npos ? bytes.size() : end + 2;
    }
    cs::io::Diagnostics d;
    const auto m = cs::memory::read_memory_text(dir.path().string(), {}, d);
    ASSERT_TRUE(m.has_value()) << n;
    EXPECT_GT(m->peak_allocated, 0) << n;
    EXPECT_GT(m->blocks, 0) << n;
    EXPECT_EQ(d.error_count(), 0u) << n << (d.items().empty() ? "" : d.items()[0].to_string());
  }
  // The database seed: the first byte, then msprof_*.db with NPU_OP_MEM.
  std::ifstream in(seed("memory", "msprof_npu_op_mem.db"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1u);
  cs::test::TempDir dir("fuzz_memory_db");
  const auto path = (dir.path() / "msprof_1.db").string();
  std::ofstream(path, std::ios::binary) << bytes.substr(1);
  cs::io::Diagnostics d;
  auto db = cs::db::Database::open(path, d);
  ASSERT_TRUE(db.has_value());
  const auto m = cs::memory::read_memory_db(*db, {}, d);
  ASSERT_TRUE(m.has_value());
  EXPECT_GT(m->blocks, 0);
  EXPECT_EQ(d.error_count(), 0u);
}

}  // namespace
