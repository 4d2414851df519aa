// Harness: io/input_kind, the classifier of `compare`, `top` and `merge`. The first byte picks a
// file name (the classifier looks at names too); the rest is the file's head, classified in memory
// (classify_head) and as a file (classify_input: sniff, gzip, SQLite header).
#include <array>

#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "io/input_kind.h"

namespace cs::fuzz {

int input_kind(const uint8_t* data, size_t size) {
  static const std::array<const char*, 8> kNames = {
      "trace.json",  "worker0.pt.trace.json.gz",     "trace_view.json", "kernel_details.csv",
      "analysis.db", "ascend_pytorch_profiler_3.db", "merged.json",     "notes.txt"};
  if (size == 0) return 0;
  const char* name = kNames[data[0] % kNames.size()];
  std::string_view head(reinterpret_cast<const char*>(data + 1), size - 1);
  (void)io::classify_head(name, head);
  (void)io::classify_input(write_temp_input(name, data + 1, size - 1));
  return 0;
}

}  // namespace cs::fuzz
