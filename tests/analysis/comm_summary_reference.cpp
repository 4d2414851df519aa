// The whole-table reference of comm_rank_summary and comm_transport_summary
// (analysis/comm_summary.h gives their rows and order): every rank's ops summed in one pass over
// all ranks into ordered maps, the plainest way to get the tables. `cluster` never builds them
// this way (it streams them rank by rank: analysis/comm_summary_stream.h); the tests check the
// stream against this.

#include "analysis/comm_summary_reference.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "analysis/comm_summary.h"
#include "analysis/slow_link.h"

namespace cs::testing {

using analysis::comm_share;
using analysis::comm_time_ms;
using analysis::CommSummaryStream;
using analysis::nominal_gbps;
using analysis::rank_comm_sums;

namespace {

// Groups in order of first appearance over ranks in rank order.
class GroupOrder {
 public:
  size_t index(std::string_view g) {
    auto it = idx_.find(std::string(g));
    if (it != idx_.end()) return it->second;
    idx_.emplace(std::string(g), names_.size());
    names_.emplace_back(g);
    return names_.size() - 1;
  }
  const std::string& name(size_t i) const { return names_[i]; }

 private:
  std::unordered_map<std::string, size_t> idx_;
  std::vector<std::string> names_;
};

template <typename F>
void for_each_op(const std::vector<load::RankData>& ranks, F&& f) {
  readers::CommunicationFile scratch;  // a rank still held packed is read through it
  for (const auto& r : ranks) {
    if (!r.has_communication) continue;
    for (const auto& step : r.communication.read(scratch).steps) {
      for (const auto& op : step.collective)
        if (!op.is_total()) f(r, op);
      for (const auto& op : step.p2p)
        if (!op.is_total()) f(r, op);
    }
  }
}

}  // namespace

io::Table reference_comm_rank_summary(const std::vector<load::RankData>& ranks) {
  struct Acc {
    int64_t ops = 0;
    double elapse = 0, transit = 0, wait = 0, sync = 0, idle = 0;
  };
  GroupOrder groups;
  std::map<std::pair<size_t, int>, Acc> acc;
  for_each_op(ranks, [&](const load::RankData& r, const readers::CommOp& op) {
    auto& a = acc[{groups.index(op.group()), r.rank()}];
    ++a.ops;
    a.elapse += comm_time_ms(op, readers::kElapseTimeMs);
    a.transit += comm_time_ms(op, readers::kTransitTimeMs);
    a.wait += comm_time_ms(op, readers::kWaitTimeMs);
    a.sync += comm_time_ms(op, readers::kSyncTimeMs);
    a.idle += comm_time_ms(op, readers::kIdleTimeMs);
  });
  io::Table t("comm_rank_summary");
  auto& group = t.add_string("group");
  auto& rank = t.add_int("rank");
  auto& ops = t.add_int("ops");
  auto& elapse = t.add_double("elapse_ms", "ms");
  auto& transit = t.add_double("transit_ms", "ms");
  auto& wait = t.add_double("wait_ms", "ms");
  auto& sync = t.add_double("sync_ms", "ms");
  auto& idle = t.add_double("idle_ms", "ms");
  auto& wait_ratio = t.add_double("wait_ratio", "ratio");
  auto& sync_ratio = t.add_double("sync_ratio", "ratio");
  for (const auto& [k, a] : acc) {
    group.strings.push_back(groups.name(k.first));
    rank.ints.push_back(k.second);
    ops.ints.push_back(a.ops);
    elapse.doubles.push_back(a.elapse);
    transit.doubles.push_back(a.transit);
    wait.doubles.push_back(a.wait);
    sync.doubles.push_back(a.sync);
    idle.doubles.push_back(a.idle);
    wait_ratio.doubles.push_back(comm_share(a.wait, a.transit));
    sync_ratio.doubles.push_back(comm_share(a.sync, a.transit));
  }
  return t;
}

io::Table reference_comm_transport_summary(const std::vector<load::RankData>& ranks) {
  struct Acc {
    double size = 0, time = 0;
  };
  GroupOrder groups;
  std::map<std::tuple<size_t, int, std::string>, Acc> acc;
  std::map<std::string, double> max_bw;
  for_each_op(ranks, [&](const load::RankData& r, const readers::CommOp& op) {
    const size_t g = groups.index(op.group());
    for (const auto& tr : op.transports) {
      if (tr.name == "SDMA") continue;
      const double size_mb = tr.get(readers::kTrSizeMb), time_ms = tr.get(readers::kTrTimeMs);
      const double size = tr.has(readers::kTrSizeMb) && std::isfinite(size_mb) ? size_mb : 0.0;
      const double time = tr.has(readers::kTrTimeMs) && std::isfinite(time_ms) ? time_ms : 0.0;
      std::string name(tr.name.view());
      if (time > 0) max_bw[name] = std::max(max_bw[name], size / time);
      auto& a = acc[{g, r.rank(), std::move(name)}];
      a.size += size;
      a.time += time;
    }
  });
  io::Table t("comm_transport_summary");
  auto& group = t.add_string("group");
  auto& rank = t.add_int("rank");
  auto& transport = t.add_string("transport");
  auto& size = t.add_double("size_mb", "MB");
  auto& time = t.add_double("time_ms", "ms");
  auto& bw = t.add_double("bandwidth_gbps", "GB/s");
  auto& nominal = t.add_double("nominal_gbps", "GB/s");
  auto& util = t.add_double("utilization", "ratio");
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [k, a] : acc) {
    const auto& name = std::get<2>(k);
    const double b = a.time > 0 ? a.size / a.time : 0.0;
    const double nom = nominal_gbps(name, max_bw[name] > nominal_gbps(name, false) * 1.05);
    group.strings.push_back(groups.name(std::get<0>(k)));
    rank.ints.push_back(std::get<1>(k));
    transport.strings.push_back(name);
    size.doubles.push_back(a.size);
    time.doubles.push_back(a.time);
    bw.doubles.push_back(b);
    nominal.doubles.push_back(nom > 0 ? nom : kNaN);
    util.doubles.push_back(nom > 0 ? b / nom : kNaN);
  }
  return t;
}

// Appends a chunk's rows to a table of the same columns.
void append_rows(io::Table& to, const io::Table& chunk) {
  for (size_t c = 0; c < to.columns.size(); ++c) {
    io::Column& t = to.columns[c];
    const io::Column& f = chunk.columns[c];
    t.strings.insert(t.strings.end(), f.strings.begin(), f.strings.end());
    t.ints.insert(t.ints.end(), f.ints.begin(), f.ints.end());
    t.doubles.insert(t.doubles.end(), f.doubles.begin(), f.doubles.end());
  }
}

StreamedSummaries stream_comm_summaries(const std::vector<load::RankData>& ranks, size_t park_bytes,
                                        size_t chunk_rows) {
  CommSummaryStream s(park_bytes);
  readers::CommunicationFile scratch;
  for (const auto& r : ranks) s.add(rank_comm_sums(r, scratch));
  StreamedSummaries out;
  out.ranks = CommSummaryStream::rank_schema();
  out.transports = CommSummaryStream::transport_schema();
  out.rank_strings = s.rank_strings();
  out.transport_strings = s.transport_strings();
  out.digest = s.emit(
      [&](io::Table t) {
        ++out.rank_chunks;
        out.largest_chunk = std::max(out.largest_chunk, t.rows());
        append_rows(out.ranks, t);
      },
      [&](io::Table t) {
        ++out.transport_chunks;
        out.largest_chunk = std::max(out.largest_chunk, t.rows());
        append_rows(out.transports, t);
      },
      chunk_rows);
  return out;
}

}  // namespace cs::testing
