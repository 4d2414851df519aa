// Harness: a Kineto trace (object with traceEvents, or Chrome's JSON Array Format; gzip when the
// bytes start with the gzip magic), through read_kineto_trace, then what `top` and `compare` ask
// of every trace first (its content summary).
#include "readers/kineto_trace.h"
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "readers/trace_content.h"

namespace cs::fuzz {

int kineto_trace(const uint8_t* data, size_t size) {
  const std::string& path = write_temp_input("rank-0.pt.trace.json", data, size);
  readers::Trace trace;
  io::Diagnostics diag;
  if (readers::read_kineto_trace(path, trace, diag)) (void)readers::trace_content(trace);
  return 0;
}

}  // namespace cs::fuzz
