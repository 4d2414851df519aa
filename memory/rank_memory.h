#pragma once
// One rank's memory, reduced to a small mergeable summary (what travels between MPI processes and
// what every cluster-wide memory table is computed from). Built in one streaming pass over the
// pool totals (memory_record.csv / MEMORY_RECORD + NPU_MEM) and one over the blocks
// (operator_memory.csv / OP_MEMORY) by RankMemoryBuilder; the rows themselves are never kept.
//
// As MindStudio Insight computes them: the operators' series is the component "PTA+GE" (else
// "MindSpore+GE", else "GE", else "PTA"); a peak is the maximum of a series; the application's
// reserved memory is the "APP" component (DB: NPU_MEM rows of type app, hbm + ddr).
// Every amount is in bytes (text exports' MB and KB converted exactly: x 1048576, x 1024).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_buffer.h"

namespace cs::memory {

// One profiler step's time range [start_ns, end_ns].
struct StepRange {
  int64_t step = -1;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// The operators' series within one step.
struct StepMemory {
  int64_t step = -1;
  int64_t peak_allocated = 0;  // bytes
  int64_t min_allocated = 0;   // the step's floor: what stays allocated across the step
  int64_t peak_reserved = 0;
  bool operator==(const StepMemory&) const = default;
};

// A block allocated before the peak and not released by then.
struct LiveBlock {
  std::string op;
  int64_t bytes = 0;
  int64_t alloc_ns = 0;
  bool operator==(const LiveBlock&) const = default;
};

// Bytes live at the peak, summed by the operator that allocated them.
struct HolderBytes {
  std::string op;
  int64_t bytes = 0;
  int64_t blocks = 0;
  bool operator==(const HolderBytes&) const = default;
};

// One operator's allocations on this rank.
struct OperatorAlloc {
  std::string op;
  int64_t calls = 0;
  int64_t bytes = 0;      // sum of block sizes
  int64_t max_block = 0;  // largest block
  bool operator==(const OperatorAlloc&) const = default;
};

// Peak reserved memory of one component (memory_record's PTA, GE, PTA+GE, APP: kind "pool") or
// CANN module (npu_module_mem.csv / NPU_MODULE_MEM: kind "module").
struct ComponentPeak {
  std::string kind;
  std::string name;
  int64_t peak_reserved = 0;
  bool operator==(const ComponentPeak&) const = default;
};

// One bucket of the downsampled curve of the operators' series: min and max keep every peak.
struct CurveBucket {
  int64_t start_ns = 0;
  int64_t min_allocated = 0;
  int64_t max_allocated = 0;
  int64_t max_reserved = 0;
  bool operator==(const CurveBucket&) const = default;
};

struct RankMemory {
  std::string series;  // the component the operators' figures come from ("PTA+GE", ...)
  int64_t peak_allocated = 0;
  int64_t peak_reserved = 0;
  int64_t peak_app_reserved = -1;  // -1: no APP component
  int64_t peak_time_ns = 0;        // when the allocated peak was first reached
  int64_t peak_step = -1;          // the step holding it; -1 when outside any known step
  int64_t reserved_at_peak = 0;    // reserved at that moment (reserved - allocated: fragmentation)
  std::string peak_operator;       // the operator whose allocation was the last before the peak
  int64_t capacity = -1;           // the device's memory (bytes) when the metadata says it
  std::vector<LiveBlock> live_at_peak;    // largest first, at most kLiveBlocks
  std::vector<HolderBytes> holders;       // largest first, at most kHolders
  int64_t live_bytes_at_peak = 0;         // every block live at the peak
  std::vector<StepMemory> steps;          // by step
  std::vector<OperatorAlloc> operators;   // by bytes, at most kOperators
  std::vector<ComponentPeak> components;  // pools, then modules, by name
  std::vector<CurveBucket> curve;         // by time, at most kCurveBuckets
  int64_t blocks = 0;                     // rows of operator_memory
  int64_t never_released = 0;             // blocks without a release time
  int64_t never_released_bytes = 0;
  int64_t records = 0;  // rows of the operators' series read
  // Graph mode (static_op_mem.csv): the static graphs' peak and total memory; -1 when absent.
  int64_t static_graph_peak = -1;
  int64_t static_graph_total = -1;

  static constexpr size_t kLiveBlocks = 10;
  static constexpr size_t kHolders = 5;
  static constexpr size_t kOperators = 64;
  static constexpr size_t kCurveBuckets = 256;

  bool operator==(const RankMemory&) const = default;

  // Lossless packing for MPI (unpack(pack(x)) == x).
  void pack(io::ByteWriter& w) const;
  static RankMemory unpack(io::ByteReader& r);
};

// Bytes -> MB (1 MB = 1048576 bytes, the producers' unit).
inline double to_mb(int64_t bytes) {
  return static_cast<double>(bytes) / 1048576.0;
}

}  // namespace cs::memory
