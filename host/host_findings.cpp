// host_findings: host-bound jobs and ranks, data-loading and compile stalls (host_findings.h).

#include "host/host_findings.h"

#include <algorithm>
#include <cstdio>

#include "host/data_queue.h"

namespace cs::host {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size() && i < 8; ++i)
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > 8) s += " and " + std::to_string(ranks.size() - 8) + " more";
  return s;
}

// "Data loading stalls the devices 12.3 ms per step (every rank)" or per rank.
void stall_line(const std::vector<RankHostMeans>& means, double RankHostMeans::*field,
                const char* what, const HostFindingOptions& opts, std::vector<std::string>& out) {
  std::vector<int> ranks;
  std::vector<double> ms;
  for (const auto& m : means)
    if (m.*field >= opts.stall_ms) ranks.push_back(m.rank), ms.push_back(m.*field);
  if (ranks.empty()) return;
  if (ranks.size() == means.size() && means.size() > 1) {
    out.push_back(std::string(what) + " stalls the devices " + fmt("%.1f", median(ms)) +
                  " ms per step (median over every rank).");
  } else {
    std::string s = std::string(what) + " stalls the device";
    for (size_t i = 0; i < ranks.size() && i < 8; ++i)
      s += (i ? ", " : " ") + fmt("%.1f", ms[i]) + " ms per step on rank " +
           std::to_string(ranks[i]);
    if (ranks.size() > 8) s += " and on " + std::to_string(ranks.size() - 8) + " more rank(s)";
    out.push_back(s + ".");
  }
}

// MindSpore's device queue of the ranks that have one, gathered during the walk.
struct DataQueues {
  std::vector<int> empty;  // ranks whose queue was empty in more than kEmptyQueueShare
  std::vector<double> shares;
  int with_queue = 0;

  void add(int rank, const HostSummary& s) {
    if (s.queue_batches <= 0) return;
    ++with_queue;
    const double share = static_cast<double>(s.queue_empty) / static_cast<double>(s.queue_batches);
    if (share > kEmptyQueueShare) empty.push_back(rank), shares.push_back(share);
  }
};

// MindInsight's rule on MindSpore's device queue (host/data_queue.h): the ranks whose queue was
// empty in more than kEmptyQueueShare of their batches; "" when none.
std::string data_queue_line(const DataQueues& q) {
  const std::vector<int>& empty = q.empty;
  const std::vector<double>& shares = q.shares;
  const int with_queue = q.with_queue;
  if (empty.empty()) return {};
  const std::string where = static_cast<int>(empty.size()) == with_queue && with_queue > 1
                                ? "on every rank"
                                : "on rank(s) " + rank_list(empty);
  return "The data pipeline is the bottleneck " + where + ": the device queue was empty in " +
         fmt("%.0f%%", median(shares) * 100) +
         " of the steps (median; MindInsight's rule: above 30%).";
}

}  // namespace

RankHostMeans rank_means(int rank, const HostSummary& s) {
  RankHostMeans m;
  m.rank = rank;
  for (const StepFree& f : s.steps) {
    if (f.step_us <= 0) continue;
    ++m.steps;
    m.step_ms += f.step_us / 1000;
    m.free_ms += f.free_us / 1000;
    m.dispatch_ms += f.cause_us[static_cast<size_t>(Cause::kDispatch)] / 1000;
    m.data_ms += f.cause_us[static_cast<size_t>(Cause::kData)] / 1000;
    m.compile_ms += f.cause_us[static_cast<size_t>(Cause::kCompile)] / 1000;
    m.data_host_ms += f.data_host_us / 1000;
  }
  if (m.steps > 0)
    for (double* v :
         {&m.step_ms, &m.free_ms, &m.dispatch_ms, &m.data_ms, &m.compile_ms, &m.data_host_ms})
      *v /= m.steps;
  return m;
}

HostFindings host_findings(const std::vector<RankSummary>& ranks, const HostFindingOptions& opts) {
  return host_findings(walk_of(ranks), opts);
}

HostFindings host_findings(const SummaryWalk& ranks, const HostFindingOptions& opts) {
  HostFindings out;
  std::vector<RankHostMeans> means;
  DataQueues queues;
  ranks([&](int rank, const HostSummary& s) {
    queues.add(rank, s);
    if (!s.has_timeline) {
      ++out.ranks_without_timeline;
      return;
    }
    RankHostMeans m = rank_means(rank, s);
    if (m.steps > 0) means.push_back(m);
  });
  // The ranks `means` holds, walked again for their operators only if the job is host-bound.
  const SummaryWalk timed = [&ranks](const SummaryVisit& visit) {
    ranks([&](int rank, const HostSummary& s) {
      if (s.has_timeline && rank_means(rank, s).steps > 0) visit(rank, s);
    });
  };
  const std::string queue = data_queue_line(queues);
  if (means.empty()) {
    if (!queue.empty()) out.lines.push_back(queue);
    return out;
  }
  std::vector<double> shares;
  for (const auto& m : means) shares.push_back(m.dispatch_share());
  // The job: the median rank at the bar and none below half of it (pipeline stages idle for
  // other reasons at their ends).
  const bool all_bound = median(shares) >= opts.host_bound_share &&
                         std::all_of(means.begin(), means.end(), [&](const RankHostMeans& m) {
                           return m.dispatch_share() >= 0.5 * opts.host_bound_share;
                         });
  if (all_bound) {
    out.job_host_bound = true;
    const io::Table ops = host_ops_table(timed);
    std::string names;
    const auto& name = ops.columns[0].strings;
    const auto* self = ops.find("host_self_us");
    const auto* launches = ops.find("launches");
    double steps = 0;
    for (const auto& m : means) steps += m.steps;
    size_t named = 0;
    for (size_t i = 0; i < name.size() && named < opts.top_ops; ++i) {
      if (launches->ints[i] == 0) continue;  // the operators that dispatch device work
      names += (named++ ? ", " : "") + name[i] + " (" +
               fmt("%.2f", self->doubles[i] / 1000 / steps) + " ms per rank-step)";
    }
    out.lines.push_back(
        "The job is host-bound: the devices are idle " + fmt("%.0f%%", median(shares) * 100) +
        " of each step waiting for dispatch (median over " + std::to_string(means.size()) +
        " rank(s)); the host-heaviest operators are " + names + ".");
  } else {
    const double med = median(shares);
    std::vector<int> bound;
    for (const auto& m : means)
      if (m.dispatch_share() >= opts.host_bound_share &&
          m.dispatch_share() >= opts.outlier_ratio * med) {
        out.host_bound_ranks.push_back(m);
        bound.push_back(m.rank);
      }
    if (!bound.empty())
      out.lines.push_back("Host-bound rank(s) " + rank_list(bound) +
                          ": their devices wait for dispatch far longer than the job's median " +
                          fmt("%.0f%%", med * 100) + " of a step (see slow_ranks.csv).");
  }
  stall_line(means, &RankHostMeans::data_ms, "Data loading", opts, out.lines);
  stall_line(means, &RankHostMeans::compile_ms, "Run-time compilation (aclopCompileAndExecute)",
             opts, out.lines);
  if (!queue.empty()) out.lines.push_back(queue);
  return out;
}

}  // namespace cs::host
