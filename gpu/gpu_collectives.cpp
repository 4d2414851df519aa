#include "gpu/gpu_collectives.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace cs::gpu {

double busbw_factor(const std::string& type, int64_t n) {
  if (n <= 0) return 1.0;
  const double d = static_cast<double>(n);
  if (type == "allreduce") return 2.0 * (d - 1) / d;
  if (type == "allgather" || type == "reducescatter" || type == "alltoall") return (d - 1) / d;
  return 1.0;
}

namespace {

struct Member {
  int rank;
  const GpuCollective* c;
};

}  // namespace

std::vector<CollectiveInstance> match_collectives(const std::vector<GpuRankSummary>& ranks) {
  std::map<std::pair<std::string, int64_t>, std::vector<Member>> by_key;
  for (const auto& r : ranks)
    for (const auto& c : r.collectives) by_key[{c.group, c.seq}].push_back({r.rank, &c});
  std::vector<CollectiveInstance> out;
  out.reserve(by_key.size());
  for (auto& [key, members] : by_key) {
    CollectiveInstance in;
    in.group = key.first;
    in.seq = key.second;
    const GpuCollective& first = *members.front().c;
    in.type = first.type;
    in.step = first.step;
    in.group_ranks = first.group_ranks;
    in.ranks = static_cast<int>(members.size());
    in.latency_ns = INT64_MAX;
    int64_t first_start = INT64_MAX, last_start = INT64_MIN, second_start = INT64_MIN;
    int64_t first_end = INT64_MAX, last_end = INT64_MIN;
    for (const auto& m : members) {
      const GpuCollective& c = *m.c;
      in.members.push_back(m.rank);
      in.group_size = std::max(in.group_size, c.group_size);
      in.bytes = std::max(in.bytes, c.bytes);
      in.latency_ns = std::min(in.latency_ns, c.dur_ns);
      in.max_dur_ns = std::max(in.max_dur_ns, c.dur_ns);
      first_start = std::min(first_start, c.start_ns);
      if (c.start_ns > last_start) {
        second_start = last_start;
        last_start = c.start_ns;
        in.last_rank = m.rank;
      } else {
        second_start = std::max(second_start, c.start_ns);
      }
      first_end = std::min(first_end, c.start_ns + c.dur_ns);
      last_end = std::max(last_end, c.start_ns + c.dur_ns);
    }
    std::sort(in.members.begin(), in.members.end());
    if (in.group_size <= 0) in.group_size = in.ranks;
    in.start_skew_ns = last_start - first_start;
    in.end_skew_ns = last_end - first_end;
    if (in.ranks >= 2) {
      in.blame_ns = last_start - second_start;
    } else {
      in.last_rank = -1;
    }
    if (in.bytes >= 0 && in.latency_ns > 0) {
      in.algbw_gbps = static_cast<double>(in.bytes) / static_cast<double>(in.latency_ns);
      in.busbw_gbps = in.algbw_gbps * busbw_factor(in.type, in.group_size);
    }
    out.push_back(std::move(in));
  }
  return out;
}

std::vector<RankWait> rank_waits(const std::vector<GpuRankSummary>& ranks,
                                 const std::vector<CollectiveInstance>& inst) {
  std::map<std::pair<std::string, int64_t>, const CollectiveInstance*> index;
  std::map<std::pair<std::string, int64_t>, int64_t> last_start;
  for (const auto& in : inst) index[{in.group, in.seq}] = &in;
  for (const auto& r : ranks)
    for (const auto& c : r.collectives) {
      auto& ls = last_start.try_emplace({c.group, c.seq}, INT64_MIN).first->second;
      ls = std::max(ls, c.start_ns);
    }
  std::vector<RankWait> out;
  for (const auto& r : ranks) {
    RankWait w;
    w.rank = r.rank;
    for (const auto& c : r.collectives) {
      ++w.collectives;
      const int64_t ls = last_start[{c.group, c.seq}];
      w.wait_ns += ls - c.start_ns;
      w.transit_ns += std::max<int64_t>(0, c.start_ns + c.dur_ns - ls);
      const CollectiveInstance* in = index[{c.group, c.seq}];
      if (in->ranks >= 2) {
        ++w.matched;
        if (in->last_rank == r.rank) {
          ++w.last_arrivals;
          w.blame_ns += in->blame_ns;
        }
      }
    }
    out.push_back(w);
  }
  return out;
}

}  // namespace cs::gpu
