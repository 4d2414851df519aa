#include "generator/db_export/write_mstx_modules.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "generator/db_export/profiler_db_schema.h"

namespace cs::generator {

namespace {

constexpr size_t kLayers = 2;

// A range over ops [lo, hi), widened by `margin` ns on both sides.
void range_over(std::vector<ModuleSpan>& out, const std::vector<const HostOpSpan*>& ops, size_t lo,
                size_t hi, const char* name, int64_t margin) {
  if (lo >= hi) return;
  int64_t end = ops[lo]->end_ns;
  for (size_t i = lo; i < hi; ++i) end = std::max(end, ops[i]->end_ns);
  out.push_back({ops[lo]->start_ns - margin, end + margin, name});
}

}  // namespace

std::vector<PassOps> forward_passes(const std::vector<HostOpSpan>& ops, const RankTimeline& tl) {
  // The ops of each pass, by (step, micro-batch, forward).
  std::map<std::tuple<int, int, bool>, std::vector<const HostOpSpan*>> by_pass;
  size_t at = 0;
  std::vector<PassSpan> passes = tl.passes;
  std::stable_sort(passes.begin(), passes.end(),
                   [](const PassSpan& a, const PassSpan& b) { return a.start_us < b.start_us; });
  for (const PassSpan& p : passes) {
    while (at < ops.size() && ops[at].device_us < p.start_us) ++at;
    auto& v = by_pass[{p.step, p.microbatch, p.forward}];
    for (; at < ops.size() && ops[at].device_us <= p.end_us; ++at) v.push_back(&ops[at]);
  }
  std::vector<PassOps> out;
  for (const PassSpan& p : tl.passes) {
    if (!p.forward) continue;
    const auto& fwd = by_pass[{p.step, p.microbatch, true}];
    if (fwd.empty()) continue;
    out.push_back({fwd, by_pass[{p.step, p.microbatch, false}]});
  }
  return out;
}

std::vector<ModuleSpan> module_spans(const std::vector<const HostOpSpan*>& ops,
                                     const ModuleNames& names) {
  std::vector<ModuleSpan> out;
  const size_t n = ops.size();
  range_over(out, ops, 0, n, names.model, 3);
  if (n < 8) return out;
  range_over(out, ops, 0, 1, names.embedding, 1);
  const size_t first = 1, last = n - 2;  // the layers' ops: [first, last)
  const size_t per_layer = (last - first) / kLayers;
  for (size_t l = 0; l < kLayers; ++l) {
    const size_t lo = first + l * per_layer, hi = l + 1 == kLayers ? last : lo + per_layer;
    range_over(out, ops, lo, hi, names.layer, 2);
    range_over(out, ops, lo, lo + (hi - lo) / 2, names.attention, 1);
  }
  range_over(out, ops, last, last + 1, names.leaf1, 1);
  range_over(out, ops, last + 1, n, names.leaf2, 1);
  return out;
}

void write_mstx_modules(MstxModuleSink& sink, const std::vector<HostOpSpan>& ops,
                        const RankTimeline& tl, const ModuleNames& names) {
  int64_t range = sink.first_range_id;
  const int64_t domain = sink.ids.id("Module");
  for (const PassOps& p : forward_passes(ops, tl)) {
    for (const ModuleSpan& m : module_spans(p.fwd, names))
      sink.mstx.row({m.start_ns, m.end_ns, kMstxStartEnd, range++, kNoValue, sink.ids.id(m.name),
                     sink.global_tid, sink.global_tid, domain, kNoValue, 0});
    for (size_t i = 0; i < p.fwd.size() && i < p.bwd.size(); ++i) {
      const int64_t link = sink.next_connection++;
      sink.connections.row({p.fwd[i]->api_id, link});
      sink.connections.row({p.bwd[p.bwd.size() - 1 - i]->api_id, link});
    }
  }
}

}  // namespace cs::generator
