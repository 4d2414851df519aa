#include "generator/db_export/write_mstx_modules.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "generator/db_export/profiler_db_schema.h"

namespace cs::generator {

namespace {

constexpr size_t kLayers = 2;

struct ModuleWriter {
  MstxModuleSink& sink;
  int64_t range, domain;
  // A range over ops [lo, hi), widened by `margin` ns on both sides.
  void range_over(const std::vector<const HostOpSpan*>& ops, size_t lo, size_t hi, const char* name,
                  int64_t margin) {
    if (lo >= hi) return;
    int64_t end = ops[lo]->end_ns;
    for (size_t i = lo; i < hi; ++i) end = std::max(end, ops[i]->end_ns);
    sink.mstx.row({ops[lo]->start_ns - margin, end + margin, kMstxStartEnd, range++, kNoValue,
                   sink.ids.id(name), sink.global_tid, sink.global_tid, domain, kNoValue, 0});
  }
};

void pass_modules(ModuleWriter& w, const std::vector<const HostOpSpan*>& ops) {
  const size_t n = ops.size();
  w.range_over(ops, 0, n, "GPTModel", 3);
  if (n < 8) return;
  w.range_over(ops, 0, 1, "embedding", 1);
  const size_t first = 1, last = n - 2;  // the layers' ops: [first, last)
  const size_t per_layer = (last - first) / kLayers;
  for (size_t l = 0; l < kLayers; ++l) {
    const size_t lo = first + l * per_layer, hi = l + 1 == kLayers ? last : lo + per_layer;
    w.range_over(ops, lo, hi, "TransformerLayer", 2);
    w.range_over(ops, lo, lo + (hi - lo) / 2, "attention", 1);
  }
  w.range_over(ops, last, last + 1, "Linear", 1);
  w.range_over(ops, last + 1, n, "Linear", 1);
}

}  // namespace

void write_mstx_modules(MstxModuleSink& sink, const std::vector<HostOpSpan>& ops,
                        const RankTimeline& tl) {
  ModuleWriter w{sink, sink.first_range_id, sink.ids.id("Module")};
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
  for (const PassSpan& p : tl.passes) {
    if (!p.forward) continue;
    const auto& fwd = by_pass[{p.step, p.microbatch, true}];
    if (fwd.empty()) continue;
    pass_modules(w, fwd);
    const auto& bwd = by_pass[{p.step, p.microbatch, false}];
    for (size_t i = 0; i < fwd.size() && i < bwd.size(); ++i) {
      const int64_t link = sink.next_connection++;
      sink.connections.row({fwd[i]->api_id, link});
      sink.connections.row({bwd[bwd.size() - 1 - i]->api_id, link});
    }
  }
}

}  // namespace cs::generator
