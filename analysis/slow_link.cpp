#include "analysis/slow_link.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "analysis/format_value.h"
#include "analysis/link_observations.h"
#include "readers/matrix.h"
#include "stats/outliers.h"

namespace cs::analysis {

namespace {

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

namespace {

// Whether find_slow_links() uses an observation of a non-derived op key (the same tests as
// LinkObservationSet::add()).
bool usable(int src, int dst, std::string_view transport, double size_mb, double time_ms,
            double min_size_mb) {
  if (src == dst || transport == "LOCAL") return false;
  if (!(size_mb > min_size_mb) || !(time_ms > 0) || !std::isfinite(size_mb) ||
      !std::isfinite(time_ms))
    return false;
  return std::isfinite(size_mb / time_ms);  // 1.7e308 MB in 0.01 ms: no bandwidth to compare
}

// The op type classes are made of: the matrix's op type, or the op name itself.
std::string op_type_of(std::string_view op) {
  std::string type = readers::matrix_op_type(op);
  return type.empty() ? std::string(op) : type;
}

// The observations of a vector: op handles are the op keys, op types looked up once per op.
class VectorSource {
 public:
  explicit VectorSource(const std::vector<LinkObservation>& obs) : obs_(obs) {}
  size_t size() const { return obs_.size(); }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& o : obs_)
      f(o.op_key, o.transport, o.src_rank, o.dst_rank, o.size_mb, o.time_ms);
  }
  bool derived(std::string_view key) const { return is_derived_matrix_key(key); }
  std::string_view op_type(std::string_view key) {
    const std::string_view op = key.substr(0, key.rfind('@'));
    auto [it, added] = op_types_.try_emplace(op);
    if (added) it->second = op_type_of(op);
    return it->second;
  }

 private:
  const std::vector<LinkObservation>& obs_;
  // Op type per distinct op (a few thousand ops among ~700k observations at 1,024 ranks).
  std::unordered_map<std::string_view, std::string> op_types_;
};

// The observations of a LinkObservationSet: op handles are its op ids, each id's op type and
// derivedness worked out once up front.
class SetSource {
 public:
  explicit SetSource(const LinkObservationSet& obs) : obs_(obs) {
    type_of_.reserve(obs.op_count());
    derived_.reserve(obs.op_count());
    for (uint32_t id = 0; id < obs.op_count(); ++id) {
      const std::string_view key = obs.op_key(id);
      const std::string_view op = key.substr(0, key.rfind('@'));
      auto [it, added] = types_.try_emplace(op);
      if (added) it->second = op_type_of(op);
      type_of_.push_back(it->second);  // a node's string never moves
      derived_.push_back(is_derived_matrix_key(key));
    }
  }
  size_t size() const { return obs_.size(); }
  template <class F>
  void for_each(F&& f) const {
    obs_.for_each(f);
  }
  bool derived(uint32_t op) const { return derived_[op]; }
  std::string_view op_type(uint32_t op) const { return type_of_[op]; }

 private:
  const LinkObservationSet& obs_;
  std::unordered_map<std::string_view, std::string> types_;  // by op (the key before '@')
  std::vector<std::string_view> type_of_;                    // by op id
  std::vector<bool> derived_;                                // by op id
};

// The one slow-link algorithm over either source. The source is walked three times in the same
// order (classes, class bandwidths, link sums): per usable observation only its class index is
// held (4 bytes) and, until the medians are known, its bandwidth (8 bytes).
template <class Source>
std::vector<SlowLinkFinding> find_slow_links_in(Source& src, const SlowLinkOptions& opts,
                                                int* unjudged, int* overflowed) {
  if (unjudged) *unjudged = 0;
  if (overflowed) *overflowed = 0;
  // 1. Classes (transport, op type, log2 size) and their median bandwidth.
  using ClassKey = std::tuple<std::string_view, std::string_view, int>;
  std::map<ClassKey, uint32_t> class_index;
  std::vector<size_t> class_size;             // observations by class index
  std::vector<uint32_t> kept_class;           // each usable observation's class index
  std::map<std::string_view, double> max_bw;  // per transport, to pick the nominal generation
  kept_class.reserve(src.size());
  src.for_each([&](auto op, std::string_view transport, int s, int d, double size_mb,
                   double time_ms) {
    if (src.derived(op) || !usable(s, d, transport, size_mb, time_ms, opts.min_size_mb)) return;
    const double bw = size_mb / time_ms;
    const ClassKey ck{transport, src.op_type(op),
                      static_cast<int>(std::lround(std::log2(size_mb)))};
    auto [ci, new_class] = class_index.try_emplace(ck, static_cast<uint32_t>(class_size.size()));
    if (new_class) class_size.push_back(0);
    ++class_size[ci->second];
    kept_class.push_back(ci->second);
    double& most = max_bw[transport];
    most = std::max(most, bw);
  });
  std::vector<double> class_med;
  {
    // The bandwidths grouped by class, each class's in observation order.
    std::vector<size_t> next(class_size.size());
    for (size_t c = 1; c < next.size(); ++c) next[c] = next[c - 1] + class_size[c - 1];
    std::vector<double> bws(kept_class.size());
    size_t i = 0;
    src.for_each(
        [&](auto op, std::string_view transport, int s, int d, double size_mb, double time_ms) {
          if (src.derived(op) || !usable(s, d, transport, size_mb, time_ms, opts.min_size_mb))
            return;
          bws[next[kept_class[i++]]++] = size_mb / time_ms;
        });
    size_t begin = 0;
    for (size_t n : class_size) {
      class_med.push_back(
          stats::median(std::vector<double>(bws.begin() + static_cast<std::ptrdiff_t>(begin),
                                            bws.begin() + static_cast<std::ptrdiff_t>(begin + n))));
      begin += n;
    }
  }

  // 2. Per link: totals and size-weighted ratio.
  std::map<LinkKey, LinkAcc> links;
  size_t i = 0;
  src.for_each(
      [&](auto op, std::string_view transport, int s, int d, double size_mb, double time_ms) {
        if (src.derived(op) || !usable(s, d, transport, size_mb, time_ms, opts.min_size_mb)) return;
        auto& a = links[{transport, s, d}];
        a.size += size_mb;
        a.time += time_ms;
        a.expected_time += size_mb / class_med[kept_class[i++]];
        ++a.n;
      });
  kept_class = {};

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

}  // namespace

std::vector<SlowLinkFinding> find_slow_links(const std::vector<LinkObservation>& obs,
                                             const SlowLinkOptions& opts, int* unjudged,
                                             int* overflowed) {
  VectorSource src(obs);
  return find_slow_links_in(src, opts, unjudged, overflowed);
}

std::vector<SlowLinkFinding> find_slow_links(const LinkObservationSet& obs,
                                             const SlowLinkOptions& opts, int* unjudged,
                                             int* overflowed) {
  if (!(opts.min_size_mb >= obs.min_size_mb()))
    throw std::invalid_argument("find_slow_links: min_size_mb below the observation set's");
  SetSource src(obs);
  return find_slow_links_in(src, opts, unjudged, overflowed);
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
