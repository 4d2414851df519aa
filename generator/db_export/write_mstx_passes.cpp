#include "generator/db_export/write_mstx_passes.h"

#include <algorithm>
#include <string>

#include "generator/db_export/profiler_db_schema.h"

namespace cs::generator {

namespace {

constexpr int kComputeStream = 2;           // the stream write_profiler_db.cpp runs kernels on
constexpr int64_t kFirstRangeId = 1000000;  // after the step and annotation ranges

// One range: MSTX_EVENTS on the host (lead_us ahead) tied to a TASK spanning [start_us, end_us].
void write_range(MstxPassSink& sink, int64_t& range, int64_t msg, int64_t type, double start_us,
                 double end_us) {
  const int64_t conn = sink.next_connection++;
  sink.mstx.row({sink.ns(start_us - sink.lead_us), sink.ns(end_us - sink.lead_us), kMstxStartEnd,
                 range++, kNoValue, msg, sink.global_tid, sink.global_tid, 65535, conn, 0});
  sink.task.row({sink.ns(start_us), sink.ns(end_us), sink.device, conn, sink.next_global_task++,
                 sink.pid, type, kNoValue, kComputeStream, sink.next_task_id++, kNoValue, 0});
}

// The share of a step's compute a DualPipeV block takes.
int block_work(const pipeline::ScheduleBlock& b) {
  const std::string msg = pipeline::block_message(b);
  return msg == "forward_backward_step" ? 3 : b.name.back() == 'B' ? 2 : 1;
}

// Per step, the schedule's blocks over consecutive runs of the step's pass kernels.
void write_schedule(MstxPassSink& sink, const RankTimeline& tl, int64_t& range, int64_t type) {
  const auto& blocks = *sink.blocks;
  if (blocks.empty()) return;
  int total_work = 0;
  for (const auto& b : blocks) total_work += block_work(b);
  for (size_t s = 0; s < tl.steps.size(); ++s) {
    double first = 0, last = 0;
    bool any = false;
    for (const PassSpan& p : tl.passes)
      if (p.step == s) {
        first = any ? std::min(first, p.start_us) : p.start_us;
        last = any ? std::max(last, p.end_us) : p.end_us;
        any = true;
      }
    if (!any) continue;
    std::vector<const KernelEvent*> ks;
    for (const KernelEvent& k : tl.kernels)
      if (k.step == s && k.start_us >= first && k.start_us + k.dur_us <= last) ks.push_back(&k);
    const size_t n = ks.size(), m = std::min(blocks.size(), n);
    size_t begin = 0;
    int work = 0;
    for (size_t b = 0; b < m; ++b) {
      work += block_work(blocks[b]);
      // Kernels up to this block's share of the work, leaving one for each later block.
      size_t end = n * static_cast<size_t>(work) / static_cast<size_t>(total_work);
      end = std::clamp(end, begin + 1, n - (m - b - 1));
      if (b + 1 == m) end = n;
      write_range(sink, range, sink.ids.id(pipeline::block_message(blocks[b])), type,
                  ks[begin]->start_us, ks[end - 1]->start_us + ks[end - 1]->dur_us);
      begin = end;
    }
  }
}

}  // namespace

void write_mstx_passes(MstxPassSink& sink, const RankTimeline& tl) {
  int64_t range = kFirstRangeId;
  if (sink.blocks) {
    write_schedule(sink, tl, range, sink.ids.id("MSTX_RANGE"));
    return;
  }
  const int64_t fwd = sink.ids.id("forward_step"), bwd = sink.ids.id("backward_step");
  const int64_t type = sink.ids.id("MSTX_RANGE");
  for (const PassSpan& p : tl.passes)
    write_range(sink, range, p.forward ? fwd : bwd, type, p.start_us, p.end_us);
}

}  // namespace cs::generator
