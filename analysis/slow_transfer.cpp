#include "analysis/slow_transfer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/group_batches.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "runtime/task_runner.h"
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
  uint64_t order = 0;  // where it is first seen: (position of the rank, its op's ordinal there)
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

// The transfer time of one rank's op: Elapse Time (Transit Time when no elapse); false when
// neither is a finite non-negative number.
bool op_transfer_ms(const readers::CommOp& op, double* t) {
  const readers::TimeField f =
      op.time.has(readers::kElapseTimeMs) ? readers::kElapseTimeMs : readers::kTransitTimeMs;
  if (!op.time.has(f)) return false;
  *t = op.time.get(f);
  return std::isfinite(*t) && *t >= 0;
}

// Calls fn(step, op) for each collective op of `rd` the analysis reads, in file order.
template <class Fn>
void each_collective(const load::RankData& rd, readers::CommunicationFile& scratch, Fn fn) {
  for (const auto& step : rd.communication.read(scratch).steps)
    for (const auto& op : step.collective)
      if (!op.is_total() && op.has_time_info) fn(step, op);
}

// The groups every rank reports collectives of, cut into batches (analysis/group_batches.h). The
// ranks are read on opts.threads threads, a window of opts.window_ranks at a time (only a window's
// results held), and added in rank order.
GroupBatches transfer_batches(const std::vector<load::RankData>& ranks,
                              const SlowTransferOptions& opts) {
  const size_t window = std::max<size_t>(1, opts.window_ranks);
  GroupBatches b;
  std::vector<std::vector<std::pair<std::string, size_t>>> seen;
  for (size_t from = 0; from < ranks.size(); from += window) {
    const size_t n = std::min(window, ranks.size() - from);
    seen.assign(n, {});
    runtime::parallel_for(n, opts.threads, [&](size_t k) {
      const load::RankData& rd = ranks[from + k];
      if (!rd.has_communication) return;
      thread_local readers::CommunicationFile scratch;  // reused rank after rank
      GroupCounter mine;
      each_collective(rd, scratch, [&](const readers::CommStep&, const readers::CommOp& op) {
        mine.count(documents::py_group_of(op.name));
      });
      seen[k] = mine.take();
    });
    for (size_t k = 0; k < n; ++k)
      if (ranks[from + k].has_communication)
        b.add(static_cast<uint32_t>(from + k), std::move(seen[k]));
  }
  b.cut(opts.batch_reports);
  return b;
}

// One rank's collective op of a batch's groups, as read on a thread: "step\x1fop" and where the
// step ends in it, its transfer time and size, its ordinal among the rank's collectives.
struct Report {
  std::string key;
  size_t step_size;
  double transfer_ms, size_mb;
  uint64_t ordinal;
};

// The instances of batch i's groups, in first-seen order (ranks in the order of `ranks`). The
// ranks' reports are read on opts.threads threads, a window at a time, and added in rank order.
std::vector<Instance> batch_instances(const std::vector<load::RankData>& ranks,
                                      const GroupBatches& b, size_t i,
                                      const SlowTransferOptions& opts) {
  const size_t window = std::max<size_t>(1, opts.window_ranks);
  std::vector<Instance> inst;
  std::unordered_map<std::string, size_t> index;
  const std::vector<uint32_t>& readers_of = b.readers(i);
  std::vector<std::vector<Report>> reports;
  for (size_t from = 0; from < readers_of.size(); from += window) {
    const size_t n = std::min(window, readers_of.size() - from);
    reports.assign(n, {});
    runtime::parallel_for(n, opts.threads, [&](size_t k) {
      thread_local readers::CommunicationFile scratch;  // reused rank after rank
      uint64_t ordinal = 0;
      each_collective(
          ranks[readers_of[from + k]], scratch,
          [&](const readers::CommStep& step, const readers::CommOp& op) {
            const uint64_t at = ordinal++;
            double t = 0;
            if (b.batch_of(documents::py_group_of(op.name)) != i || !op_transfer_ms(op, &t)) return;
            std::string key = step.step;
            key += '\x1f';
            key += op.name;
            reports[k].push_back({std::move(key), step.step.size(), t, op_size_mb(op), at});
          });
    });
    for (size_t k = 0; k < n; ++k) {
      const uint32_t p = readers_of[from + k];
      const int rank = ranks[p].rank();
      for (Report& rep : reports[k]) {
        auto [it, fresh] = index.try_emplace(std::move(rep.key), inst.size());
        if (fresh) {
          const std::string& key = it->first;
          inst.push_back({key.substr(0, rep.step_size),
                          key.substr(rep.step_size + 1),
                          rep.transfer_ms,
                          0,
                          {},
                          (uint64_t{p} << 32) | rep.ordinal});
        }
        auto& in = inst[it->second];
        in.transfer_ms = std::min(in.transfer_ms, rep.transfer_ms);
        in.size_mb = std::max(in.size_mb, rep.size_mb);
        in.ranks.push_back(rank);
      }
      std::vector<Report>().swap(reports[k]);
    }
  }
  for (Instance& in : inst) {
    std::sort(in.ranks.begin(), in.ranks.end());
    in.ranks.erase(std::unique(in.ranks.begin(), in.ranks.end()), in.ranks.end());
  }
  return inst;
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
  // 1. Instances, a batch of groups at a time: (step, op name) -> min elapse over ranks, max
  // size, ranks; each kept as its class, time and place only.
  const GroupBatches batches = transfer_batches(ranks, opts);
  struct Member {
    uint64_t order;  // Instance::order: the classes' members in first-seen order, as judged whole
    double transfer_ms;
    uint32_t batch, id;  // where to find it again
  };
  // 2. Classes (op type, size, group size) -> instances.
  using ClassKey = std::tuple<std::string, double, int>;
  std::map<ClassKey, std::vector<Member>> classes;
  for (size_t b = 0; b < batches.size(); ++b) {
    const std::vector<Instance> inst = batch_instances(ranks, batches, b, opts);
    for (size_t i = 0; i < inst.size(); ++i) {
      const Instance& in = inst[i];
      if (in.ranks.size() < 2) continue;
      if (!(in.size_mb >= opts.min_size_mb)) {
        if (unjudged) ++*unjudged;
        continue;
      }
      classes[{comm_op_type(in.op), round3(in.size_mb), static_cast<int>(in.ranks.size())}]
          .push_back(
              {in.order, in.transfer_ms, static_cast<uint32_t>(b), static_cast<uint32_t>(i)});
    }
  }

  // 3. Outliers within each class; the slow instances' names and ranks read again at the end.
  std::vector<SlowTransferFinding> out;
  std::vector<std::pair<uint32_t, uint32_t>> where;  // per finding: batch, id
  for (auto& [ck, members] : classes) {
    if (members.size() < opts.min_class_ops) {
      if (unjudged) *unjudged += members.size();
      continue;
    }
    std::sort(members.begin(), members.end(),
              [](const Member& a, const Member& b) { return a.order < b.order; });
    std::vector<double> v;
    v.reserve(members.size());
    for (const Member& m : members) v.push_back(m.transfer_ms);
    const double expected = stats::median(v);
    if (!(expected > 0)) continue;
    const auto z = stats::robust_z(v);
    for (size_t k = 0; k < members.size(); ++k) {
      const double ratio = v[k] / expected;
      if (!(z[k] >= opts.z_threshold) || !(ratio >= opts.min_ratio)) continue;
      SlowTransferFinding f;
      f.op_type = std::get<0>(ck);
      f.size_mb = std::get<1>(ck);
      f.group_size = std::get<2>(ck);
      f.transfer_ms = v[k];
      f.expected_ms = expected;
      f.ratio = ratio;
      f.z = z[k];
      f.class_ops = static_cast<int>(members.size());
      out.push_back(std::move(f));
      where.emplace_back(members[k].batch, members[k].id);
    }
  }
  std::map<uint32_t, std::vector<size_t>> by_batch;
  for (size_t k = 0; k < out.size(); ++k) by_batch[where[k].first].push_back(k);
  for (const auto& [b, found] : by_batch) {
    const std::vector<Instance> inst = batch_instances(ranks, batches, b, opts);
    for (size_t k : found) {
      SlowTransferFinding& f = out[k];
      const Instance& in = inst[where[k].second];
      f.step = in.step;
      f.op = in.op;
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
                   std::to_string(f.class_ops) + " such ops take " + fmt("%.3f", f.expected_ms) +
                   " ms (median; " + fmt("%.2f", f.ratio) + "x)";
      if (!links.empty())
        f.evidence += "; consistent with the slow link(s) " + links + " in the matrix";
      else
        f.evidence += "; no link of this group stands out in the matrix, so no link is named";
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
