#include "generator/db_export/write_mfu_flops.h"

#include <algorithm>
#include <charconv>

#include "generator/db_export/profiler_db_schema.h"

namespace cs::generator {

namespace {

// The dimensions of shape `index` of a "d0,d1;e0,e1" list (empty when absent or not numbers).
std::vector<int64_t> shape(std::string_view list, size_t index) {
  for (size_t i = 0; i < index; ++i) {
    const size_t semi = list.find(';');
    if (semi == std::string_view::npos) return {};
    list.remove_prefix(semi + 1);
  }
  list = list.substr(0, list.find(';'));
  std::vector<int64_t> dims;
  while (!list.empty()) {
    const size_t comma = std::min(list.find(','), list.size());
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(list.data(), list.data() + comma, v);
    if (ec != std::errc() || end != list.data() + comma) return {};
    dims.push_back(v);
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return dims;
}

bool is_matmul(const KernelSpec& k) {
  return k.type == "MatMulV2" || k.type == "MatMulV3";
}

}  // namespace

std::optional<int64_t> recorded_flops(const KernelSpec& k, int tp) {
  int64_t flops = 0;
  if (is_matmul(k)) {
    const auto out = shape(k.output_shapes, 0), a = shape(k.input_shapes, 0);
    if (out.size() != 2 || a.size() != 2) return std::nullopt;
    const int64_t m = out[0], n = out[1], kk = a[0] != m ? a[0] : a[1];
    flops = 2 * m * kk * n;
  } else if (k.type == "FlashAttentionScore") {
    const auto q = shape(k.input_shapes, 0);  // SBH: sequence, batch, hidden
    if (q.size() != 3) return std::nullopt;
    flops = 4 * q[1] * q[0] * q[0] * q[2];
  } else {
    return std::nullopt;
  }
  return k.tp_sharded && tp > 1 ? flops / tp : flops;
}

std::string_view flops_call_name(const KernelSpec& k) {
  return is_matmul(k) ? "torch.matmul" : "torch_npu.npu_fusion_attention";
}

void write_mfu_flops(Insert& mstx, StringIdTable& ids, const std::vector<FlopsCall>& calls,
                     const RankTimeline& tl, int64_t global_tid, int64_t first_range_id) {
  const int64_t domain = ids.id("mfu_flops");
  int64_t range = first_range_id;
  for (const FlopsCall& c : calls) {
    const bool forward = std::any_of(tl.passes.begin(), tl.passes.end(), [&](const PassSpan& p) {
      return p.forward && c.device_us >= p.start_us && c.device_us <= p.end_us;
    });
    if (!forward) continue;
    const std::string msg = std::to_string(c.flops) + "-" + std::string(c.name);
    mstx.row({c.start_ns - 1, c.end_ns + 1, kMstxStartEnd, range++, kNoValue, ids.id(msg),
              global_tid, global_tid, domain, kNoValue, 0});
  }
}

}  // namespace cs::generator
