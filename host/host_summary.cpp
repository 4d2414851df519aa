// summarize, merge_ops and the summary's lossless packing (see host_summary.h).

#include "host/host_summary.h"

#include <algorithm>
#include <map>

#include "host/free_breakdown.h"
#include "host/host_ops.h"

namespace cs::host {

HostSummary summarize(const HostInput& in) {
  HostSummary s;
  s.has_timeline = true;
  s.ops = operator_stats(in);
  s.steps = free_breakdown(in);
  return s;
}

void merge_ops(std::vector<OpStats>& into, const std::vector<OpStats>& from) {
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < into.size(); ++i) at[into[i].name] = i;
  for (const OpStats& f : from) {
    auto it = at.find(f.name);
    if (it == at.end()) {
      at[f.name] = into.size();
      into.push_back(f);
      continue;
    }
    OpStats& t = into[it->second];
    t.calls += f.calls;
    t.host_self_us += f.host_self_us;
    t.host_total_us += f.host_total_us;
    t.device_self_us += f.device_self_us;
    if (f.launches > 0)
      t.delay_max_us = t.launches > 0 ? std::max(t.delay_max_us, f.delay_max_us) : f.delay_max_us;
    t.launches += f.launches;
    t.delay_sum_us += f.delay_sum_us;
    for (size_t b = 0; b < kDelayBuckets; ++b) t.delay_hist[b] += f.delay_hist[b];
    t.ranks += f.ranks;
  }
  std::sort(into.begin(), into.end(),
            [](const OpStats& a, const OpStats& b) { return a.name < b.name; });
}

void pack_summary(const HostSummary& s, io::ByteWriter& w) {
  w.put<uint8_t>(s.has_timeline ? 1 : 0);
  w.put<uint64_t>(s.ops.size());
  for (const OpStats& o : s.ops) {
    w.str(o.name);
    w.put(o.calls);
    w.put(o.host_self_us);
    w.put(o.host_total_us);
    w.put(o.device_self_us);
    w.put(o.launches);
    w.put(o.delay_sum_us);
    w.put(o.delay_max_us);
    w.put(o.delay_hist);
    w.put(o.ranks);
  }
  w.put<uint64_t>(s.steps.size());
  for (const StepFree& f : s.steps) {
    w.put(f.step);
    w.put(f.free_us);
    w.put(f.step_us);
    w.put(f.cause_us);
    w.put(f.unattributed_us);
    w.put(f.data_host_us);
  }
  w.put(s.queue_batches);
  w.put(s.queue_empty);
}

HostSummary unpack_summary(io::ByteReader& r) {
  HostSummary s;
  s.has_timeline = r.get<uint8_t>() != 0;
  const auto nops = r.get<uint64_t>();
  s.ops.reserve(nops);
  for (uint64_t i = 0; i < nops; ++i) {
    OpStats o;
    o.name = r.str();
    o.calls = r.get<int64_t>();
    o.host_self_us = r.get<double>();
    o.host_total_us = r.get<double>();
    o.device_self_us = r.get<double>();
    o.launches = r.get<int64_t>();
    o.delay_sum_us = r.get<double>();
    o.delay_max_us = r.get<double>();
    o.delay_hist = r.get<decltype(o.delay_hist)>();
    o.ranks = r.get<int64_t>();
    s.ops.push_back(std::move(o));
  }
  const auto nsteps = r.get<uint64_t>();
  for (uint64_t i = 0; i < nsteps; ++i) {
    StepFree f;
    f.step = r.get<int64_t>();
    f.free_us = r.get<double>();
    f.step_us = r.get<double>();
    f.cause_us = r.get<decltype(f.cause_us)>();
    f.unattributed_us = r.get<double>();
    f.data_host_us = r.get<double>();
    s.steps.push_back(f);
  }
  s.queue_batches = r.get<int64_t>();
  s.queue_empty = r.get<int64_t>();
  return s;
}

}  // namespace cs::host
