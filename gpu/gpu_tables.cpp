#include "gpu/gpu_tables.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "report/display_format.h"

namespace cs::gpu {

namespace {

double us(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

}  // namespace

double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

io::Table step_trace_table(const std::vector<GpuRankSummary>& ranks) {
  io::Table t("step_trace");
  auto& step = t.add_string("step");
  auto& rank = t.add_int("rank");
  auto& comp = t.add_double("computing_us", "us");
  auto& cno = t.add_double("comm_not_overlapped_us", "us");
  auto& ov = t.add_double("overlapped_us", "us");
  auto& comm = t.add_double("communication_us", "us");
  auto& fr = t.add_double("free_us", "us");
  auto& mem = t.add_double("memory_us", "us");
  auto& win = t.add_double("step_us", "us");
  auto& ker = t.add_double("kernel_us", "us");
  for (const auto& r : ranks)
    for (const auto& s : r.steps) {
      step.strings.push_back(s.step);
      rank.ints.push_back(r.rank);
      comp.doubles.push_back(us(s.computing_ns));
      cno.doubles.push_back(us(s.comm_not_overlapped_ns));
      ov.doubles.push_back(us(s.overlapped_ns));
      comm.doubles.push_back(us(s.communication_ns));
      fr.doubles.push_back(us(s.free_ns));
      mem.doubles.push_back(us(s.memory_ns));
      win.doubles.push_back(us(s.window_ns));
      ker.doubles.push_back(us(s.kernel_sum_ns));
    }
  return t;
}

io::Table collectives_table(const std::vector<CollectiveInstance>& inst) {
  io::Table t("collectives");
  auto& group = t.add_string("group");
  auto& seq = t.add_int("seq");
  auto& type = t.add_string("type");
  auto& step = t.add_string("step");
  auto& ranks = t.add_int("ranks");
  auto& gsize = t.add_int("group_size");
  auto& bytes = t.add_int("bytes", "bytes");
  auto& lat = t.add_double("latency_us", "us");
  auto& maxd = t.add_double("max_duration_us", "us");
  auto& ss = t.add_double("start_skew_us", "us");
  auto& es = t.add_double("end_skew_us", "us");
  auto& last = t.add_int("last_rank");
  auto& alg = t.add_double("algbw_gbps", "GB/s");
  auto& bus = t.add_double("busbw_gbps", "GB/s");
  for (const auto& in : inst) {
    group.strings.push_back(in.group);
    seq.ints.push_back(in.seq);
    type.strings.push_back(in.type);
    step.strings.push_back(in.step);
    ranks.ints.push_back(in.ranks);
    gsize.ints.push_back(in.group_size);
    bytes.ints.push_back(in.bytes);
    lat.doubles.push_back(us(in.latency_ns));
    maxd.doubles.push_back(us(in.max_dur_ns));
    ss.doubles.push_back(us(in.start_skew_ns));
    es.doubles.push_back(us(in.end_skew_ns));
    last.ints.push_back(in.last_rank);
    alg.doubles.push_back(in.algbw_gbps);
    bus.doubles.push_back(in.busbw_gbps);
  }
  return t;
}

io::Table collective_groups_table(const std::vector<CollectiveInstance>& inst) {
  struct Acc {
    int64_t n = 0, bytes = 0, lat = 0, gsize = 0, sized_lat = 0;
    std::string ranks;
  };
  std::map<std::pair<std::string, std::string>, Acc> acc;
  for (const auto& in : inst) {
    Acc& a = acc[{in.group, in.type}];
    ++a.n;
    a.lat += in.latency_ns;
    a.gsize = std::max(a.gsize, in.group_size);
    if (a.ranks.empty()) a.ranks = in.group_ranks;
    if (in.bytes >= 0) {
      a.bytes += in.bytes;
      a.sized_lat += in.latency_ns;
    }
  }
  io::Table t("collective_groups");
  auto& group = t.add_string("group");
  auto& type = t.add_string("type");
  auto& ranks = t.add_string("group_ranks");
  auto& gsize = t.add_int("group_size");
  auto& n = t.add_int("instances");
  auto& bytes = t.add_int("bytes", "bytes");
  auto& lat = t.add_double("latency_us", "us");
  auto& alg = t.add_double("algbw_gbps", "GB/s");
  auto& bus = t.add_double("busbw_gbps", "GB/s");
  for (const auto& [key, a] : acc) {
    group.strings.push_back(key.first);
    type.strings.push_back(key.second);
    ranks.strings.push_back(a.ranks);
    gsize.ints.push_back(a.gsize);
    n.ints.push_back(a.n);
    bytes.ints.push_back(a.bytes);
    lat.doubles.push_back(us(a.lat));
    const double algbw = a.sized_lat > 0 && a.bytes > 0
                             ? static_cast<double>(a.bytes) / static_cast<double>(a.sized_lat)
                             : -1;
    alg.doubles.push_back(algbw);
    bus.doubles.push_back(algbw < 0 ? -1 : algbw * busbw_factor(key.second, a.gsize));
  }
  return t;
}

io::Table rank_waits_table(const std::vector<RankWait>& waits) {
  io::Table t("rank_waits");
  auto& rank = t.add_int("rank");
  auto& n = t.add_int("collectives");
  auto& wait = t.add_double("wait_us", "us");
  auto& transit = t.add_double("transit_us", "us");
  auto& ratio = t.add_double("wait_ratio", "ratio");
  auto& last = t.add_int("last_arrivals");
  auto& matched = t.add_int("shared_collectives");
  auto& blame = t.add_double("caused_wait_us", "us");
  for (const auto& w : waits) {
    rank.ints.push_back(w.rank);
    n.ints.push_back(w.collectives);
    wait.doubles.push_back(us(w.wait_ns));
    transit.doubles.push_back(us(w.transit_ns));
    const int64_t tot = w.wait_ns + w.transit_ns;
    ratio.doubles.push_back(tot > 0 ? static_cast<double>(w.wait_ns) / static_cast<double>(tot)
                                    : 0);
    last.ints.push_back(w.last_arrivals);
    matched.ints.push_back(w.matched);
    blame.doubles.push_back(us(w.blame_ns));
  }
  return t;
}

io::Table kernels_topn_table(const std::vector<GpuRankSummary>& ranks, int top_n) {
  struct Acc {
    int64_t count = 0, total = 0;
    bool comm = false;
    std::vector<double> per_rank;
  };
  std::map<std::string, Acc> acc;
  for (const auto& r : ranks)
    for (const auto& k : r.kernels) {
      Acc& a = acc[k.name];
      a.count += k.count;
      a.total += k.total_ns;
      a.comm = k.communication;
      a.per_rank.push_back(us(k.total_ns));
    }
  std::vector<std::pair<const std::string*, Acc*>> order;
  for (auto& [name, a] : acc) order.push_back({&name, &a});
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& x, const auto& y) { return x.second->total > y.second->total; });
  if (order.size() > static_cast<size_t>(std::max(top_n, 0))) order.resize(top_n);
  io::Table t("kernels_topn");
  auto& key = t.add_string("key");
  auto& comm = t.add_int("communication");
  auto& count = t.add_int("count");
  auto& total = t.add_double("total_us", "us");
  auto& ranks_c = t.add_int("ranks");
  auto& mean = t.add_double("rank_mean_us", "us");
  auto& mn = t.add_double("rank_min_us", "us");
  auto& p50 = t.add_double("rank_p50_us", "us");
  auto& p90 = t.add_double("rank_p90_us", "us");
  auto& p99 = t.add_double("rank_p99_us", "us");
  auto& mx = t.add_double("rank_max_us", "us");
  for (auto& [name, a] : order) {
    std::sort(a->per_rank.begin(), a->per_rank.end());
    key.strings.push_back(*name);
    comm.ints.push_back(a->comm);
    count.ints.push_back(a->count);
    total.doubles.push_back(us(a->total));
    ranks_c.ints.push_back(static_cast<int64_t>(a->per_rank.size()));
    mean.doubles.push_back(us(a->total) / static_cast<double>(a->per_rank.size()));
    mn.doubles.push_back(a->per_rank.front());
    p50.doubles.push_back(quantile_sorted(a->per_rank, 0.5));
    p90.doubles.push_back(quantile_sorted(a->per_rank, 0.9));
    p99.doubles.push_back(quantile_sorted(a->per_rank, 0.99));
    mx.doubles.push_back(a->per_rank.back());
  }
  return t;
}

io::Table slow_ranks_table(const std::vector<SlowRank>& slow) {
  io::Table t("slow_ranks");
  auto& rank = t.add_int("rank");
  auto& score = t.add_double("score", "ratio");
  auto& cause = t.add_string("cause");
  auto& ev = t.add_string("evidence");
  for (const auto& s : slow) {
    rank.ints.push_back(s.rank);
    score.doubles.push_back(s.blame_share);
    cause.strings.push_back(s.cause);
    std::ostringstream os;
    os << "last to arrive at " << static_cast<int>(s.last_fraction * 100 + 0.5)
       << "% of its shared collectives; others waited " << report::fmt_us(us(s.blame_ns))
       << " for it; computing " << report::fmt_num(s.computing_ratio, 2) << "x its peers' median";
    ev.strings.push_back(os.str());
  }
  return t;
}

io::Table slow_groups_table(const std::vector<SlowGroup>& slow) {
  io::Table t("slow_groups");
  auto& group = t.add_string("group");
  auto& type = t.add_string("type");
  auto& gsize = t.add_int("group_size");
  auto& ranks = t.add_string("group_ranks");
  auto& npb = t.add_double("ns_per_byte");
  auto& ratio = t.add_double("ratio", "ratio");
  auto& link = t.add_string("link");
  for (const auto& s : slow) {
    group.strings.push_back(s.group);
    type.strings.push_back(s.type);
    gsize.ints.push_back(s.group_size);
    ranks.strings.push_back(s.group_ranks);
    npb.doubles.push_back(s.ns_per_byte);
    ratio.doubles.push_back(s.ratio);
    link.strings.push_back(s.link);
  }
  return t;
}

}  // namespace cs::gpu
