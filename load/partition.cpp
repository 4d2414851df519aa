#include "load/partition.h"

#include <algorithm>
#include <numeric>

namespace cs::load {

std::vector<std::vector<size_t>> partition_by_bytes(const std::vector<RankEntry>& entries,
                                                    int processes, double root_unpack_cost) {
  const size_t p = static_cast<size_t>(std::max(processes, 1));
  std::vector<std::vector<size_t>> out(p);
  std::vector<size_t> order(entries.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return entries[a].bytes > entries[b].bytes; });
  std::vector<uint64_t> load(p, 0);
  if (p > 1 && root_unpack_cost > 0) {
    uint64_t total = 0;
    for (const RankEntry& e : entries) total += std::max<uint64_t>(e.bytes, 1);
    load[0] = static_cast<uint64_t>(root_unpack_cost * static_cast<double>(total) *
                                    static_cast<double>(p - 1) / static_cast<double>(p));
  }
  for (size_t i : order) {
    size_t best = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    out[best].push_back(i);
    // An empty directory still costs something to open: count at least one byte.
    load[best] += std::max<uint64_t>(entries[i].bytes, 1);
  }
  return out;
}

}  // namespace cs::load
