#include "generator/db_export/write_p2p_notify.h"

#include "generator/db_export/profiler_db_schema.h"

namespace cs::generator {

void write_p2p_notify_tasks(NotifyTaskSink& sink, const CommRecord& c, const NotifyOp& op) {
  if (!is_p2p(c.kind) || c.links.empty()) return;
  const bool send = c.kind == CommKind::kSend;
  // The op's one link goes sender -> receiver; each side names itself first.
  const LinkTransfer& l = c.links.front();
  const int self = send ? l.src_local : l.dst_local;
  const int peer = send ? l.dst_local : l.src_local;
  struct Span {
    const char* type;
    const char* device_type;
    int64_t start, end;
  };
  const Span spans[2] = {
      send ? Span{"Notify_Wait", "NOTIFY_WAIT_SQE", op.start_ns, op.transfer_start_ns}
           : Span{"Notify_Record", "EVENT_RECORD_SQE", op.start_ns, op.start_ns},
      send ? Span{"Notify_Record", "EVENT_RECORD_SQE", op.end_ns, op.end_ns}
           : Span{"Notify_Wait", "NOTIFY_WAIT_SQE", op.start_ns, op.end_ns}};
  for (const Span& s : spans) {
    const int64_t gid = sink.next_global_task++;
    sink.task.row({s.start, s.end, op.device, op.connection_id, gid, op.pid,
                   sink.ids.id(s.device_type), kNoValue, op.stream, sink.next_task_id++, kNoValue,
                   0});
    sink.comm_task.row({op.name_id, gid, sink.ids.id(s.type), 0, op.group_id, 1, kRdmaInvalid, self,
                        peer, kTransportSdma, 0, kDataTypeBf16, kLinkHccs, op.op_id});
  }
}

}  // namespace cs::generator
