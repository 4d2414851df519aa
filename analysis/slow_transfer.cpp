#include "analysis/slow_transfer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "stats/outliers.h"

namespace cs::analysis {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// One op instance across the ranks reporting it.
struct Instance {
  std::string step, op;
  double transfer_ms = std::numeric_limits<double>::infinity();
  double size_mb = 0;
  std::vector<int> ranks;
};

// Largest-first sum of the transports' sizes of one rank's op (SDMA is the sum of HCCS, PCIE and
// SIO, so it counts only when none of those is present; LOCAL never moves data between ranks).
double op_size_mb(const readers::CommOp& op) {
  double parts = 0, sdma = 0;
  for (const auto& t : op.transports) {
    const double size = t.get(readers::kTrSizeMb);
    if (!t.has(readers::kTrSizeMb) || !std::isfinite(size) || t.name == "LOCAL") continue;
    if (t.name == "SDMA")
      sdma += size;
    else
      parts += size;
  }
  return parts > 0 ? parts : sdma;
}

// Rounds to 3 significant digits (the class key); 0 stays 0.
double round3(double v) {
  if (!(v > 0)) return 0;
  const double scale = std::pow(10.0, 2 - std::floor(std::log10(v)));
  return std::round(v * scale) / scale;
}

std::string ranks_text(const std::vector<int>& r) {
  std::string s;
  const size_t shown = std::min<size_t>(r.size(), 8);
  for (size_t i = 0; i < shown; ++i) s += (i ? "," : "") + std::to_string(r[i]);
  if (r.size() > shown) s += ",... (" + std::to_string(r.size()) + " ranks)";
  return s;
}

}  // namespace

std::string comm_op_type(std::string_view op_name) {
  std::string s(op_name.substr(0, op_name.find('@')));
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');  // ASCII, no call per char
  for (const char* p : {"hcom_", "hccl_"})
    if (s.rfind(p, 0) == 0) {
      s.erase(0, 5);
      break;
    }
  const auto us = s.find('_');
  return us == std::string::npos ? s : s.substr(0, us);
}

std::vector<SlowTransferFinding> find_slow_transfers(const std::vector<load::RankData>& ranks,
                                                     const std::vector<SlowLinkFinding>& slow_links,
                                                     const SlowTransferOptions& opts,
                                                     size_t* unjudged) {
  if (unjudged) *unjudged = 0;
  // 1. Instances: (step, op name) -> min elapse over ranks, max size, ranks.
  std::vector<Instance> inst;
  std::unordered_map<std::string, size_t> index;
  readers::CommunicationFile scratch;  // a rank still held packed is read through it
  for (const auto& r : ranks) {
    if (!r.has_communication) continue;
    for (const auto& step : r.communication.read(scratch).steps)
      for (const auto& op : step.collective) {
        if (op.is_total() || !op.has_time_info) continue;
        const readers::TimeField f =
            op.time.has(readers::kElapseTimeMs) ? readers::kElapseTimeMs : readers::kTransitTimeMs;
        if (!op.time.has(f)) continue;
        const double t = op.time.get(f);
        if (!std::isfinite(t) || t < 0) continue;
        std::string key = step.step;
        key += '\x1f';
        key += op.name;
        auto [it, fresh] = index.try_emplace(std::move(key), inst.size());
        if (fresh) inst.push_back({step.step, op.name, t, 0, {}});
        auto& in = inst[it->second];
        in.transfer_ms = std::min(in.transfer_ms, t);
        in.size_mb = std::max(in.size_mb, op_size_mb(op));
        in.ranks.push_back(r.rank());
      }
  }

  // 2. Classes (op type, size, group size) -> instance indices.
  using ClassKey = std::tuple<std::string, double, int>;
  std::map<ClassKey, std::vector<size_t>> classes;
  for (size_t i = 0; i < inst.size(); ++i) {
    auto& in = inst[i];
    std::sort(in.ranks.begin(), in.ranks.end());
    in.ranks.erase(std::unique(in.ranks.begin(), in.ranks.end()), in.ranks.end());
    if (in.ranks.size() < 2) continue;
    if (!(in.size_mb >= opts.min_size_mb)) {
      if (unjudged) ++*unjudged;
      continue;
    }
    classes[{comm_op_type(in.op), round3(in.size_mb), static_cast<int>(in.ranks.size())}].push_back(
        i);
  }

  // 3. Outliers within each class.
  std::vector<SlowTransferFinding> out;
  for (const auto& [ck, members] : classes) {
    if (members.size() < opts.min_class_ops) {
      if (unjudged) *unjudged += members.size();
      continue;
    }
    std::vector<double> v;
    v.reserve(members.size());
    for (size_t i : members) v.push_back(inst[i].transfer_ms);
    const double expected = stats::median(v);
    if (!(expected > 0)) continue;
    const auto z = stats::robust_z(v);
    for (size_t k = 0; k < members.size(); ++k) {
      const double ratio = v[k] / expected;
      if (!(z[k] >= opts.z_threshold) || !(ratio >= opts.min_ratio)) continue;
      const auto& in = inst[members[k]];
      SlowTransferFinding f;
      f.op_type = std::get<0>(ck);
      f.size_mb = std::get<1>(ck);
      f.group_size = std::get<2>(ck);
      f.step = in.step;
      f.op = in.op;
      f.transfer_ms = v[k];
      f.expected_ms = expected;
      f.ratio = ratio;
      f.z = z[k];
      f.class_ops = static_cast<int>(members.size());
      f.ranks = in.ranks;
      std::string links;
      for (const auto& l : slow_links) {
        if (!std::binary_search(in.ranks.begin(), in.ranks.end(), l.src_rank) ||
            !std::binary_search(in.ranks.begin(), in.ranks.end(), l.dst_rank))
          continue;
        f.links.push_back({l.src_rank, l.dst_rank});
        links += (links.empty() ? "" : ", ") + l.transport + " " + std::to_string(l.src_rank) +
                 "->" + std::to_string(l.dst_rank) + " at " + fmt("%.0f", l.ratio * 100) + "%";
      }
      f.evidence = f.op_type + " of " + fmt("%g", f.size_mb) + " MB over " +
                   std::to_string(f.group_size) + " ranks (" + ranks_text(in.ranks) + ") took " +
                   fmt("%.3f", f.transfer_ms) + " ms at its fastest rank where " +
                   std::to_string(members.size()) + " such ops take " + fmt("%.3f", expected) +
                   " ms (median; " + fmt("%.2f", ratio) + "x)";
      if (!links.empty())
        f.evidence += "; consistent with the slow link(s) " + links + " in the matrix";
      else
        f.evidence += "; no link of this group stands out in the matrix, so no link is named";
      out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end(), [](const SlowTransferFinding& a, const SlowTransferFinding& b) {
    if (a.ratio != b.ratio) return a.ratio > b.ratio;
    return std::tie(a.step, a.op) < std::tie(b.step, b.op);
  });
  return out;
}

io::Table slow_transfers_table(const std::vector<SlowTransferFinding>& findings) {
  io::Table t("slow_transfers");
  auto& type = t.add_string("op_type");
  auto& size = t.add_double("size_mb", "MB");
  auto& gsize = t.add_int("group_size");
  auto& step = t.add_string("step");
  auto& op = t.add_string("op");
  auto& transfer = t.add_double("transfer_ms", "ms");
  auto& expected = t.add_double("expected_ms", "ms");
  auto& ratio = t.add_double("ratio", "ratio");
  auto& evidence = t.add_string("evidence");
  for (const auto& f : findings) {
    type.strings.push_back(f.op_type);
    size.doubles.push_back(f.size_mb);
    gsize.ints.push_back(f.group_size);
    step.strings.push_back(f.step);
    op.strings.push_back(f.op);
    transfer.doubles.push_back(f.transfer_ms);
    expected.doubles.push_back(f.expected_ms);
    ratio.doubles.push_back(f.ratio);
    evidence.strings.push_back(f.evidence);
  }
  return t;
}

}  // namespace cs::analysis
