// operator_stats: operators nested per thread, device tasks attributed to their launcher.

#include "host/host_ops.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

namespace cs::host {

namespace {

// The operators of one thread in start order (longer first on a tie: the parent), with the
// index of each one's parent and the sum of its children's durations.
struct ThreadOps {
  std::vector<size_t> order;  // indices into HostInput::ops
  std::vector<int64_t> starts;
  std::vector<int64_t> parent;  // position in `order`, -1 at the top
  std::vector<double> child_us;
};

std::map<int64_t, ThreadOps> nest(const HostInput& in) {
  std::map<int64_t, ThreadOps> threads;
  for (size_t i = 0; i < in.ops.size(); ++i) threads[in.ops[i].tid].order.push_back(i);
  for (auto& [tid, t] : threads) {
    std::stable_sort(t.order.begin(), t.order.end(), [&](size_t a, size_t b) {
      const HostOp& x = in.ops[a];
      const HostOp& y = in.ops[b];
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      return x.end_ns > y.end_ns;
    });
    const size_t n = t.order.size();
    t.starts.resize(n);
    t.parent.assign(n, -1);
    t.child_us.assign(n, 0);
    std::vector<size_t> stack;
    for (size_t k = 0; k < n; ++k) {
      const HostOp& op = in.ops[t.order[k]];
      t.starts[k] = op.start_ns;
      while (!stack.empty() && op.start_ns >= in.ops[t.order[stack.back()]].end_ns)
        stack.pop_back();
      if (!stack.empty()) {
        t.parent[k] = static_cast<int64_t>(stack.back());
        t.child_us[stack.back()] += op.dur_us;
      }
      stack.push_back(k);
    }
  }
  return threads;
}

// Position in `t.order` of the innermost operator enclosing `ns` (start <= ns <= end), or -1.
int64_t innermost(const HostInput& in, const ThreadOps& t, int64_t ns) {
  auto it = std::upper_bound(t.starts.begin(), t.starts.end(), ns);
  int64_t k = static_cast<int64_t>(it - t.starts.begin()) - 1;
  while (k >= 0 && in.ops[t.order[static_cast<size_t>(k)]].end_ns < ns)
    k = t.parent[static_cast<size_t>(k)];
  return k;
}

size_t bucket_of(double us) {
  size_t b = 0;
  while (b < kDelayBucketsUs.size() && us >= kDelayBucketsUs[b]) ++b;
  return b;
}

}  // namespace

std::vector<OpStats> operator_stats(const HostInput& in) {
  const auto threads = nest(in);
  std::vector<OpStats> by_name(in.names.size());
  std::vector<bool> seen(in.names.size(), false);
  for (const auto& [tid, t] : threads) {
    for (size_t k = 0; k < t.order.size(); ++k) {
      const HostOp& op = in.ops[t.order[k]];
      OpStats& s = by_name[op.name];
      seen[op.name] = true;
      s.calls += 1;
      s.host_total_us += op.dur_us;
      s.host_self_us += op.dur_us - t.child_us[k];
    }
  }
  for (const DeviceLaunch& l : in.launches) {
    const HostOp* op = nullptr;
    if (l.op >= 0 && static_cast<size_t>(l.op) < in.ops.size()) {
      op = &in.ops[static_cast<size_t>(l.op)];
    } else if (auto th = threads.find(l.tid); th != threads.end()) {
      const int64_t k = innermost(in, th->second, l.issue_ns);
      if (k >= 0) op = &in.ops[th->second.order[static_cast<size_t>(k)]];
    }
    if (op == nullptr) continue;
    OpStats& s = by_name[op->name];
    s.device_self_us += l.device_us;
    s.launches += 1;
    // A task cannot start before its launch: a negative delay is the host and device clocks'
    // offset (seen in real traces, tens of µs) and counts as none.
    const double delay =
        std::max(0.0, static_cast<double>(l.device_start_ns - l.launch_ns) / 1000.0);
    s.delay_sum_us += delay;
    s.delay_max_us = s.launches == 1 ? delay : std::max(s.delay_max_us, delay);
    s.delay_hist[bucket_of(delay)] += 1;
  }
  std::vector<OpStats> out;
  for (size_t i = 0; i < by_name.size(); ++i) {
    if (!seen[i]) continue;
    by_name[i].name = in.names[i];
    out.push_back(std::move(by_name[i]));
  }
  std::sort(out.begin(), out.end(),
            [](const OpStats& a, const OpStats& b) { return a.name < b.name; });
  return out;
}

}  // namespace cs::host
