// step_trace_time.csv of one rank, computed from the simulated intervals (docs/formats.md §4).
#include <algorithm>
#include <utility>
#include <vector>

#include "generator/job/intervals.h"
#include "generator/job/writers.h"

namespace cs::generator {

namespace {

double length(const std::vector<Interval>& v) {
  double s = 0;
  for (const auto& i : v) s += i.second - i.first;
  return s;
}

// Total length of the intersection of two merged interval lists.
double overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double s = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    double lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) s += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return s;
}

}  // namespace

std::string render_step_trace_csv(const WriteContext& /*ctx*/, int rank, const RankTimeline& tl) {
  std::string out =
      "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
      "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n";
  const int steps = static_cast<int>(tl.steps.size());
  std::vector<std::vector<Interval>> compute(static_cast<size_t>(steps)),
      comm(static_cast<size_t>(steps));
  std::vector<double> bubble(static_cast<size_t>(steps), 0.0);
  for (const auto& k : tl.kernels)
    compute[k.step].push_back({k.start_us, k.start_us + static_cast<double>(k.dur_us)});
  for (const auto& c : tl.comms) {
    comm[static_cast<size_t>(c.step)].push_back({c.start_us, c.end_us});
    if (c.kind == CommKind::kReceive) bubble[static_cast<size_t>(c.step)] += c.end_us - c.start_us;
  }
  for (int s = 0; s < steps; ++s) {
    auto cp = merged(std::move(compute[static_cast<size_t>(s)]));
    auto cm = merged(std::move(comm[static_cast<size_t>(s)]));
    const StepSpan& span = tl.steps[static_cast<size_t>(s)];
    double first = span.end_us;
    if (!cp.empty()) first = std::min(first, cp.front().first);
    if (!cm.empty()) first = std::min(first, cm.front().first);
    double computing = length(cp), communication = length(cm);
    double overlapped = overlap(cp, cm);
    double not_overlapped = communication - overlapped;
    double e2e = span.end_us - span.start_us;
    double b = bubble[static_cast<size_t>(s)];
    double values[] = {computing,
                       not_overlapped,
                       overlapped,
                       communication,
                       e2e - computing - not_overlapped,
                       e2e - b,
                       b,
                       not_overlapped - b,
                       first - span.start_us};
    out += std::to_string(rank % kDevicesPerNode);
    out += ',';
    out += std::to_string(s + 1);
    for (double v : values) {
      out += ',';
      append_num3(out, v);
    }
    out += '\n';
  }
  return out;
}

}  // namespace cs::generator
