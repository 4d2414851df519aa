#include "generator/db_export/write_mstx_passes.h"

#include "generator/db_export/profiler_db_schema.h"

namespace cs::generator {

namespace {

constexpr int kComputeStream = 2;           // the stream write_profiler_db.cpp runs kernels on
constexpr int64_t kFirstRangeId = 1000000;  // after the step and annotation ranges

}  // namespace

void write_mstx_passes(MstxPassSink& sink, const RankTimeline& tl) {
  const int64_t fwd = sink.ids.id("forward_step"), bwd = sink.ids.id("backward_step");
  const int64_t type = sink.ids.id("MSTX_RANGE");
  int64_t range = kFirstRangeId;
  for (const PassSpan& p : tl.passes) {
    const int64_t conn = sink.next_connection++;
    const int64_t start = sink.ns(p.start_us), end = sink.ns(p.end_us);
    sink.mstx.row({sink.ns(p.start_us - sink.lead_us), sink.ns(p.end_us - sink.lead_us),
                   kMstxStartEnd, range++, kNoValue, p.forward ? fwd : bwd, sink.global_tid,
                   sink.global_tid, 65535, conn, 0});
    sink.task.row({start, end, sink.device, conn, sink.next_global_task++, sink.pid, type, kNoValue,
                   kComputeStream, sink.next_task_id++, kNoValue, 0});
  }
}

}  // namespace cs::generator
