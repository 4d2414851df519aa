#pragma once
// Data-parallel work whose results must come out in order (JSON documents, tables): items are
// computed on several threads a window at a time, then emitted in index order on the calling
// thread. Output is identical for any thread count; memory holds one window of results.
//
//   std::vector<std::string> text(n);
//   ordered_parallel_for(n, threads, [&](size_t i) { text[i] = render(i); },
//                        [&](size_t i) { out << text[i]; text[i].clear(); });

#include <cstddef>
#include <functional>

namespace cs::cluster {

// Runs work(i) for every i in [0, n) on up to `threads` threads (the caller's included), a window
// of a few items per thread at a time; after each window calls emit(i) for its items in
// increasing i on the calling thread. threads <= 1 runs work(i), emit(i) alternately on the
// caller. An exception from work() is rethrown on the caller after the window finishes.
void ordered_parallel_for(size_t n, int threads, const std::function<void(size_t)>& work,
                          const std::function<void(size_t)>& emit);

}  // namespace cs::cluster
