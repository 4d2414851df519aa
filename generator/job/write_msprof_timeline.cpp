// mindstudio_profiler_output/msprof_{timestamp}.json of one rank, as CANN msprof exports it (a
// top-level JSON array, `ts` strings with 3 decimals, `dur` numbers): process_name metadata for
// Ascend Hardware, HCCL and Overlap Analysis; over EVERY step the kernels, the hcom ops (once, on
// the HCCL communication thread) and the Overlap Analysis Computing / Communication /
// Communication(Not Overlapped) / Free spans of each step, from which msprof-analyze computes
// the rank's step trace (docs/formats.md §1b).
#include <string_view>
#include <vector>

#include "generator/job/intervals.h"
#include "generator/job/kernel_catalog.h"
#include "generator/job/trace_events.h"
#include "generator/job/writers.h"

namespace cs::generator {

std::string render_msprof_timeline_json(const WriteContext& ctx, int rank, const RankTimeline& tl) {
  if (tl.steps.empty()) return "[]\n";
  std::string text;
  text.reserve(tl.kernels.size() * 190 + tl.comms.size() * 150 + 4096);
  TraceEvents o{text, ctx.base_us, TraceEvents::kPhAfterTimes};
  const int64_t device = rank % kDevicesPerNode;
  const int64_t hw = 2000 + device, hccl = 3000 + device, overlap = 4000 + device;
  const int64_t stream = 2;
  o.meta(hw, 0, "process_name", "Ascend Hardware");
  o.meta(hw, stream, "thread_name", "Stream " + std::to_string(stream));
  o.meta(hccl, 0, "process_name", "HCCL");
  o.meta(hccl, 0, "thread_name", "Communication");
  o.meta(overlap, 0, "process_name", "Overlap Analysis");
  const char* lanes[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
  for (int i = 0; i < 4; ++i) o.meta(overlap, i, "thread_name", lanes[i]);

  const auto& cat = kernel_catalog();
  const size_t steps = tl.steps.size();
  std::vector<std::vector<Interval>> compute(steps), comm(steps);
  std::string args;
  for (size_t i = 0; i < tl.kernels.size(); ++i) {
    const KernelEvent& e = tl.kernels[i];
    const KernelSpec& k = cat[e.spec];
    args = "\"Task Type\": \"";
    args += core_name(k.core);
    args += "\", \"Stream Id\": 2, \"Task Id\": " + std::to_string(1000 + i % 60000);
    o.x(k.name, hw, stream, e.start_us, e.dur_us, "", args);
    compute[e.step].push_back({e.start_us, e.start_us + static_cast<double>(e.dur_us)});
  }
  for (const CommRecord& c : tl.comms) {
    o.x(comm_op_name(ctx.topo, c), hccl, 0, c.start_us, c.end_us - c.start_us, "",
        "\"connection_id\": " + std::to_string(c.seq));
    comm[static_cast<size_t>(c.step)].push_back({c.start_us, c.end_us});
  }
  for (size_t s = 0; s < steps; ++s) {
    const StepSpan& span = tl.steps[s];
    const auto cp = merged(std::move(compute[s])), cm = merged(std::move(comm[s]));
    const auto not_overlapped = minus(cm, cp);
    std::vector<Interval> busy = cp;
    busy.insert(busy.end(), cm.begin(), cm.end());
    const auto free = minus({{span.start_us, span.end_us}}, merged(std::move(busy)));
    const std::vector<Interval>* spans[] = {&cp, &cm, &not_overlapped, &free};
    for (int lane = 0; lane < 4; ++lane)
      for (const auto& [lo, hi] : *spans[lane])
        o.x(lanes[lane], overlap, lane, lo, hi - lo, "", "");
  }
  text += "\n]\n";
  return text;
}

}  // namespace cs::generator
