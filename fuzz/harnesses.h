#pragma once
// libFuzzer harnesses for every reader of profiler output (see docs/fuzzing.md).
//
// Each harness feeds one input, as bytes, to the real reader API the product uses and returns 0
// (libFuzzer's convention). A harness never prints: the readers report through Diagnostics, which
// the harness drops. The same functions are linked into the libFuzzer binaries (fuzz/entry,
// clang, -DCS_BUILD_FUZZ=ON) and into the regression test tests/fuzz/replay.cpp (any compiler),
// which replays the seeds and every crasher kept under tests/data/fuzz/<name>/.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace cs::fuzz {

using HarnessFn = int (*)(const uint8_t* data, size_t size);

struct Harness {
  const char* name;  // also the corpus folder: tests/data/fuzz/<name>/
  HarnessFn fn;
  size_t max_len;  // libFuzzer -max_len: inputs longer than this teach nothing new
};

// Every harness, in a fixed order.
const std::vector<Harness>& harnesses();
// The harness of this name, nullptr when there is none.
const Harness* find_harness(std::string_view name);

// communication.json (read_communication_json).
int communication(const uint8_t* data, size_t size);
// communication_matrix.json (read_communication_matrix_json).
int communication_matrix(const uint8_t* data, size_t size);
// step_trace_time.csv (read_step_trace_csv).
int step_trace(const uint8_t* data, size_t size);
// kernel_details.csv and op_statistic.csv (the first byte picks which).
int kernel_details(const uint8_t* data, size_t size);
// The memory files (read_memory_text; first byte even) or a profiler database's memory tables
// (read_memory_db; odd).
int memory(const uint8_t* data, size_t size);
// profiler_info_N.json and profiler_metadata.json (the first byte picks which).
int profiler_info(const uint8_t* data, size_t size);
// Kineto trace, object or array form, gzip when the bytes are gzip (read_kineto_trace).
int kineto_trace(const uint8_t* data, size_t size);
// NPU trace_view.json (read_trace_view) and the NPU classification over its events.
int trace_view(const uint8_t* data, size_t size);
// analysis.db (StepTraceTime, CommAnalyzerTime/Bandwidth, CommAnalyzerMatrix).
int analysis_db(const uint8_t* data, size_t size);
// ascend_pytorch_profiler_N.db (STRING_IDS, kernels, STEP_TIME, META_DATA, RANK_DEVICE_MAP).
int profiler_db(const uint8_t* data, size_t size);
// MegEngine's static-graph profile / chrome_timeline.json (the first byte picks which).
int megengine(const uint8_t* data, size_t size);
// io/input_kind: classify_head on a name picked by the first byte, and classify_input on a file.
int input_kind(const uint8_t* data, size_t size);
// io/sqlite: an existing database file's header and schema page read, and a table appended.
int sqlite_appender(const uint8_t* data, size_t size);

}  // namespace cs::fuzz
