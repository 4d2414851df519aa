#pragma once
// A sum of doubles whose result does not depend on the order of its terms, so that work split in
// batches (or over threads) adds up to the same bits as work done whole. Each term is added exactly
// as a 128-bit fixed-point number of 2^-64 units; the total is rounded to a double once, at the end
// (to nearest). Terms of 2^32 and above in magnitude, or not finite, are summed apart as doubles
// (only there can the order matter); the bits of a term below 2^-64 are dropped (toward zero).
// Up to 2^31 terms.
//
//   ExactSum s;
//   s.add(0.1); s.add(1e9); s.add(-1e9);
//   s.value() -> 0.1 (a plain double sum in that order gives 0.10000002384185791)

#include <cmath>

namespace cs::stats {

class ExactSum {
 public:
  // Adds one term.
  void add(double x) {
    if (std::isfinite(x) && std::fabs(x) < 0x1p32)
      fixed_ += static_cast<Fixed>(std::ldexp(x, 64));
    else
      large_ += x;
  }
  // The sum, rounded once.
  double value() const { return std::ldexp(static_cast<double>(fixed_), -64) + large_; }

 private:
  __extension__ typedef __int128 Fixed;
  Fixed fixed_ = 0;
  double large_ = 0;
};

}  // namespace cs::stats
