#include "analysis/comm_summary_stream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <unordered_map>
#include <utility>

#include "analysis/comm_summary.h"
#include "analysis/slow_link.h"

namespace cs::analysis {

namespace {

template <typename T>
void put(std::vector<char>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof v);
  std::memcpy(out.data() + at, &v, sizeof v);
}

template <typename T>
T take(const char*& p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  p += sizeof v;
  return v;
}

// A number cell appended to a column of that type.
void push(io::Column& col, double v) {
  col.doubles.push_back(v);
}
void push_int(io::Column& col, int64_t v) {
  col.ints.push_back(v);
}

}  // namespace

RankCommSums rank_comm_sums(const load::RankData& rank, readers::CommunicationFile& scratch) {
  RankCommSums s;
  s.rank = rank.rank();
  if (!rank.has_communication) return s;
  size_t last = 0;  // the group of the previous op: consecutive ops mostly share one
  std::unordered_map<std::string, size_t> at;
  auto group_of = [&](std::string_view name) -> RankCommSums::Group& {
    if (last < s.groups.size() && s.groups[last].name == name) return s.groups[last];
    auto [it, added] = at.try_emplace(std::string(name), s.groups.size());
    if (added) {
      s.groups.emplace_back();
      s.groups.back().name = it->first;
    }
    last = it->second;
    return s.groups[last];
  };
  auto add = [&](const readers::CommOp& op) {
    if (op.is_total()) return;
    RankCommSums::Group& g = group_of(op.group());
    ++g.ops;
    g.elapse += comm_time_ms(op, readers::kElapseTimeMs);
    g.transit += comm_time_ms(op, readers::kTransitTimeMs);
    g.wait += comm_time_ms(op, readers::kWaitTimeMs);
    g.sync += comm_time_ms(op, readers::kSyncTimeMs);
    g.idle += comm_time_ms(op, readers::kIdleTimeMs);
    for (const auto& tr : op.transports) {
      if (tr.name == "SDMA") continue;
      const double size_mb = tr.get(readers::kTrSizeMb), time_ms = tr.get(readers::kTrTimeMs);
      const double size = tr.has(readers::kTrSizeMb) && std::isfinite(size_mb) ? size_mb : 0.0;
      const double time = tr.has(readers::kTrTimeMs) && std::isfinite(time_ms) ? time_ms : 0.0;
      const std::string_view tname = tr.name.view();
      if (time > 0) {
        double& m = s.max_bandwidth[std::string(tname)];
        m = std::max(m, size / time);
      }
      auto t = std::lower_bound(
          g.transports.begin(), g.transports.end(), tname,
          [](const RankCommSums::Transport& a, std::string_view b) { return a.name < b; });
      if (t == g.transports.end() || t->name != tname)
        t = g.transports.insert(t, RankCommSums::Transport{std::string(tname)});
      t->size += size;
      t->time += time;
    }
  };
  for (const auto& step : rank.communication.read(scratch).steps) {
    for (const auto& op : step.collective) add(op);
    for (const auto& op : step.p2p) add(op);
  }
  return s;
}

CommSummaryStream::CommSummaryStream(size_t park_bytes) : park_bytes_(park_bytes) {
  try {
    spill_ = runtime::SpillFile::create();
    spill_file_ = spill_;
  } catch (const std::exception&) {
    spill_.reset();  // the rows stay in memory, packed
  }
}

uint32_t CommSummaryStream::group_index(const std::string& name) {
  auto [it, added] = group_idx_.try_emplace(name, static_cast<uint32_t>(groups_.size()));
  if (added) {
    groups_.push_back(name);
    buckets_.emplace_back();
  }
  return it->second;
}

uint32_t CommSummaryStream::transport_index(const std::string& name) {
  auto [it, added] = transport_idx_.try_emplace(name, static_cast<uint32_t>(transports_.size()));
  if (added) transports_.push_back(name);
  return it->second;
}

void CommSummaryStream::add(const RankCommSums& sums) {
  for (const auto& [name, bw] : sums.max_bandwidth) {
    double& m = max_bw_[name];
    m = std::max(m, bw);
  }
  for (const RankCommSums::Group& g : sums.groups) {
    Bucket& b = buckets_[group_index(g.name)];
    const size_t before = b.pending.size();
    put<int32_t>(b.pending, sums.rank);
    put<int64_t>(b.pending, g.ops);
    for (double v : {g.elapse, g.transit, g.wait, g.sync, g.idle}) put<double>(b.pending, v);
    put<uint32_t>(b.pending, static_cast<uint32_t>(g.transports.size()));
    for (const RankCommSums::Transport& t : g.transports) {
      put<uint32_t>(b.pending, transport_index(t.name));
      put<double>(b.pending, t.size);
      put<double>(b.pending, t.time);
    }
    ++b.rank_rows;
    b.transport_rows += g.transports.size();
    ++rank_rows_;
    transport_rows_ += g.transports.size();
    pending_bytes_ += b.pending.size() - before;
  }
  if (pending_bytes_ >= park_bytes_) park();
}

void CommSummaryStream::park() {
  for (Bucket& b : buckets_) {
    if (b.pending.empty()) continue;
    runtime::SpillFile::Block block;
    bool parked = false;
    if (spill_) {
      try {
        block = spill_->append(b.pending.data(), b.pending.size());
        parked = true;
      } catch (const std::exception&) {
        spill_.reset();  // a full disk: the rest stays in memory (what is parked stays readable)
      }
    }
    if (!parked) {
      block.offset = held_.size();
      block.size = b.pending.size();
      held_.push_back(std::move(b.pending));
    }
    b.parked.push_back({block, !parked});
    std::vector<char>().swap(b.pending);
  }
  pending_bytes_ = 0;
}

io::Table CommSummaryStream::rank_schema() {
  io::Table t("comm_rank_summary");
  t.add_string("group");
  t.add_int("rank");
  t.add_int("ops");
  t.add_double("elapse_ms", "ms");
  t.add_double("transit_ms", "ms");
  t.add_double("wait_ms", "ms");
  t.add_double("sync_ms", "ms");
  t.add_double("idle_ms", "ms");
  t.add_double("wait_ratio", "ratio");
  t.add_double("sync_ratio", "ratio");
  return t;
}

io::Table CommSummaryStream::transport_schema() {
  io::Table t("comm_transport_summary");
  t.add_string("group");
  t.add_int("rank");
  t.add_string("transport");
  t.add_double("size_mb", "MB");
  t.add_double("time_ms", "ms");
  t.add_double("bandwidth_gbps", "GB/s");
  t.add_double("nominal_gbps", "GB/s");
  t.add_double("utilization", "ratio");
  return t;
}

std::vector<io::StringColumnSize> CommSummaryStream::rank_strings() const {
  size_t longest = 0, bytes = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (buckets_[g].rank_rows == 0) continue;
    longest = std::max(longest, groups_[g].size());
    bytes += groups_[g].size() * buckets_[g].rank_rows;
  }
  const double rows = static_cast<double>(std::max<size_t>(rank_rows_, 1));
  return {{longest, static_cast<double>(bytes) / rows}};
}

std::vector<io::StringColumnSize> CommSummaryStream::transport_strings() const {
  size_t longest = 0, bytes = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (buckets_[g].transport_rows == 0) continue;
    longest = std::max(longest, groups_[g].size());
    bytes += groups_[g].size() * buckets_[g].transport_rows;
  }
  size_t t_longest = 0;
  for (const std::string& t : transports_) t_longest = std::max(t_longest, t.size());
  // The transport column's mean: every transport row names one of few short names, so the mean
  // cannot make it variable-length (hdf5_variable_strings needs a value above 1 KiB); the
  // longest is what counts.
  const double rows = static_cast<double>(std::max<size_t>(transport_rows_, 1));
  return {{longest, static_cast<double>(bytes) / rows},
          {t_longest, static_cast<double>(t_longest)}};
}

CommRankDigest CommSummaryStream::emit(const std::function<void(io::Table)>& rank_chunk,
                                       const std::function<void(io::Table)>& transport_chunk,
                                       size_t chunk_rows) {
  chunk_rows = std::max<size_t>(chunk_rows, 1);
  park();  // every row in its group's blocks, in rank order
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> nominal(transports_.size());
  for (size_t i = 0; i < transports_.size(); ++i) {
    const std::string& name = transports_[i];
    const auto m = max_bw_.find(name);
    const double top = m == max_bw_.end() ? 0.0 : m->second;
    nominal[i] = nominal_gbps(name, top > nominal_gbps(name, false) * 1.05);
  }

  CommRankDigest digest;
  io::Column& d_group = digest.group_ranks.add_encoded_string("group");
  io::Column& d_rank = digest.group_ranks.add_int("rank");
  d_group.codes.reserve(rank_rows_);
  d_rank.ints.reserve(rank_rows_);
  struct Times {
    double transit = 0, wait = 0, sync = 0;
  };
  std::map<int64_t, Times> totals;  // by rank
  const auto finite = [](double v) { return std::isfinite(v) ? v : 0.0; };

  io::Table ranks = rank_schema(), trans = transport_schema();
  auto flush = [&](io::Table& t, const std::function<void(io::Table)>& out, bool force) {
    if (t.rows() == 0 || (!force && t.rows() < chunk_rows)) return;
    io::Table full = std::move(t);
    t = full.name == "comm_rank_summary" ? rank_schema() : transport_schema();
    out(std::move(full));
  };
  std::vector<char> block;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const std::string& name = groups_[g];
    const uint32_t code = static_cast<uint32_t>(d_group.dict.size());
    if (buckets_[g].rank_rows > 0) d_group.dict.push_back(name);
    for (const Parked& b : buckets_[g].parked) {
      if (b.held)
        block.swap(held_[b.block.offset]);  // read once
      else
        spill_file_->read(b.block, block);
      const char* p = block.data();
      const char* end = p + block.size();
      while (p < end) {
        const int32_t rank = take<int32_t>(p);
        const int64_t ops = take<int64_t>(p);
        double v[5];
        for (double& x : v) x = take<double>(p);
        const auto ntr = take<uint32_t>(p);
        ranks.columns[0].strings.push_back(name);
        push_int(ranks.columns[1], rank);
        push_int(ranks.columns[2], ops);
        for (size_t i = 0; i < 5; ++i) push(ranks.columns[3 + i], v[i]);
        push(ranks.columns[8], comm_share(v[2], v[1]));
        push(ranks.columns[9], comm_share(v[3], v[1]));
        d_group.codes.push_back(code);
        d_rank.ints.push_back(rank);
        Times& t = totals[rank];
        t.transit += finite(v[1]);
        t.wait += finite(v[2]);
        t.sync += finite(v[3]);
        for (uint32_t i = 0; i < ntr; ++i) {
          const auto tid = take<uint32_t>(p);
          const double size = take<double>(p), time = take<double>(p);
          const double bw = time > 0 ? size / time : 0.0;
          const double nom = nominal[tid];
          trans.columns[0].strings.push_back(name);
          push_int(trans.columns[1], rank);
          trans.columns[2].strings.push_back(transports_[tid]);
          push(trans.columns[3], size);
          push(trans.columns[4], time);
          push(trans.columns[5], bw);
          push(trans.columns[6], nom > 0 ? nom : kNaN);
          push(trans.columns[7], nom > 0 ? bw / nom : kNaN);
          flush(trans, transport_chunk, false);
        }
        flush(ranks, rank_chunk, false);
      }
    }
    buckets_[g] = Bucket{};
  }
  flush(ranks, rank_chunk, true);
  flush(trans, transport_chunk, true);
  held_.clear();
  spill_.reset();
  spill_file_.reset();
  io::Table& rt = digest.rank_totals;
  io::Column& t_rank = rt.add_int("rank");
  io::Column& t_transit = rt.add_double("transit_ms", "ms");
  io::Column& t_wait = rt.add_double("wait_ms", "ms");
  io::Column& t_sync = rt.add_double("sync_ms", "ms");
  for (const auto& [rank, t] : totals) {
    t_rank.ints.push_back(rank);
    t_transit.doubles.push_back(t.transit);
    t_wait.doubles.push_back(t.wait);
    t_sync.doubles.push_back(t.sync);
  }
  return digest;
}

}  // namespace cs::analysis
