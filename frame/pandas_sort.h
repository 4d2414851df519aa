#pragma once
// The orders pandas 1.5 gives rows when msprof-analyze sorts with sort_values/sort_index: numpy
// 1.24's default argsort (kind="quicksort": an introsort, not stable, so rows with equal keys
// come out in the order its partitions leave them) and pandas' nargsort, which sorts a
// descending key by reversing it, sorting ascending and reversing the result.

#include <cstddef>
#include <utility>
#include <vector>

namespace cs::frame {

// The comparators are template parameters (called directly, inlined), not std::function.
namespace pandas_sort_detail {

inline constexpr std::ptrdiff_t kSmallQuicksort = 15;

inline int msb(size_t n) {
  int depth = 0;
  while (n >>= 1) ++depth;
  return depth;
}

// numpy's aheapsort (used when the introsort recursion gets too deep); `a` is 1-based inside.
template <class Less>
void heapsort(size_t* tosort, std::ptrdiff_t n, const Less& less) {
  size_t* a = tosort - 1;
  // Moves `tmp` down from slot i of the heap a[1..n] (numpy's sift-down, used by both phases).
  auto sift_down = [&](std::ptrdiff_t i, size_t tmp, std::ptrdiff_t size) {
    for (std::ptrdiff_t j = i << 1; j <= size;) {
      if (j < size && less(a[j], a[j + 1])) j += 1;
      if (!less(tmp, a[j])) break;
      a[i] = a[j];
      i = j;
      j += j;
    }
    a[i] = tmp;
  };
  for (std::ptrdiff_t l = n >> 1; l > 0; --l) sift_down(l, a[l], n);
  for (; n > 1;) {
    const size_t tmp = a[n];
    a[n] = a[1];
    n -= 1;
    sift_down(1, tmp, n);
  }
}

}  // namespace pandas_sort_detail

// numpy's argsort(kind="quicksort") of n items under `less(a, b)` (indices into the items).
template <class Less>
std::vector<size_t> numpy_argsort(size_t n, const Less& less) {
  using namespace pandas_sort_detail;
  std::vector<size_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = i;
  if (n < 2) return idx;
  size_t* pl = idx.data();
  size_t* pr = idx.data() + n - 1;
  std::vector<size_t*> stack;
  std::vector<int> depths;
  int cdepth = msb(n) * 2;
  for (;;) {
    if (cdepth < 0) {
      heapsort(pl, pr - pl + 1, less);
    } else {
      while ((pr - pl) > kSmallQuicksort) {
        size_t* pm = pl + ((pr - pl) >> 1);
        if (less(*pm, *pl)) std::swap(*pm, *pl);
        if (less(*pr, *pm)) std::swap(*pr, *pm);
        if (less(*pm, *pl)) std::swap(*pm, *pl);
        const size_t vp = *pm;
        size_t* pi = pl;
        size_t* pj = pr - 1;
        std::swap(*pm, *pj);
        for (;;) {
          do ++pi;
          while (less(*pi, vp));
          do --pj;
          while (less(vp, *pj));
          if (pi >= pj) break;
          std::swap(*pi, *pj);
        }
        size_t* pk = pr - 1;
        std::swap(*pi, *pk);
        if (pi - pl < pr - pi) {
          stack.push_back(pi + 1);
          stack.push_back(pr);
          pr = pi - 1;
        } else {
          stack.push_back(pl);
          stack.push_back(pi - 1);
          pl = pi + 1;
        }
        depths.push_back(--cdepth);
      }
      for (size_t* pi = pl + 1; pi <= pr; ++pi) {
        const size_t vi = *pi;
        size_t* pj = pi;
        size_t* pk = pi - 1;
        while (pj > pl && less(vi, *pk)) *pj-- = *pk--;
        *pj = vi;
      }
    }
    if (stack.empty()) break;
    pr = stack.back();
    stack.pop_back();
    pl = stack.back();
    stack.pop_back();
    cdepth = depths.back();
    depths.pop_back();
  }
  return idx;
}

// pandas' nargsort: the row order of sort_values(ascending) on a key without missing values.
template <class Less>
std::vector<size_t> pandas_sort_order(size_t n, const Less& less, bool ascending) {
  if (ascending) return numpy_argsort(n, less);
  // Reverse, sort ascending, reverse.
  auto rev_less = [&](size_t a, size_t b) { return less(n - 1 - a, n - 1 - b); };
  std::vector<size_t> sorted = numpy_argsort(n, rev_less);
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = n - 1 - sorted[n - 1 - i];
  return out;
}

}  // namespace cs::frame
