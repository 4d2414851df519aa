// The host side on the real torch_npu samples (tests/data/ascend-real, from ../shared/samples):
// host_ops agrees with the producer's operator_details.csv, and the Free breakdown adds up to
// the producer's Free (step_trace_time.csv / analysis.db StepTraceTime) for every rank.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "db/database.h"
#include "host/free_breakdown.h"
#include "host/operator_details.h"
#include "host/rank_host.h"
#include "readers/step_trace.h"
#include "support/test_files.h"

namespace cs::host {
namespace {

using test::all_diags;

const std::string kText = std::string(CS_TEST_DATA) + "/ascend-real/text_level1/";
const std::string kDb = std::string(CS_TEST_DATA) + "/ascend-real/db_level1/";

std::string text_out(int rank) {
  return kText + "rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
}

std::string db_out(int rank) {
  return kDb + "rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
}

const OpStats* find_op(const HostSummary& s, const std::string& name) {
  for (const auto& o : s.ops)
    if (o.name == name) return &o;
  return nullptr;
}

// The parts of a step's Free add up to it.
void expect_parts_add_up(const StepFree& f) {
  double sum = f.unattributed_us;
  for (double c : f.cause_us) {
    EXPECT_GE(c, 0);
    sum += c;
  }
  EXPECT_GE(f.unattributed_us, -1e-6);
  EXPECT_NEAR(sum, f.free_us, 1e-6 * std::max(1.0, f.free_us));
}

// Every operator name of operator_details.csv, with its calls and summed host and device self
// time, is in host_ops with the same figures (the producer rounds each row to 0.01 µs at most:
// the tolerance is one hundredth of a µs per call).
TEST(HostRealText, OperatorsAgreeWithOperatorDetails) {
  for (int rank : {0, 1}) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    io::Diagnostics diag;
    HostSummary s;
    ASSERT_TRUE(read_text_host(text_out(rank) + "trace_view.json.gz", s, diag)) << all_diags(diag);
    std::map<std::string, OperatorDetailsSum> ref;
    ASSERT_TRUE(read_operator_details(text_out(rank) + "operator_details.csv", ref, diag));
    EXPECT_EQ(diag.error_count(), 0u) << all_diags(diag);
    ASSERT_EQ(ref.size(), s.ops.size());
    for (const auto& [name, r] : ref) {
      SCOPED_TRACE(name);
      const OpStats* o = find_op(s, name);
      ASSERT_NE(o, nullptr);
      EXPECT_EQ(o->calls, r.calls);
      const double tol = 0.01 * static_cast<double>(r.calls) + 1e-6;
      EXPECT_NEAR(o->host_self_us, r.host_self_us, tol);
      EXPECT_NEAR(o->host_total_us, r.host_total_us, tol);
      EXPECT_NEAR(o->device_self_us, r.device_self_us, tol);
    }
  }
}

// Worked out by hand from rank 0's trace_view.json: HcclAllreduce is called 8 times (4 outer
// calls each holding an inner one); the 4 inner ones each launch one hcom_allReduce_ op of the
// HCCL process (flows "async_npu"): 79089.52021875 + 2281.1055625 + 2402.388 + 22218.8639375 =
// 105991.87771875 µs, which is also the producer's Communication column in step_trace_time.csv
// (105991.87800000001): a figure from another file.
// aclnnMuls: 18 calls, each launching one AI vector kernel; device self 257.805125 µs.
TEST(HostRealText, HandWorkedFigures) {
  io::Diagnostics diag;
  HostSummary s;
  ASSERT_TRUE(read_text_host(text_out(0) + "trace_view.json.gz", s, diag));
  const OpStats* hccl = find_op(s, "HcclAllreduce");
  ASSERT_NE(hccl, nullptr);
  EXPECT_EQ(hccl->calls, 8);
  EXPECT_EQ(hccl->launches, 4);
  EXPECT_NEAR(hccl->device_self_us, 105991.87771875, 1e-6);
  const OpStats* muls = find_op(s, "aclnnMuls");
  ASSERT_NE(muls, nullptr);
  EXPECT_EQ(muls->calls, 18);
  EXPECT_EQ(muls->launches, 18);
  EXPECT_NEAR(muls->device_self_us, 257.805125, 1e-6);
  // ProfilerStep#50 is the step, not an operator (operator_details.csv leaves it out too).
  EXPECT_EQ(find_op(s, "ProfilerStep#50"), nullptr);
  // Every launch delay is non-negative (clock offsets count as none).
  for (const auto& o : s.ops) {
    if (o.launches > 0) {
      EXPECT_GE(o.delay_sum_us, 0) << o.name;
    }
  }
}

TEST(HostRealText, FreeMatchesStepTrace) {
  for (int rank : {0, 1}) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    io::Diagnostics diag;
    HostSummary s;
    ASSERT_TRUE(read_text_host(text_out(rank) + "trace_view.json.gz", s, diag));
    readers::StepTraceFile st;
    ASSERT_TRUE(readers::read_step_trace_csv(text_out(rank) + "step_trace_time.csv", st, diag));
    const int free_col = st.column("Free");
    ASSERT_GE(free_col, 0);
    ASSERT_EQ(s.steps.size(), st.rows.size());
    for (size_t i = 0; i < st.rows.size(); ++i) {
      EXPECT_EQ(std::to_string(s.steps[i].step), st.rows[i].step);
      EXPECT_NEAR(s.steps[i].free_us, st.rows[i].values[static_cast<size_t>(free_col)], 1e-6);
      expect_parts_add_up(s.steps[i]);
    }
  }
}

// The producer's Free of a DB rank: analysis.db StepTraceTime.free per step. Rank 0's profiler
// database has OVERLAP_ANALYSIS (its Free rows are read); rank 1's has none, so Free is derived
// from the compute tasks and collectives (host/device_free.h): both must match.
std::map<int64_t, double> db_free(const std::string& path) {
  io::Diagnostics diag;
  auto db = db::Database::open(path, diag);
  std::map<int64_t, double> out;
  if (!db) return out;
  auto st = db->prepare("SELECT step, free FROM StepTraceTime", "StepTraceTime", diag);
  if (!st) return out;
  while (st->step(diag) == db::StepResult::kRow) out[*st->int64_at(0)] = *st->double_at(1);
  return out;
}

TEST(HostRealDb, FreeMatchesStepTraceTime) {
  for (int rank : {0, 1}) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    io::Diagnostics diag;
    HostSummary s;
    ASSERT_TRUE(read_db_host(
        db_out(rank) + "ascend_pytorch_profiler_" + std::to_string(rank) + ".db", s, diag))
        << all_diags(diag);
    EXPECT_EQ(diag.error_count(), 0u) << all_diags(diag);
    const auto ref = db_free(db_out(rank) + "analysis.db");
    ASSERT_EQ(ref.size(), s.steps.size());
    ASSERT_FALSE(ref.empty());
    for (const auto& f : s.steps) {
      ASSERT_TRUE(ref.count(f.step));
      EXPECT_NEAR(f.free_us, ref.at(f.step), 1e-6);
      expect_parts_add_up(f);
    }
  }
}

// The DB export of the same kind of job: HcclAllreduce's device self time is the collectives'
// time, StepTraceTime.communication of analysis.db (102108.1 µs on rank 0: the 4
// COMMUNICATION_OP rows' endNs - startNs summed), and every operator call is counted.
TEST(HostRealDb, CollectivesAndCalls) {
  io::Diagnostics diag;
  HostSummary s;
  ASSERT_TRUE(read_db_host(db_out(0) + "ascend_pytorch_profiler_0.db", s, diag));
  const OpStats* hccl = find_op(s, "HcclAllreduce");
  ASSERT_NE(hccl, nullptr);
  EXPECT_EQ(hccl->calls, 8);
  EXPECT_NEAR(hccl->device_self_us, 102108.1, 1e-6);
  int64_t calls = 0;
  for (const auto& o : s.ops) calls += o.calls;
  EXPECT_EQ(calls, 859);  // 860 PYTORCH_API rows of type op, less ProfilerStep#50
}

}  // namespace
}  // namespace cs::host
