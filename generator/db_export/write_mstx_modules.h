#pragma once
// The mstx ranges torch_npu records around every nn.Module's forward when module profiling is on
// (`generate --mstx-modules`): MSTX_EVENTS ranges (eventType start/end) in the domain "Module",
// on the host, nesting the framework ops (PYTORCH_API) the module launched; and autograd's
// forward/backward links between framework ops (two CONNECTION_IDS rows sharing a connectionId
// no task has). What msprof-analyze's module_statistic maps to kernel time.

#include <cstdint>
#include <vector>

#include "generator/db_export/sqlite_writer.h"
#include "generator/job/simulation.h"

namespace cs::generator {

// One framework op: its host span (absolute ns), its PYTORCH_API connectionId and when its
// device event starts (relative us), in launch order.
struct HostOpSpan {
  int64_t start_ns = 0, end_ns = 0;
  int64_t api_id = 0;
  double device_us = 0;
};

struct MstxModuleSink {
  Insert& mstx;         // MSTX_EVENTS
  Insert& connections;  // CONNECTION_IDS
  StringIdTable& ids;
  int64_t& next_connection;  // fresh connectionIds for the forward/backward links
  int64_t global_tid = 0;
  int64_t first_range_id = 0;
};

// Per forward pass of `tl` (its ops: those whose device event starts in the pass): "GPTModel"
// spanning them all, inside it "embedding" (the first op), two "TransformerLayer" ranges
// splitting the middle ops (each with an "attention" child over the first half of its ops, the
// rest directly in the layer) and two leaf "Linear" ranges over the last two ops; a pass with
// fewer than 8 ops gets only "GPTModel". The backward pass of the same step and micro-batch links
// its ops, last first, to the forward ones (forward op i with backward op n_b - 1 - i).
void write_mstx_modules(MstxModuleSink& sink, const std::vector<HostOpSpan>& ops,
                        const RankTimeline& tl);

}  // namespace cs::generator
