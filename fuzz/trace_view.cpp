// Harness: an NPU trace_view.json (gzip when the bytes are), through read_trace_view, then the
// NPU classification `top` and `compare` run over its events.
#include "readers/trace_view.h"
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "readers/trace_content.h"

namespace cs::fuzz {

int trace_view(const uint8_t* data, size_t size) {
  const std::string& path = write_temp_input("trace_view.json", data, size);
  readers::Trace trace;
  io::Diagnostics diag;
  if (!readers::read_trace_view(path, trace, diag)) return 0;
  (void)readers::trace_content(trace);
  (void)readers::npu_communication_streams(trace);
  const bool hccl = readers::has_hccl_process_ops(trace);
  for (const auto& e : trace.events) {
    (void)readers::is_npu_comm_op(trace, e, hccl);
    if (e.task_type != io::kNoString)
      (void)readers::npu_task_class(trace.strings.str(e.task_type), trace.strings.str(e.name));
  }
  return 0;
}

}  // namespace cs::fuzz
