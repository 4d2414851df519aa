#pragma once
// The mstx ranges torch_npu records around every nn.Module's forward when module profiling is on
// (`generate --mstx-modules`): MSTX_EVENTS ranges (eventType start/end) in the domain "Module",
// on the host, nesting the framework ops (PYTORCH_API) the module launched. What msprof-analyze's
// module_statistic maps to kernel time.

#include <cstdint>
#include <vector>

#include "generator/sqlite_writer.h"

namespace cs::generator {

// One framework op's host span (absolute ns) and the step it belongs to, in launch order.
struct HostOpSpan {
  int64_t start_ns = 0, end_ns = 0;
  uint32_t step = 0;
};

// Per step, over that step's ops (kernels and collectives, in launch order): "GPTModel" spanning
// them all, inside it "embedding" (the first op), `kLayers` "TransformerLayer" ranges splitting
// the middle ops (each with an "attention" child over the first half of its ops, the rest
// directly in the layer) and two leaf "Linear" ranges over the last two ops. A step with fewer
// than 8 ops gets only "GPTModel". Range ids start at `first_range_id`.
void write_mstx_modules(Insert& mstx, StringIdTable& ids, const std::vector<HostOpSpan>& ops,
                        int64_t global_tid, int64_t first_range_id);

}  // namespace cs::generator
