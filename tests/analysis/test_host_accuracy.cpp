// Host-side accuracy: small generated jobs (8 to 32 ranks, 1 or 2 steps, trace_view.json on) with
// slow hosts (--slow-host R:US), slow data loading (--slow-data R:MS), host-bound jobs
// (--host-bound) and clean jobs. Each job is read with the real readers (the host side on) and
// diagnosed as `cluster` does; slow-host ranks must be found with cause "host", slow-data ranks
// with cause "data" (precision and recall >= 0.95 over the scenarios, causes right), host-bound
// jobs said as such (host/host_findings.h) and clean jobs silent. Seven of the jobs are DB
// exports (ascend_pytorch_profiler_N.db only): there every rank's free_breakdown must also be
// analysis.db StepTraceTime's Free with its parts adding up, and their slow ranks must be found as
// well. The table is printed (docs/host.md holds it).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "analysis/operators_topn.h"
#include "analysis/slow_rank.h"
#include "db/database.h"
#include "generator/generator.h"
#include "host/host_findings.h"
#include "host/operator_details.h"
#include "host/rank_host.h"
#include "load/discovery.h"
#include "load/host_walk.h"
#include "load/rank_parser.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "support/test_files.h"

namespace cs::analysis {
namespace {

namespace fs = std::filesystem;

struct HostScenario {
  std::string name;
  generator::GeneratorOptions opts;
};

generator::GeneratorOptions host_shape(int ranks, int tp, int pp, uint64_t seed, int steps) {
  generator::GeneratorOptions o;
  o.ranks = ranks;
  o.tp = tp;
  o.pp = pp;
  o.steps = steps;
  o.seed = seed;
  o.rank_jitter = 0.01;
  o.trace_view = 1;
  return o;
}

std::vector<HostScenario> host_scenarios() {
  std::vector<HostScenario> v;
  const int shapes[][3] = {{8, 2, 1}, {16, 4, 1}, {16, 2, 2}, {32, 4, 2}};
  for (int i = 0; i < 4; ++i) {
    const auto [n, tp, pp] = shapes[i];
    const auto seed = static_cast<uint64_t>(100 + i);
    v.push_back({"clean_" + std::to_string(n), host_shape(n, tp, pp, seed, 1 + i % 2)});
    auto h = host_shape(n, tp, pp, seed + 10, 1 + (i + 1) % 2);
    h.slow_hosts.push_back({n - 3, 40.0 + 20.0 * i});
    v.push_back({"slow_host_" + std::to_string(n), h});
    auto h2 = host_shape(n, tp, pp, seed + 20, 2);
    h2.slow_hosts.push_back({1, 80.0});
    v.push_back({"slow_host_b_" + std::to_string(n), h2});
    auto d = host_shape(n, tp, pp, seed + 30, 1 + i % 2);
    d.slow_data.push_back({n / 2, (5.0 + 5.0 * i) * 1000.0});
    v.push_back({"slow_data_" + std::to_string(n), d});
    auto d2 = host_shape(n, tp, pp, seed + 40, 2);
    d2.slow_data.push_back({2, 20000.0});
    v.push_back({"slow_data_b_" + std::to_string(n), d2});
    auto b = host_shape(n, tp, pp, seed + 50, 1 + i % 2);
    b.host_bound = true;
    v.push_back({"host_bound_" + std::to_string(n), b});
  }
  // The DB export of a few of them: the same host model in PYTORCH_API, CANN_API and TASK.
  for (size_t i : {1u, 2u, 3u, 5u, 7u, 9u, 11u}) {
    HostScenario d = v[i];
    d.name = "db_" + d.name;
    d.opts.export_type = generator::ExportKind::kDb;
    d.opts.seed += 1000;
    v.push_back(d);
  }
  return v;
}

struct Outcome {
  std::vector<analysis::SlowRankFinding> slow;
  host::HostFindings host;
};

// The producer's Free per step of a DB rank: analysis.db StepTraceTime.free.
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

// A DB rank's Free breakdown is the producer's Free per step and its parts add up.
void expect_db_free(const load::RankEntry& e, const load::RankData& r) {
  const auto ref = db_free(e.output_dir + "/analysis.db");
  ASSERT_TRUE(r.has_host) << e.output_dir;
  host::HostSummary scratch;
  const host::HostSummary& h = r.host.read(scratch);
  ASSERT_EQ(ref.size(), h.steps.size()) << e.output_dir;
  for (const auto& f : h.steps) {
    ASSERT_TRUE(ref.count(f.step)) << e.output_dir;
    // Each Free interval's ends are whole ns and the producer's value has 3 decimals.
    EXPECT_NEAR(f.free_us, ref.at(f.step), 0.05) << e.output_dir << " step " << f.step;
    double sum = f.unattributed_us;
    for (double c : f.cause_us) sum += c;
    EXPECT_NEAR(sum, f.free_us, 1e-6 * std::max(1.0, f.free_us)) << e.output_dir;
  }
}

Outcome diagnose(const std::string& dir, bool db) {
  auto disc = load::discover_ranks(dir);
  EXPECT_FALSE(disc.fatal) << dir;
  std::vector<load::RankData> ranks;
  load::ParseOptions po;
  po.host = true;
  for (const auto& e : disc.ranks) {
    ranks.push_back(load::parse_rank(e, po));
    if (db) expect_db_free(e, ranks.back());
  }
  std::sort(ranks.begin(), ranks.end(),
            [](const load::RankData& a, const load::RankData& b) { return a.rank() < b.rank(); });
  io::Diagnostics diag;
  auto groups = documents::build_comm_groups(ranks, documents::GroupOptions{}, diag);
  Outcome out;
  out.slow =
      analysis::analyze_slow_ranks(ranks, analysis::rank_stages(ranks, &groups), {}).findings;
  out.host = host::host_findings(load::host_walk(ranks));
  return out;
}

TEST(HostAccuracy, SlowHostsSlowDataHostBoundAndCleanJobs) {
  test::TempDir tmp;
  int tp = 0, fp = 0, fn = 0, cause_ok = 0, db_tp = 0, db_fp = 0, db_fn = 0;
  int bound_jobs = 0, bound_said = 0, clean_jobs = 0, clean_silent = 0;
  std::string report;
  const auto all = host_scenarios();
  for (const auto& s : all) {
    const std::string dir = (tmp.path() / s.name).string();
    io::Diagnostics gd;
    ASSERT_TRUE(generator::generate_cluster(dir, s.opts, gd)) << s.name;
    const bool db = s.opts.export_type == generator::ExportKind::kDb;
    const Outcome o = diagnose(dir, db);
    std::map<int, std::string> truth;
    for (const auto& h : s.opts.slow_hosts) truth[h.rank] = "host";
    for (const auto& d : s.opts.slow_data) truth[d.rank] = "data";
    std::string line = s.name + ":";
    for (const auto& f : o.slow) {
      line += " " + std::to_string(f.rank) + "(" + f.cause + ")";
      auto it = truth.find(f.rank);
      if (it == truth.end()) {
        ++fp, db_fp += db;
        line += "FP[" + f.evidence + "]";
        continue;
      }
      ++tp, db_tp += db;
      cause_ok += f.cause == it->second;
    }
    for (const auto& [r, c] : truth)
      if (std::none_of(o.slow.begin(), o.slow.end(),
                       [r = r](const analysis::SlowRankFinding& f) { return f.rank == r; }))
        ++fn, db_fn += db, line += " FN " + std::to_string(r);
    if (s.opts.host_bound) {
      ++bound_jobs;
      bound_said += o.host.job_host_bound;
    }
    if (truth.empty() && !s.opts.host_bound) {
      ++clean_jobs;
      clean_silent += o.slow.empty() && o.host.lines.empty();
    }
    for (const auto& l : o.host.lines) line += " | " + l;
    report += line + "\n";
    fs::remove_all(dir);
  }
  const double db_precision = db_tp + db_fp ? static_cast<double>(db_tp) / (db_tp + db_fp) : 1.0;
  const double db_recall = db_tp + db_fn ? static_cast<double>(db_tp) / (db_tp + db_fn) : 1.0;
  const double precision = tp + fp ? static_cast<double>(tp) / (tp + fp) : 1.0;
  const double recall = tp + fn ? static_cast<double>(tp) / (tp + fn) : 1.0;
  const double cause = tp ? static_cast<double>(cause_ok) / tp : 1.0;
  std::printf(
      "%zu scenarios: slow-host/slow-data ranks precision %.2f recall %.2f cause right %.2f "
      "(tp %d fp %d fn %d; of which DB exports: precision %.2f recall %.2f, tp %d fp %d fn %d); "
      "host-bound jobs said %d of %d; clean jobs silent %d of %d\n%s",
      all.size(), precision, recall, cause, tp, fp, fn, db_precision, db_recall, db_tp, db_fp,
      db_fn, bound_said, bound_jobs, clean_silent, clean_jobs, report.c_str());
  EXPECT_GE(all.size(), 30u);
  EXPECT_GE(precision, 0.95) << report;
  EXPECT_GE(recall, 0.95) << report;
  EXPECT_GE(db_tp, 5);
  EXPECT_GE(db_precision, 0.95) << report;
  EXPECT_GE(db_recall, 0.95) << report;
  EXPECT_GE(cause, 0.95) << report;
  EXPECT_EQ(bound_said, bound_jobs) << report;
  EXPECT_EQ(clean_silent, clean_jobs) << report;
}

// The generator's operator_details.csv agrees with its trace_view.json as torch_npu's do (the
// same sums per operator name), on a normal, a slow-host and a slow-data rank.
TEST(HostGenerated, OperatorDetailsAgreeWithTraceView) {
  test::TempDir tmp;
  auto o = host_shape(4, 2, 1, 7, 2);
  o.slow_hosts.push_back({1, 50});
  o.slow_data.push_back({2, 3000});
  const std::string dir = (tmp.path() / "job").string();
  io::Diagnostics diag;
  ASSERT_TRUE(generator::generate_cluster(dir, o, diag));
  int ranks = 0;
  for (const auto& e : load::discover_ranks(dir).ranks) {
    ++ranks;
    const std::string out = e.output_dir + "/";
    host::HostSummary s;
    ASSERT_TRUE(host::read_text_host(out + "trace_view.json", s, diag)) << test::all_diags(diag);
    std::map<std::string, host::OperatorDetailsSum> ref;
    ASSERT_TRUE(host::read_operator_details(out + "operator_details.csv", ref, diag));
    ASSERT_EQ(ref.size(), s.ops.size()) << e.rank;
    for (const auto& op : s.ops) {
      ASSERT_TRUE(ref.count(op.name)) << op.name;
      const auto& r = ref.at(op.name);
      const double tol = 0.002 * static_cast<double>(r.calls);  // 3 decimals per value
      EXPECT_EQ(op.calls, r.calls) << op.name;
      EXPECT_NEAR(op.host_self_us, r.host_self_us, tol) << op.name;
      EXPECT_NEAR(op.device_self_us, r.device_self_us, tol) << op.name;
    }
    EXPECT_TRUE(fs::exists(out + "api_statistic.csv"));
  }
  EXPECT_EQ(ranks, 4);
}

// The text and DB exports of the same generated job (--export-type both, one step) give the same
// host tables: for every operator both hold, the same calls, host self and device self time; per
// step the same Free and the same data-loading part. What differs, by design: the DB also holds
// the input batch's copy (aten::copy_) and the collectives' framework APIs (Hccl*), which
// trace_view.json does not draw, so Free intervals ended by a collective can be dispatch in the DB
// and are unattributed in the text; the two add up to the same.
TEST(HostGenerated, TextAndDbExportsGiveTheSameHostTables) {
  test::TempDir tmp;
  auto o = host_shape(4, 2, 1, 11, 1);
  o.export_type = generator::ExportKind::kBoth;
  o.slow_hosts.push_back({1, 60});
  o.slow_data.push_back({2, 4000});
  const std::string dir = (tmp.path() / "job").string();
  io::Diagnostics diag;
  ASSERT_TRUE(generator::generate_cluster(dir, o, diag));
  int ranks = 0;
  for (const auto& e : load::discover_ranks(dir).ranks) {
    ++ranks;
    SCOPED_TRACE("rank " + std::to_string(e.rank));
    const std::string out = e.output_dir + "/";
    host::HostSummary text, db;
    ASSERT_TRUE(host::read_text_host(out + "trace_view.json", text, diag)) << test::all_diags(diag);
    ASSERT_TRUE(host::read_db_host(
        out + "ascend_pytorch_profiler_" + std::to_string(e.rank) + ".db", db, diag))
        << test::all_diags(diag);
    std::map<std::string, const host::OpStats*> by_name;
    for (const auto& op : db.ops) by_name[op.name] = &op;
    for (const auto& op : text.ops) {
      ASSERT_TRUE(by_name.count(op.name)) << op.name;
      const host::OpStats& d = *by_name.at(op.name);
      const double tol = 0.002 * static_cast<double>(op.calls);  // 3 decimals per ts in the text
      EXPECT_EQ(op.calls, d.calls) << op.name;
      EXPECT_NEAR(op.host_self_us, d.host_self_us, tol) << op.name;
      EXPECT_NEAR(op.device_self_us, d.device_self_us, tol) << op.name;
      EXPECT_EQ(op.launches, d.launches) << op.name;
    }
    for (const auto& op : db.ops) {
      if (op.name == "aten::copy_" || op.name.starts_with("Hccl")) continue;
      const bool in_text = std::any_of(text.ops.begin(), text.ops.end(),
                                       [&](const host::OpStats& t) { return t.name == op.name; });
      EXPECT_TRUE(in_text) << op.name;
    }
    ASSERT_EQ(text.steps.size(), 1u);
    ASSERT_EQ(db.steps.size(), 1u);
    const auto& t = text.steps[0];
    const auto& d = db.steps[0];
    const auto part = [](const host::StepFree& f, host::Cause c) {
      return f.cause_us[static_cast<size_t>(c)];
    };
    EXPECT_EQ(t.step, d.step);
    EXPECT_NEAR(t.free_us, d.free_us, 0.01);
    for (host::Cause c :
         {host::Cause::kData, host::Cause::kCompile, host::Cause::kSync, host::Cause::kGc})
      EXPECT_NEAR(part(t, c), part(d, c), 0.01) << static_cast<int>(c);
    EXPECT_NEAR(part(t, host::Cause::kDispatch) + t.unattributed_us,
                part(d, host::Cause::kDispatch) + d.unattributed_us, 0.01);
    EXPECT_LE(part(t, host::Cause::kDispatch), part(d, host::Cause::kDispatch) + 0.01);
    EXPECT_NEAR(t.data_host_us, d.data_host_us, 0.01);
    if (e.rank == 2) {
      EXPECT_GT(part(d, host::Cause::kData), 3000.0);
    }
    if (e.rank == 1) {
      EXPECT_GT(part(d, host::Cause::kDispatch), part(db.steps[0], host::Cause::kData));
    }
  }
  EXPECT_EQ(ranks, 4);
}

// A MindSpore job whose rank 1 has its device queue empty in 3 of 4 steps (a file written by hand
// beside its other files): the data pipeline is named as the bottleneck there, and only there.
TEST(HostGenerated, MindSporeEmptyDeviceQueue) {
  test::TempDir tmp;
  auto o = host_shape(4, 2, 1, 5, 2);
  o.framework = generator::FrameworkKind::kMindSpore;
  const std::string dir = (tmp.path() / "job").string();
  io::Diagnostics diag;
  ASSERT_TRUE(generator::generate_cluster(dir, o, diag));
  for (const auto& e : load::discover_ranks(dir).ranks) {
    const bool slow = e.rank == 1;
    std::ofstream(e.output_dir + "/device_queue_profiling_" + std::to_string(e.rank) + ".txt")
        << "1 2 1 0 10\n1 2 2 " << (slow ? 0 : 2) << " 20\n1 2 3 " << (slow ? 0 : 1)
        << " 30\n1 2 4 2 40\n";
  }
  const Outcome out = diagnose(dir, false);
  const auto it = std::find_if(out.host.lines.begin(), out.host.lines.end(), [](const auto& l) {
    return l.starts_with("The data pipeline is the bottleneck");
  });
  ASSERT_NE(it, out.host.lines.end());
  EXPECT_EQ(*it,
            "The data pipeline is the bottleneck on rank(s) 1: the device queue was empty in 75% "
            "of the steps (median; MindInsight's rule: above 30%).");
}

}  // namespace
}  // namespace cs::analysis
