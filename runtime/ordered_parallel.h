#pragma once
// Data-parallel work whose results must come out in order (JSON documents, tables): items are
// computed on several threads, at most a few per thread ahead of the next one to emit, and
// emitted in index order on the calling thread as soon as each is done (the other threads go on
// computing meanwhile). Output is identical for any thread count; memory holds one window of
// results.
//
//   std::vector<std::string> text(n);
//   ordered_parallel_for(n, threads, [&](size_t i) { text[i] = render(i); },
//                        [&](size_t i) { out << text[i]; text[i].clear(); });

#include <cstddef>
#include <functional>

namespace cs::runtime {

// Runs work(i) for every i in [0, n) on up to `threads` threads (the caller's included), claiming
// items in order at most 16 per thread ahead of the next to emit, and calls emit(i) in increasing i
// on the calling thread as soon as work(i) is done; the caller also computes items while it waits.
// threads <= 1 runs work(i), emit(i) alternately on the caller. The first exception from work()
// or emit() is rethrown on the caller once the items in hand are finished; no item from the
// failing one on is emitted.
void ordered_parallel_for(size_t n, int threads, const std::function<void(size_t)>& work,
                          const std::function<void(size_t)>& emit);

// The weight of item i (e.g. the bytes its result will hold), for the overload below.
using ItemWeight = std::function<size_t(size_t)>;

// Same, and the items claimed ahead of the next to emit (done or not) weigh at most
// `max_weight_ahead` together, except that each thread may always hold one item however heavy:
// bounds what results held ahead cost when items differ much in size.
void ordered_parallel_for(size_t n, int threads, const std::function<void(size_t)>& work,
                          const std::function<void(size_t)>& emit, const ItemWeight& weight,
                          size_t max_weight_ahead);

// Runs a() and b(), at once on two threads when `parallel` (a on a new one), else one after the
// other. Rethrows the first exception (a's first) once both have finished.
void run_both(bool parallel, const std::function<void()>& a, const std::function<void()>& b);

}  // namespace cs::runtime
