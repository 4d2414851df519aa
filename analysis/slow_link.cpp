#include "analysis/slow_link.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

#include "readers/matrix.h"
#include "stats/outliers.h"

namespace cs::analysis {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

struct LinkAcc {
  double size = 0, time = 0, expected_time = 0;
  int n = 0;
};

using LinkKey = std::tuple<std::string_view, int, int>;  // transport, src, dst

}  // namespace

double nominal_gbps(std::string_view transport, bool newer) {
  if (transport == "RDMA") return newer ? 25.0 : 12.5;
  if (transport == "HCCS") return newer ? 28.0 : 18.0;
  if (transport == "PCIE") return 20.0;
  return 0.0;
}

std::vector<SlowLinkFinding> find_slow_links(const std::vector<LinkObservation>& obs,
                                             const SlowLinkOptions& opts, int* unjudged,
                                             int* overflowed) {
  if (unjudged) *unjudged = 0;
  if (overflowed) *overflowed = 0;
  // 1. Classes (transport, op type, log2 size) and their median bandwidth.
  using ClassKey = std::tuple<std::string_view, std::string_view, int>;
  std::map<ClassKey, uint32_t> class_index;
  std::vector<std::vector<double>> class_bw;  // by class index
  // Op type per distinct op (a few thousand ops among ~700k observations at 1,024 ranks).
  std::unordered_map<std::string_view, std::string> op_types;
  std::vector<const LinkObservation*> kept;
  std::vector<uint32_t> kept_class;           // each kept observation's class index
  std::map<std::string_view, double> max_bw;  // per transport, to pick the nominal generation
  for (const auto& o : obs) {
    if (o.src_rank == o.dst_rank || o.transport == "LOCAL" || is_derived_matrix_key(o.op_key))
      continue;
    if (!(o.size_mb > opts.min_size_mb) || !(o.time_ms > 0) || !std::isfinite(o.size_mb) ||
        !std::isfinite(o.time_ms))
      continue;
    const double bw = o.size_mb / o.time_ms;
    if (!std::isfinite(bw)) continue;  // 1.7e308 MB in 0.01 ms: no bandwidth to compare
    const std::string_view op = o.op_key.substr(0, o.op_key.rfind('@'));
    auto [it, added] = op_types.try_emplace(op);
    if (added) {
      it->second = readers::matrix_op_type(op);
      if (it->second.empty()) it->second = std::string(op);
    }
    const ClassKey ck{o.transport, it->second, static_cast<int>(std::lround(std::log2(o.size_mb)))};
    auto [ci, new_class] = class_index.try_emplace(ck, static_cast<uint32_t>(class_bw.size()));
    if (new_class) class_bw.emplace_back();
    class_bw[ci->second].push_back(bw);
    kept.push_back(&o);
    kept_class.push_back(ci->second);
    double& most = max_bw[o.transport];
    most = std::max(most, bw);
  }
  std::vector<double> class_med;
  for (auto& v : class_bw) class_med.push_back(stats::median(std::move(v)));

  // 2. Per link: totals and size-weighted ratio.
  std::map<LinkKey, LinkAcc> links;
  for (size_t i = 0; i < kept.size(); ++i) {
    const auto& o = *kept[i];
    auto& a = links[{o.transport, o.src_rank, o.dst_rank}];
    a.size += o.size_mb;
    a.time += o.time_ms;
    a.expected_time += o.size_mb / class_med[kept_class[i]];
    ++a.n;
  }

  // 3. Robust z of the ratio among links of the same transport.
  std::map<std::string_view, std::vector<std::pair<LinkKey, double>>> by_transport;
  for (const auto& [k, a] : links) {
    if (!std::isfinite(a.size) || !std::isfinite(a.time) || !std::isfinite(a.expected_time)) {
      if (overflowed) ++*overflowed;  // sums beyond 1.8e308: never printed as inf or nan MB
      continue;
    }
    if (!(a.size >= opts.min_total_mb) ||
        (a.n < opts.min_transfers && !(a.size >= opts.min_bulk_mb))) {
      if (unjudged) ++*unjudged;
      continue;
    }
    by_transport[std::get<0>(k)].push_back({k, a.expected_time / a.time});
  }
  std::vector<SlowLinkFinding> out;
  for (const auto& [transport, v] : by_transport) {
    std::vector<double> ratios;
    for (const auto& [k, r] : v) ratios.push_back(r);
    const auto z = stats::robust_z(ratios);
    const double nominal =
        nominal_gbps(transport, max_bw[transport] > nominal_gbps(transport, false) * 1.05);
    for (size_t i = 0; i < v.size(); ++i) {
      const double ratio = ratios[i];
      // With few links of a transport the z-score is meaningless: the ratio alone decides.
      const bool z_ok = v.size() < 4 || z[i] <= -opts.z_threshold;
      if (!(ratio <= opts.max_ratio) || !z_ok) continue;
      const auto& a = links.at(v[i].first);
      SlowLinkFinding f;
      f.src_rank = std::get<1>(v[i].first);
      f.dst_rank = std::get<2>(v[i].first);
      f.transport = transport;
      f.bandwidth_gbps = a.size / a.time;
      f.expected_gbps = f.bandwidth_gbps / ratio;
      f.ratio = ratio;
      f.z = z[i];
      f.nominal_gbps = nominal;
      f.observations = a.n;
      f.size_mb = a.size;
      f.time_ms = a.time;
      f.evidence = std::string(transport) + " link " + std::to_string(f.src_rank) + "->" +
                   std::to_string(f.dst_rank) + " moves " + fmt("%.2f", f.bandwidth_gbps) +
                   " GB/s where links of the same transport moving the same kind of data reach " +
                   fmt("%.2f", f.expected_gbps) + " GB/s (" + fmt("%.0f", ratio * 100) +
                   "%, over " + std::to_string(a.n) + " transfers, " + fmt("%.4g", a.size) + " MB)";
      if (nominal > 0)
        f.evidence += "; " + fmt("%.0f", f.bandwidth_gbps / nominal * 100) + "% of the nominal " +
                      fmt("%g", nominal) + " GB/s";
      out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end(), [](const SlowLinkFinding& a, const SlowLinkFinding& b) {
    if (a.ratio != b.ratio) return a.ratio < b.ratio;
    return std::tie(a.transport, a.src_rank, a.dst_rank) <
           std::tie(b.transport, b.src_rank, b.dst_rank);
  });
  return out;
}

io::Table slow_links_table(const std::vector<SlowLinkFinding>& findings) {
  io::Table t("slow_links");
  auto& src = t.add_int("src_rank");
  auto& dst = t.add_int("dst_rank");
  auto& transport = t.add_string("transport");
  auto& bw = t.add_double("bandwidth_gbps", "GB/s");
  auto& expected = t.add_double("expected_gbps", "GB/s");
  auto& ratio = t.add_double("ratio", "ratio");
  auto& evidence = t.add_string("evidence");
  for (const auto& f : findings) {
    src.ints.push_back(f.src_rank);
    dst.ints.push_back(f.dst_rank);
    transport.strings.push_back(f.transport);
    bw.doubles.push_back(f.bandwidth_gbps);
    expected.doubles.push_back(f.expected_gbps);
    ratio.doubles.push_back(f.ratio);
    evidence.strings.push_back(f.evidence);
  }
  return t;
}

}  // namespace cs::analysis
