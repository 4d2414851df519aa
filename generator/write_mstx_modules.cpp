#include "generator/write_mstx_modules.h"

#include <algorithm>
#include <string>

#include "generator/profiler_db_schema.h"

namespace cs::generator {

namespace {

constexpr size_t kLayers = 2;

struct ModuleWriter {
  Insert& mstx;
  StringIdTable& ids;
  int64_t tid, range, domain;
  // A range over ops [lo, hi) of `ops`, widened by `margin` ns on both sides.
  void range_over(const HostOpSpan* ops, size_t lo, size_t hi, const char* name, int64_t margin) {
    if (lo >= hi) return;
    int64_t end = ops[lo].end_ns;
    for (size_t i = lo; i < hi; ++i) end = std::max(end, ops[i].end_ns);
    mstx.row({ops[lo].start_ns - margin, end + margin, kMstxStartEnd, range++, kNoValue,
              ids.id(name), tid, tid, domain, kNoValue, 0});
  }
};

void step_modules(ModuleWriter& w, const HostOpSpan* ops, size_t n) {
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

void write_mstx_modules(Insert& mstx, StringIdTable& ids, const std::vector<HostOpSpan>& ops,
                        int64_t global_tid, int64_t first_range_id) {
  ModuleWriter w{mstx, ids, global_tid, first_range_id, ids.id("Module")};
  size_t begin = 0;
  while (begin < ops.size()) {
    size_t end = begin;
    while (end < ops.size() && ops[end].step == ops[begin].step) ++end;
    step_modules(w, ops.data() + begin, end - begin);
    begin = end;
  }
}

}  // namespace cs::generator
