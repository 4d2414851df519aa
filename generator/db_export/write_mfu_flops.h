#pragma once
// The FLOPs torch_npu records when a job is profiled with `with_flops=True` and mstx on
// (`generate --mfu-flops`): one MSTX_EVENTS range in the domain "mfu_flops" around each
// forward-pass call of an operator with a FLOPs formula, its message "<FLOPs>-<operator>" (the
// chip's AI Cores and frequency go to device_{id}/info.json.{id}: generator/job/writers.h
// render_device_info_json). What msprof-analyze's operator_mfu divides by kernel time and the
// chip's peak.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "generator/db_export/sqlite_writer.h"
#include "generator/job/kernel_catalog.h"
#include "generator/job/simulation.h"

namespace cs::generator {

// The FLOPs recorded for one call of the operator launching `k` on a rank of a tp-way tensor
// parallel job: matmuls 2*M*K*N from the output (M, N) and the first input (K), FlashAttention
// (layout SBH, dense) 4*B*S*S*H from the query; a tp-sharded kernel does 1/tp of it (the
// catalog's shapes are the unsharded layer's). nullopt: no formula (the call records nothing).
std::optional<int64_t> recorded_flops(const KernelSpec& k, int tp);

// The Python call torch_npu names in the message: "torch.matmul", "torch_npu.npu_fusion_attention".
std::string_view flops_call_name(const KernelSpec& k);

// One framework op with recorded FLOPs: its host span (absolute ns) and when its device event
// starts (relative us).
struct FlopsCall {
  int64_t start_ns = 0, end_ns = 0;
  double device_us = 0;
  int64_t flops = 0;
  std::string_view name;
};

// Writes the ranges of the calls whose device event starts in a forward pass of `tl` (backward
// matmuls run in autograd, which records none): one range per call, 1 ns around its host span,
// eventType start/end, rangeIds from `first_range_id`.
void write_mfu_flops(Insert& mstx, StringIdTable& ids, const std::vector<FlopsCall>& calls,
                     const RankTimeline& tl, int64_t global_tid, int64_t first_range_id);

}  // namespace cs::generator
