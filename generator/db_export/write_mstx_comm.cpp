#include "generator/db_export/write_mstx_comm.h"

#include "generator/db_export/profiler_db_schema.h"

namespace cs::generator {

void write_mstx_comm_op(MstxCommSink& sink, const MstxCommOp& op, int stream) {
  const std::string msg = std::string("{\"opName\":\"") + op.op_name + "\",\"groupName\":\"" +
                          op.group +
                          "\",\"dataType\":\"bfp16\",\"count\":" + std::to_string(op.count) +
                          ",\"streamId\":" + std::to_string(kMstxCommStream) + "}";
  const int64_t conn = sink.next_connection++;
  sink.mstx.row({op.host_start_ns, op.host_end_ns, kMstxStartEnd, sink.next_range++, kNoValue,
                 sink.ids.id(msg), sink.global_tid, sink.global_tid, 65535, conn, 0});
  sink.task.row({op.start_ns, op.end_ns, sink.device, conn, sink.next_global_task++, sink.pid,
                 sink.ids.id("MSTX_RANGE"), kNoValue, stream, sink.next_task_id++, kNoValue, 0});
}

}  // namespace cs::generator
