#include "load/partition.h"

#include <algorithm>
#include <cmath>

namespace cs::load {
namespace {

// The weights and their prefix sums: sum of [a, b) = prefix[b] - prefix[a].
struct Weights {
  std::vector<uint64_t> prefix;  // size n + 1
  uint64_t sum(size_t a, size_t b) const { return prefix[b] - prefix[a]; }
  size_t n() const { return prefix.size() - 1; }
};

// The end of the longest range from `start` whose sum stays within `cap`.
size_t fill(const Weights& w, size_t start, uint64_t cap) {
  const uint64_t limit = w.prefix[start] + cap;  // no overflow: cap <= total + head
  return static_cast<size_t>(
             std::upper_bound(w.prefix.begin() + static_cast<long>(start), w.prefix.end(), limit) -
             w.prefix.begin()) -
         1;
}

// Whether `p` processes (the first with `head` already on it) cover every item with no load
// above `limit`, each taking as much as fits (which covers the most a contiguous split can).
bool feasible(const Weights& w, size_t p, uint64_t head, uint64_t limit) {
  if (head > limit) return false;
  size_t start = 0;
  for (size_t q = 0; q < p && start < w.n(); ++q)
    start = fill(w, start, q == 0 ? limit - head : limit);
  return start == w.n();
}

}  // namespace

std::vector<std::vector<size_t>> partition_by_bytes(const std::vector<RankEntry>& entries,
                                                    int processes, double root_unpack_cost) {
  const size_t p = static_cast<size_t>(std::max(processes, 1));
  std::vector<std::vector<size_t>> out(p);
  const size_t n = entries.size();
  Weights w;
  w.prefix.assign(n + 1, 0);
  uint64_t biggest = 0;
  for (size_t i = 0; i < n; ++i) {
    // An empty directory still costs something to open: count at least one byte.
    const uint64_t b = std::max<uint64_t>(entries[i].bytes, 1);
    w.prefix[i + 1] = w.prefix[i] + b;
    biggest = std::max(biggest, b);
  }
  const uint64_t total = w.prefix[n];
  uint64_t head = 0;
  if (p > 1 && root_unpack_cost > 0)
    head = static_cast<uint64_t>(root_unpack_cost * static_cast<double>(total) *
                                 static_cast<double>(p - 1) / static_cast<double>(p));

  // 1. The least largest load: a binary search on the limit (feasibility is monotone in it).
  uint64_t lo = std::max(biggest, head), hi = total + head;  // hi: the root takes everything
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (feasible(w, p, head, mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  const uint64_t limit = lo;

  // need[j]: how many processes (no head start) cover items j.. within the limit, filling each.
  // It only grows as j moves left, so the ends that leave a coverable rest form a suffix.
  std::vector<size_t> need(n + 1, 0);
  for (size_t j = n; j-- > 0;) need[j] = 1 + need[fill(w, j, limit)];

  // 2. Each process in turn ends its range in [first end that leaves a coverable rest, longest
  // range within the limit], as near its even share of what is left as it can; it takes at least
  // one rank when it can, so idle processes are the last ones.
  size_t start = 0;
  for (size_t q = 0; q < p && start < n; ++q) {
    const uint64_t own_head = q == 0 ? head : 0;
    const size_t others = p - q - 1;
    const size_t longest = fill(w, start, limit - own_head);
    size_t shortest = start;
    while (shortest < longest && need[shortest] > others) ++shortest;
    if (shortest == start && longest > start) shortest = start + 1;
    // The even share: the remaining load (the root's head start included) over the processes
    // left, less this process's head start.
    const double even =
        static_cast<double>(w.sum(start, n) + own_head) / static_cast<double>(p - q) -
        static_cast<double>(own_head);
    size_t end = shortest;
    for (size_t e = shortest + 1; e <= longest; ++e) {
      if (std::abs(static_cast<double>(w.sum(start, e)) - even) <
          std::abs(static_cast<double>(w.sum(start, end)) - even))
        end = e;
      else if (static_cast<double>(w.sum(start, e)) > even)
        break;  // past the even share every longer range is further from it
    }
    for (size_t i = start; i < end; ++i) out[q].push_back(i);
    std::stable_sort(out[q].begin(), out[q].end(),
                     [&](size_t a, size_t b) { return entries[a].bytes > entries[b].bytes; });
    start = end;
  }
  return out;
}

}  // namespace cs::load
