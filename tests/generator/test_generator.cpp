// The synthetic cluster generator: option parsing and validation, file formats (read back with
// the io readers), causal consistency of the numbers, fault injection and determinism.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "generator/generator.h"
#include "generator/job/topology.h"
#include "load/discovery.h"
#include "readers/communication.h"
#include "readers/kernel_details.h"
#include "readers/matrix.h"
#include "readers/profiler_info.h"
#include "readers/step_trace.h"
#include "support/missing_tool.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using namespace cs::generator;

namespace {

using cs::test::slurp;
using cs::test::TempDir;

// Rank directory of rank r under dir (via discovery, which the generated tree must satisfy).
std::map<int, std::string> rank_dirs(const std::string& dir) {
  std::map<int, std::string> m;
  auto res = cs::load::discover_ranks(dir);
  for (const auto& e : res.ranks) m[e.rank] = e.path;
  return m;
}

GeneratorOptions small(int ranks, int tp, int pp, int steps = 2) {
  GeneratorOptions o;
  o.ranks = ranks;
  o.tp = tp;
  o.pp = pp;
  o.steps = steps;
  o.seed = 42;
  return o;
}

cs::readers::CommunicationFile read_comm(const std::string& rank_dir) {
  cs::readers::CommunicationFile f;
  cs::io::Diagnostics d;
  EXPECT_TRUE(cs::readers::read_communication_json(
      rank_dir + "/ASCEND_PROFILER_OUTPUT/communication.json", f, d));
  EXPECT_FALSE(d.has_errors());
  return f;
}

// Mean over steps and collective ops of one field for one rank.
double mean_field(const cs::readers::CommunicationFile& f, cs::readers::TimeField field,
                  std::string_view group_suffix = {}) {
  double s = 0;
  int n = 0;
  for (const auto& st : f.steps)
    for (const auto& op : st.collective) {
      if (op.is_total()) continue;
      if (!group_suffix.empty() && op.group() != group_suffix) continue;
      s += op.time.get(field);
      ++n;
    }
  return n ? s / n : 0;
}

}  // namespace

TEST(GeneratorOptions, ParseFaults) {
  SlowRank r;
  std::string err;
  ASSERT_TRUE(parse_slow_rank("3:2.5", r, err)) << err;
  EXPECT_EQ(r.rank, 3);
  EXPECT_DOUBLE_EQ(r.factor, 2.5);
  EXPECT_FALSE(parse_slow_rank("3", r, err));
  EXPECT_FALSE(parse_slow_rank("x:2", r, err));
  EXPECT_FALSE(parse_slow_rank("3:-1", r, err));
  EXPECT_FALSE(parse_slow_rank("3:2x", r, err));
  EXPECT_NE(err.find("FACTOR"), std::string::npos);

  SlowLink l;
  ASSERT_TRUE(parse_slow_link("0-9:4", l, err)) << err;
  EXPECT_EQ(l.src, 0);
  EXPECT_EQ(l.dst, 9);
  EXPECT_DOUBLE_EQ(l.factor, 4);
  EXPECT_FALSE(parse_slow_link("0:4", l, err));
  EXPECT_FALSE(parse_slow_link("0-1-2:4", l, err));

  SlowKernel k;
  ASSERT_TRUE(parse_slow_kernel("2:MatMul:3", k, err)) << err;
  EXPECT_EQ(k.rank, 2);
  EXPECT_EQ(k.type, "MatMul");
  EXPECT_FALSE(parse_slow_kernel("2::3", k, err));
  EXPECT_FALSE(parse_slow_kernel("2:MatMul", k, err));
}

TEST(GeneratorOptions, Validation) {
  cs::io::Diagnostics d;
  EXPECT_TRUE(validate_options(small(16, 4, 2), d));
  auto bad = small(10, 4, 1);
  EXPECT_FALSE(validate_options(bad, d));
  EXPECT_NE(d.items().back().what.find("not divisible by tp*pp = 4"), std::string::npos);
  EXPECT_FALSE(d.items().back().hint.empty());

  auto o = small(8, 4, 1);
  o.slow_ranks.push_back({8, 2.0});
  cs::io::Diagnostics d2;
  EXPECT_FALSE(validate_options(o, d2));
  EXPECT_NE(d2.items().back().hint.find("0..7"), std::string::npos);

  o = small(16, 8, 1);  // dp = 2: ranks 0 and 8 are a DP pair, 0 and 9 never talk
  o.slow_links.push_back({0, 9, 3.0});
  cs::io::Diagnostics d3;
  EXPECT_FALSE(validate_options(o, d3));
  o.slow_links = {{0, 8, 3.0}};
  cs::io::Diagnostics d4;
  EXPECT_TRUE(validate_options(o, d4));

  o.slow_kernels.push_back({1, "NoSuchKernel", 2.0});
  cs::io::Diagnostics d5;
  EXPECT_FALSE(validate_options(o, d5));
  EXPECT_NE(d5.items().back().hint.find("MatMulV3"), std::string::npos);
}

TEST(Topology, MegatronOrderAndGroups) {
  Topology t = build_topology(32, 4, 2, 1);
  EXPECT_EQ(t.dp, 4);
  EXPECT_EQ(t.tp_index(13), 1);
  EXPECT_EQ(t.dp_index(13), 3);
  EXPECT_EQ(t.pp_index(13), 0);
  EXPECT_EQ(t.pp_index(16), 1);
  const Group& tp = t.groups[static_cast<size_t>(t.tp_group[13])];
  EXPECT_EQ(tp.ranks, (std::vector<int>{12, 13, 14, 15}));
  const Group& dp = t.groups[static_cast<size_t>(t.dp_group[13])];
  EXPECT_EQ(dp.ranks, (std::vector<int>{1, 5, 9, 13}));
  EXPECT_TRUE(dp.ring);  // spans two nodes
  const Group& pp = t.groups[static_cast<size_t>(t.pp_group[13])];
  EXPECT_EQ(pp.ranks, (std::vector<int>{13, 29}));
  EXPECT_EQ(pp.hash, cs::readers::group_double_hash_str(pp.id));
  EXPECT_EQ(pp.hash.substr(pp.hash.size() - 3), pp.hash_tail);
  EXPECT_EQ(Topology::transport(0, 7), Transport::kHccs);
  EXPECT_EQ(Topology::transport(7, 8), Transport::kRdma);
  // All group ids differ.
  std::set<std::string> ids;
  for (const auto& g : t.groups) ids.insert(g.id);
  EXPECT_EQ(ids.size(), t.groups.size());
}

TEST(Generator, WritesReadableFilesForEveryRank) {
  TempDir t;
  auto o = small(16, 4, 2);
  cs::io::Diagnostics diag;
  GenerateSummary sum;
  ASSERT_TRUE(generate_cluster(t.str(), o, diag, &sum));
  // 10 files per rank with trace_view.json (and operator_details.csv, api_statistic.csv beside
  // it), plus truth.json.
  EXPECT_EQ(sum.files, 16u * 10 + 1);
  EXPECT_GT(sum.bytes, 16u * 50000);
  auto dirs = rank_dirs(t.str());
  ASSERT_EQ(dirs.size(), 16u);

  for (const auto& [rank, dir] : dirs) {
    cs::io::Diagnostics d;
    cs::readers::ProfilerInfo info;
    ASSERT_TRUE(cs::readers::read_profiler_info(
        dir + "/profiler_info_" + std::to_string(rank) + ".json", info, d));
    EXPECT_EQ(info.rank_id, rank);
    cs::readers::ProfilerMetadata meta;
    ASSERT_TRUE(cs::readers::read_profiler_metadata(dir + "/profiler_metadata.json", meta, d));
    EXPECT_EQ(meta.arg("tensor_model_parallel_size"), 4);
    EXPECT_EQ(meta.arg("pipeline_model_parallel_size"), 2);
    EXPECT_EQ(meta.arg("data_parallel_size"), 2);
    EXPECT_EQ(meta.arg("world_size"), 16);
    ASSERT_EQ(meta.parallel_groups.size(), 3u);
    for (const auto& g : meta.parallel_groups) {
      ASSERT_GE(g.group_rank(), 0);
      EXPECT_EQ(g.global_ranks()[static_cast<size_t>(g.group_rank())], rank);
      EXPECT_NE(g.group_id().find("%enp67s0f5_60000_"), std::string::npos);
    }

    auto comm = read_comm(dir);
    ASSERT_EQ(comm.steps.size(), 2u);
    EXPECT_EQ(comm.steps[0].step, "step1");
    // Every op's group is one of this rank's groups, named by the double hash of its id.
    std::set<std::string> hashes;
    for (const auto& g : meta.parallel_groups)
      hashes.insert(cs::readers::group_double_hash_str(g.group_id()));
    size_t p2p = 0;
    for (const auto& st : comm.steps) {
      for (const auto& op : st.collective) {
        if (op.is_total()) continue;
        EXPECT_TRUE(hashes.count(std::string(op.group()))) << op.name;
        // Idle = Elapse - Transit - Wait (docs/formats.md §2).
        double idle = op.time.get(cs::readers::kElapseTimeMs) -
                      op.time.get(cs::readers::kTransitTimeMs) -
                      op.time.get(cs::readers::kWaitTimeMs);
        EXPECT_NEAR(op.time.get(cs::readers::kIdleTimeMs), idle, 1e-9) << op.name;
        double w = op.time.get(cs::readers::kWaitTimeMs),
               tr = op.time.get(cs::readers::kTransitTimeMs);
        EXPECT_NEAR(op.time.get(cs::readers::kWaitTimeRatio), w / (w + tr), 6e-5);
        EXPECT_LE(op.time.get(cs::readers::kSyncTimeMs), w + 1e-12);
        // The op name carries the group hash's last three digits.
        std::string tail(op.group().substr(op.group().size() - 3));
        EXPECT_NE(op.op_name().find("__" + tail + "_"), std::string::npos) << op.name;
      }
      p2p += st.p2p.size();
    }
    EXPECT_GT(p2p, 0u);  // pp = 2: every rank sends and receives

    cs::readers::MatrixFile mat;
    ASSERT_TRUE(cs::readers::read_communication_matrix_json(
        dir + "/ASCEND_PROFILER_OUTPUT/communication_matrix.json", mat, d));
    bool self_link = false;
    for (const auto& op : mat.steps[0].collective) {
      for (const auto& l : op.links) {
        EXPECT_GE(l.src_local, 0);
        EXPECT_LT(l.src_local, 4);
        if (l.src_local == l.dst_local) {
          self_link = true;
          EXPECT_EQ(l.transport, "LOCAL");
        }
      }
    }
    EXPECT_TRUE(self_link);

    cs::readers::StepTraceFile stf;
    ASSERT_TRUE(cs::readers::read_step_trace_csv(
        dir + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", stf, d));
    ASSERT_EQ(stf.columns.size(), 9u);
    ASSERT_EQ(stf.rows.size(), 2u);
    for (const auto& row : stf.rows) {
      double comm_t = stf.get(row, "Communication"),
             no = stf.get(row, "Communication(Not Overlapped)");
      EXPECT_NEAR(stf.get(row, "Overlapped"), comm_t - no, 0.0021);
      EXPECT_NEAR(stf.get(row, "Communication(Not Overlapped and Exclude Receive)"),
                  no - stf.get(row, "Bubble"), 0.0021);
      EXPECT_GT(stf.get(row, "Computing"), 0);
      EXPECT_GT(stf.get(row, "Free"), 0);
      EXPECT_GT(stf.get(row, "Preparing"), 0);
      EXPECT_GT(stf.get(row, "Bubble"), 0);  // pp = 2 has receives on every rank
    }

    size_t kernels = 0, hccl = 0;
    ASSERT_TRUE(cs::readers::read_kernel_details_csv(
        dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
        [&](const cs::readers::KernelRecord& k) {
          ++kernels;
          if (k.accelerator_core == "HCCL") ++hccl;
          EXPECT_GT(k.duration_us, 0);
          EXPECT_TRUE(k.step_id == 1 || k.step_id == 2);
        },
        d));
    EXPECT_GT(kernels, 200u);
    EXPECT_GT(hccl, 20u);
    std::vector<cs::readers::OpStatisticRow> ops;
    ASSERT_TRUE(cs::readers::read_op_statistic_csv(dir + "/ASCEND_PROFILER_OUTPUT/op_statistic.csv",
                                                   ops, d));
    double count = 0, ratio = 0;
    for (const auto& r : ops) {
      count += r.count;
      ratio += r.ratio_pct;
    }
    EXPECT_EQ(count, static_cast<double>(kernels - hccl));
    EXPECT_NEAR(ratio, 100.0, 0.05);
    EXPECT_FALSE(d.has_errors()) << d.items()[0].to_string();
  }
}

TEST(Generator, KernelDetailsKeepProducerQuirks) {
  TempDir t;
  cs::io::Diagnostics diag;
  ASSERT_TRUE(generate_cluster(t.str(), small(8, 8, 1, 1), diag));
  std::string text = slurp(rank_dirs(t.str()).at(0) + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
  std::string header = text.substr(0, text.find('\n'));
  std::string sample = slurp(std::string(CS_TEST_DATA) + "/ascend/kernel_details.csv");
  EXPECT_EQ(header, sample.substr(0, sample.find('\n')));  // same 46 columns as torch_npu
  EXPECT_NE(text.find("\t\","), std::string::npos);        // "1708...123.456<TAB>",
  EXPECT_NE(text.find(",\"\"\"4096,4096;12288,4096\"\"\","), std::string::npos);
  EXPECT_NE(text.find(",N/A,"), std::string::npos);
}

TEST(Generator, CollectivesAreCausallyConsistent) {
  // In one collective every member ends at (almost) the same time; the last to arrive waits
  // least (sync ~ 0).
  TempDir t;
  cs::io::Diagnostics diag;
  ASSERT_TRUE(generate_cluster(t.str(), small(8, 4, 1, 1), diag));
  auto dirs = rank_dirs(t.str());
  std::map<std::string, std::vector<std::pair<double, double>>>
      ops;  // key -> (start, end) per rank
  std::map<std::string, std::vector<double>> syncs;
  for (const auto& [rank, dir] : dirs) {
    auto comm = read_comm(dir);
    for (const auto& op : comm.steps[0].collective) {
      if (op.is_total()) continue;
      double start = op.time.get(cs::readers::kStartTimestampUs);
      ops[op.name].push_back({start, start + op.time.get(cs::readers::kElapseTimeMs) * 1000});
      syncs[op.name].push_back(op.time.get(cs::readers::kSyncTimeMs));
    }
  }
  ASSERT_FALSE(ops.empty());
  for (const auto& [name, v] : ops) {
    // Reported by every member: the TP group of 4, or a DP group of 2.
    ASSERT_TRUE(v.size() == 4u || v.size() == 2u) << name << " " << v.size();
    double lo = 1e300, hi = 0;
    for (auto [s, e] : v) {
      lo = std::min(lo, e);
      hi = std::max(hi, e);
    }
    EXPECT_LT(hi - lo, 5.0) << name;  // ends agree within the 1-4 us tails
    EXPECT_LT(*std::min_element(syncs[name].begin(), syncs[name].end()), 1e-9) << name;
  }
}

TEST(Generator, SlowRankWaitsLeastAndPeersWaitForIt) {
  TempDir t;
  auto o = small(16, 8, 1, 2);  // one TP group per node, dp = 2
  o.slow_ranks.push_back({5, 1.5});
  cs::io::Diagnostics diag;
  ASSERT_TRUE(generate_cluster(t.str(), o, diag));
  auto dirs = rank_dirs(t.str());
  std::vector<double> wait(8);
  for (int r = 0; r < 8; ++r)
    wait[static_cast<size_t>(r)] = mean_field(read_comm(dirs[r]), cs::readers::kSyncTimeMs);
  for (int r = 0; r < 8; ++r)
    if (r != 5) {
      EXPECT_GT(wait[static_cast<size_t>(r)], 5 * wait[5] + 0.05) << r;
    }
  // Its compute is longer too.
  cs::readers::StepTraceFile s5, s4;
  ASSERT_TRUE(cs::readers::read_step_trace_csv(
      dirs[5] + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", s5, diag));
  ASSERT_TRUE(cs::readers::read_step_trace_csv(
      dirs[4] + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", s4, diag));
  EXPECT_GT(s5.get(s5.rows[0], "Computing"), 1.4 * s4.get(s4.rows[0], "Computing"));

  std::string truth = slurp(fs::path(t.str()) / "truth.json");
  EXPECT_NE(truth.find("\"rank\": 5"), std::string::npos);
  EXPECT_NE(truth.find("\"factor\": 1.5"), std::string::npos);
}

TEST(Generator, SlowLinkLowersItsBandwidth) {
  TempDir t;
  auto o = small(8, 8, 1, 1);
  o.slow_links.push_back({2, 3, 4.0});
  cs::io::Diagnostics diag;
  ASSERT_TRUE(generate_cluster(t.str(), o, diag));
  auto dirs = rank_dirs(t.str());
  cs::readers::MatrixFile m;
  ASSERT_TRUE(cs::readers::read_communication_matrix_json(
      dirs[2] + "/ASCEND_PROFILER_OUTPUT/communication_matrix.json", m, diag));
  double slow = 0, normal = 0;
  for (const auto& op : m.steps[0].collective) {
    if (op.key.rfind("allgather-total@", 0) != 0) continue;
    for (const auto& l : op.links) {
      if (m.link_key(l) == "2-3") slow = l.get(cs::readers::kLinkBandwidthGbps);
      if (m.link_key(l) == "2-4") normal = l.get(cs::readers::kLinkBandwidthGbps);
    }
  }
  ASSERT_GT(slow, 0);
  EXPECT_NEAR(normal / slow, 4.0, 0.5);
  EXPECT_GT(normal, 10.0);
  std::string truth = slurp(fs::path(t.str()) / "truth.json");
  EXPECT_NE(truth.find("\"transport\": \"HCCS\""), std::string::npos);
}

TEST(Generator, SlowKernelSlowsOnlyThatTypeOnThatRank) {
  TempDir t;
  auto o = small(8, 8, 1, 1);
  o.slow_kernels.push_back({6, "FlashAttentionScoreGrad", 3.0});
  cs::io::Diagnostics diag;
  ASSERT_TRUE(generate_cluster(t.str(), o, diag));
  auto dirs = rank_dirs(t.str());
  auto mean_of = [&](int r, std::string_view type) {
    double s = 0;
    int n = 0;
    cs::io::Diagnostics d;
    cs::readers::read_kernel_details_csv(
        dirs[r] + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
        [&](const cs::readers::KernelRecord& k) {
          if (k.type == type) s += k.duration_us, ++n;
        },
        d);
    return n ? s / n : 0.0;
  };
  EXPECT_NEAR(mean_of(6, "FlashAttentionScoreGrad") / mean_of(1, "FlashAttentionScoreGrad"), 3.0,
              0.3);
  EXPECT_NEAR(mean_of(6, "FlashAttentionScore") / mean_of(1, "FlashAttentionScore"), 1.0, 0.1);
  EXPECT_NEAR(mean_of(6, "MatMulV3") / mean_of(1, "MatMulV3"), 1.0, 0.1);
}

TEST(Generator, DeterministicForASeed) {
  TempDir a, b, c;
  auto o = small(8, 4, 2, 1);
  cs::io::Diagnostics d;
  ASSERT_TRUE(generate_cluster(a.str(), o, d));
  ASSERT_TRUE(generate_cluster(b.path(), o, d));
  o.seed = 43;
  ASSERT_TRUE(generate_cluster(c.path(), o, d));
  auto da = rank_dirs(a.str()), db = rank_dirs(b.path()), dc = rank_dirs(c.path());
  for (const char* f : {"communication.json", "communication_matrix.json", "kernel_details.csv",
                        "step_trace_time.csv", "op_statistic.csv"}) {
    std::string rel = std::string("/ASCEND_PROFILER_OUTPUT/") + f;
    EXPECT_EQ(slurp(da[3] + rel), slurp(db[3] + rel)) << f;
    EXPECT_NE(slurp(da[3] + rel), slurp(dc[3] + rel)) << f;
  }
  EXPECT_EQ(fs::path(da[3]).filename(), fs::path(db[3]).filename());
}

TEST(Generator, MindSporeDirectories) {
  TempDir t;
  auto o = small(8, 2, 1, 1);
  o.framework = FrameworkKind::kMindSpore;
  cs::io::Diagnostics d;
  ASSERT_TRUE(generate_cluster(t.str(), o, d));
  auto res = cs::load::discover_ranks(t.str());
  ASSERT_EQ(res.ranks.size(), 8u);
  EXPECT_EQ(res.ranks[0].framework, cs::load::Framework::kMindSpore);
}

TEST(GenerateCli, ErrorsAndSummary) {
  if (!fs::exists(CS_BINARY)) CS_MISSING_TOOL("the clusterscope binary " << CS_BINARY);
  TempDir t;
  auto run = [](const std::string& args, std::string& err) {
    return cs::test::run_capture(std::string(CS_BINARY) + " generate " + args + " 2>&1", err);
  };
  std::string out;
  EXPECT_EQ(run(t.str() + "/x --ranks 10 --tp 4", out), 2);
  EXPECT_NE(out.find("clusterscope: generate: --ranks 10 is not divisible by tp*pp = 4 \u2014 "),
            std::string::npos)
      << out;
  EXPECT_EQ(run(t.str() + "/x --ranks 8 --slow-rank 9:2", out), 2);
  EXPECT_NE(out.find("out of range"), std::string::npos) << out;
  EXPECT_EQ(run(t.str() + "/x --ranks 8 --slow-rank 3", out), 2);
  EXPECT_NE(out.find("R:FACTOR"), std::string::npos) << out;
  EXPECT_EQ(run(t.str() + "/x --ranks 8 --bogus", out), 2);
  EXPECT_EQ(run(t.str() + "/x --ranks 8 --tp 4 --steps 1 --slow-rank 1:2", out), 0) << out;
  EXPECT_NE(out.find("wrote 8 ranks"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(fs::path(t.str()) / "x" / "truth.json"));
}
