#pragma once
// Test helper: synthetic result tables of a cluster of `ranks` ranks (tensor-parallel groups of
// 8, data-parallel groups across them), typed the way the cluster pipeline builds them, with one
// slow rank and one slow link injected.

#include <cmath>
#include <memory>
#include <string>

#include "io/table.h"
#include "report/cluster_page/cluster_report.h"

namespace cs::report::test {

struct SyntheticCluster {
  io::Table manifest{"rank_manifest"}, steps{"step_trace"}, matrix{"communication_matrix"},
      summary{"comm_rank_summary"}, ops{"operators_topn"}, slow_ranks{"slow_ranks"},
      slow_links{"slow_links"};
  long long slow_rank = 0;

  ClusterReportInput input() const {
    ClusterReportInput in;
    in.manifest = &manifest;
    in.step_trace = &steps;
    in.communication_matrix = &matrix;
    in.comm_rank_summary = &summary;
    in.operators_topn = &ops;
    in.slow_ranks = &slow_ranks;
    in.slow_links = &slow_links;
    in.input_path = "/synthetic";
    in.processes = 4;
    in.seconds = 12.5;
    in.input_bytes = 1ull << 36;
    return in;
  }
};

inline std::unique_ptr<SyntheticCluster> make_synthetic_cluster(int ranks) {
  auto c = std::make_unique<SyntheticCluster>();
  const int tp = 8, dp = ranks / tp;
  c->slow_rank = ranks * 3 / 4 + 1;
  auto& m_rank = c->manifest.add_int("rank");
  auto& m_path = c->manifest.add_string("path");
  auto& m_fw = c->manifest.add_string("framework");
  auto& m_status = c->manifest.add_string("status");
  auto& m_files = c->manifest.add_int("files_read");
  auto& m_bytes = c->manifest.add_int("bytes_read", "bytes");
  auto& m_prob = c->manifest.add_string("problems");
  for (int r = 0; r < ranks; ++r) {
    m_rank.ints.push_back(r);
    m_path.strings.push_back("/synthetic/node" + std::to_string(r / 8) + "_ascend_pt");
    m_fw.strings.push_back("pytorch");
    const bool skipped = r == ranks - 1;
    m_status.strings.push_back(skipped ? "skipped" : "ok");
    m_files.ints.push_back(skipped ? 0 : 4);
    m_bytes.ints.push_back(skipped ? 0 : 16 << 20);
    m_prob.strings.push_back(skipped ? "communication.json: truncated at byte 4096" : "");
  }
  auto& s_step = c->steps.add_int("step");
  auto& s_rank = c->steps.add_int("rank");
  auto& s_comp = c->steps.add_double("computing_us", "us");
  auto& s_comm = c->steps.add_double("comm_not_overlapped_us", "us");
  auto& s_free = c->steps.add_double("free_us", "us");
  for (int step = 1; step <= 2; ++step)
    for (int r = 0; r < ranks; ++r) {
      const double wobble = std::sin(r * 0.37 + step) * 900;
      s_step.ints.push_back(step);
      s_rank.ints.push_back(r);
      s_comp.doubles.push_back(80000 + wobble + (r == c->slow_rank ? 15000 : 0));
      s_comm.doubles.push_back(12000 - wobble / 2 - (r == c->slow_rank ? 5000 : 0));
      s_free.doubles.push_back(3000 + std::cos(r * 0.11) * 200);
    }
  auto& x_step = c->matrix.add_int("step");
  auto& x_group = c->matrix.add_string("group");
  auto& x_op = c->matrix.add_string("op");
  auto& x_src = c->matrix.add_int("src_rank");
  auto& x_dst = c->matrix.add_int("dst_rank");
  auto& x_tr = c->matrix.add_string("transport");
  auto& x_size = c->matrix.add_double("size_mb", "MB");
  auto& x_time = c->matrix.add_double("time_ms", "ms");
  auto& x_bw = c->matrix.add_double("bandwidth_gbps", "GB/s");
  const auto link = [&](const std::string& g, int s, int d, const char* tr, double bw) {
    x_step.ints.push_back(1);
    x_group.strings.push_back(g);
    x_op.strings.push_back("allreduce-total@" + g);
    x_src.ints.push_back(s);
    x_dst.ints.push_back(d);
    x_tr.strings.push_back(tr);
    x_size.doubles.push_back(64);
    x_time.doubles.push_back(64 / bw);
    x_bw.doubles.push_back(bw);
  };
  const long long slow_src = 1, slow_dst = 2;
  for (int g = 0; g < dp; ++g) {
    const std::string name = "tp" + std::to_string(g);
    for (int i = 0; i < tp; ++i)
      for (int j = 0; j < tp; ++j) {
        const int s = g * tp + i, d = g * tp + j;
        link(name, s, d, s == d ? "LOCAL" : "HCCS",
             (s == slow_src && d == slow_dst) ? 4.0 : 17.0 + std::sin(s * 1.3 + d) * 0.8);
      }
  }
  for (int i = 0; i < tp; ++i) {
    const std::string name = "dp" + std::to_string(i);
    for (int k = 0; k < dp; ++k) {
      const int s = k * tp + i, d = ((k + 1) % dp) * tp + i;
      if (s != d) link(name, s, d, "RDMA", 22.0 + std::cos(s * 0.7) * 1.5);
    }
  }
  auto& w_group = c->summary.add_string("group");
  auto& w_rank = c->summary.add_int("rank");
  auto& w_transit = c->summary.add_double("transit_ms", "ms");
  auto& w_wait = c->summary.add_double("wait_ms", "ms");
  auto& w_sync = c->summary.add_double("sync_ms", "ms");
  auto& w_wr = c->summary.add_double("wait_ratio", "ratio");
  auto& w_sr = c->summary.add_double("sync_ratio", "ratio");
  for (int r = 0; r < ranks; ++r)
    for (const std::string& g : {"tp" + std::to_string(r / tp), "dp" + std::to_string(r % tp)}) {
      const double transit = 20, wait = r == c->slow_rank ? 2 : 40 + std::sin(r * 0.9) * 8,
                   sync = r == c->slow_rank ? 1 : 25;
      w_group.strings.push_back(g);
      w_rank.ints.push_back(r);
      w_transit.doubles.push_back(transit);
      w_wait.doubles.push_back(wait);
      w_sync.doubles.push_back(sync);
      w_wr.doubles.push_back(wait / (wait + transit));
      w_sr.doubles.push_back(sync / (sync + transit));
    }
  auto& o_key = c->ops.add_string("key");
  auto& o_count = c->ops.add_int("count");
  auto& o_total = c->ops.add_double("total_us", "us");
  auto& o_mean = c->ops.add_double("mean_us", "us");
  auto& o_cv = c->ops.add_double("cross_rank_cv", "ratio");
  auto& o_ranks = c->ops.add_int("ranks");
  for (int k = 0; k < 15; ++k) {
    o_key.strings.push_back("Operator" + std::to_string(k));
    o_count.ints.push_back(1000 * (k + 1));
    o_total.doubles.push_back(1e7 / (k + 1));
    o_mean.doubles.push_back(1e7 / (k + 1) / (1000 * (k + 1)));
    o_cv.doubles.push_back(k == 2 ? 0.6 : 0.02 * k);
    o_ranks.ints.push_back(ranks);
  }
  c->slow_ranks.add_int("rank").ints.push_back(c->slow_rank);
  c->slow_ranks.add_double("score").doubles.push_back(9);
  c->slow_ranks.add_string("cause").strings.push_back("compute");
  c->slow_ranks.add_string("evidence").strings.push_back("computing +15 ms over the median");
  c->slow_links.add_int("src_rank").ints.push_back(slow_src);
  c->slow_links.add_int("dst_rank").ints.push_back(slow_dst);
  c->slow_links.add_string("transport").strings.push_back("HCCS");
  c->slow_links.add_double("bandwidth_gbps").doubles.push_back(4.0);
  c->slow_links.add_double("expected_gbps").doubles.push_back(17.0);
  c->slow_links.add_double("ratio").doubles.push_back(4.0 / 17.0);
  c->slow_links.add_string("evidence").strings.push_back("allreduce-total, group tp0");
  return c;
}

}  // namespace cs::report::test
