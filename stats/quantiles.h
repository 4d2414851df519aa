#pragma once
// Mergeable quantiles of one key's durations: exact while the key has at most kExactLimit
// samples (every sample kept; quantile(q) interpolates linearly between the two order statistics
// around q*(n-1), as numpy.quantile / pandas' Series.quantile do by default), and a QuantileSketch
// beyond that (quantile(q) then within ±1% (relative) of the lower sample quantile
// x[floor(q*(n-1))]). Merging keeps every sample while the merged count fits, so the result is
// the same whatever the number of MPI processes or the order of the merges.
//
//   Quantiles d;  d.add(2466.0);  d.add(8828.0);
//   d.quantile(0.5) == 5647.0;  d.exact() == true

#include <cstdint>
#include <vector>

#include "io/byte_buffer.h"
#include "stats/quantile_sketch.h"

namespace cs::stats {

class Quantiles {
 public:
  // Samples one key keeps exactly (8 MiB of doubles); more and it falls back to the sketch.
  static constexpr int64_t kExactLimit = int64_t{1} << 20;

  // Adds `count` samples of value x (NaN ignored).
  void add(double x, int64_t count = 1);
  // Adds `count` samples known only by their mean (pre-aggregated input): no longer exact.
  void add_approximate(double x, int64_t count);
  void merge(const Quantiles& o);
  // As merge(), except that o's exact samples, when merge() would keep them exactly, are counted
  // but not kept: then it returns true and the caller keeps o.samples() elsewhere (parked on
  // disk: analysis/operator_samples.h) and gives them back with give_back() before quantile().
  // Every decision (exact or not, the table's budget) depends on counts alone, and the sketch is
  // order-independent, so the state completed by give_back() is the one merge() builds.
  bool merge_counting(const Quantiles& o);
  // Gives back n of the samples merge_counting() left to the caller (any order): kept exactly
  // while exact(), else added to the sketch. Throws std::logic_error past the number left out.
  void give_back(const double* p, size_t n);
  // Samples merge_counting() left to the caller and not given back yet.
  int64_t samples_elsewhere() const { return elsewhere_; }
  // The samples held exactly (empty once the sketch answers; those elsewhere not included).
  const std::vector<double>& samples() const { return samples_; }
  // Gives up the kept samples (the sketch answers from now on); frees their memory.
  void drop_exact();

  // Sorts the exact samples in place, so that quantile() reads its order statistics directly
  // instead of selecting them in a copy of every sample (the copy is as large as the samples:
  // up to 8 MiB a key). The same answers; anything that adds samples unsorts them again.
  void sort_samples();
  // q in [0, 1]; NaN when empty. Exact (linear interpolation) while exact(). Throws
  // std::logic_error while samples are elsewhere (merge_counting()).
  double quantile(double q) const;
  int64_t count() const { return count_; }
  bool exact() const { return exact_; }
  // Samples held exactly, here or elsewhere (merge_counting()); 0 once the sketch answers.
  size_t exact_samples() const {
    return exact_ ? samples_.size() + static_cast<size_t>(elsewhere_) : 0;
  }
  // Relative error bound of quantile(): 0 while exact, the sketch's alpha beyond.
  double relative_error() const { return exact_ ? 0.0 : sketch_.relative_accuracy(); }

  // Throws std::logic_error while samples are elsewhere.
  void pack(io::ByteWriter& w) const;
  static Quantiles unpack(io::ByteReader& r);

 private:
  // merge()'s path past the exact samples: o's samples or sketch into the sketch.
  void merge_into_sketch(const Quantiles& o);
  std::vector<double> samples_;  // while exact_
  QuantileSketch sketch_;        // once !exact_
  bool exact_ = true;
  int64_t count_ = 0;
  int64_t elsewhere_ = 0;  // counted in count_, kept by the caller (merge_counting)
  bool sorted_ = false;    // samples_ ascending (sort_samples(), until a sample is added)
};

// Linear interpolation between order statistics, numpy's default method ("linear"): with
// h = q*(n-1), lo = floor(h), t = h - lo: a + (b-a)*t for t < 0.5, b - (b-a)*(1-t) otherwise
// (numpy's _lerp), where a = x[lo], b = x[lo+1]. `v` is reordered. NaN when empty.
double exact_quantile(std::vector<double>& v, double q);
// The same for samples already sorted ascending: nothing is reordered or copied.
double sorted_quantile(const std::vector<double>& sorted, double q);

}  // namespace cs::stats
