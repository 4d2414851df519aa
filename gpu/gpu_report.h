#pragma once
// report.html for a GPU job (docs/gpu_cluster.md): a self-contained page drawn from the tables
// `cluster` writes for a directory of Kineto traces, with the report library's frame, charts and
// script (sortable, searchable tables; no network).

#include <string>

#include "io/diagnostics.h"
#include "io/table.h"

namespace cs::gpu {

// The tables the page reads; any may be null (its section then says it was not computed).
struct GpuReportInput {
  std::string input_path;
  const io::Table* step_trace = nullptr;
  const io::Table* collective_groups = nullptr;
  const io::Table* rank_waits = nullptr;
  const io::Table* kernels_topn = nullptr;
  const io::Table* slow_ranks = nullptr;
  const io::Table* slow_groups = nullptr;
  size_t collective_instances = 0;
};

// The whole page as one string.
std::string render_gpu_report_html(const GpuReportInput& in);

// Writes the page to `path` (through a temporary file); false with a message in `diag` on failure.
bool write_gpu_report_html(const GpuReportInput& in, const std::string& path,
                           io::Diagnostics& diag);

}  // namespace cs::gpu
