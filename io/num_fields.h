#pragma once
// A fixed set of numeric JSON fields held compactly: one double per field plus one "written as an
// int" bit and one "present" bit per field. Half the size of an array of Num with its own flags;
// the per-rank communication and matrix records are made of these.
//
//   NumFields<4> f;
//   f.set(1, Num::integer(3));
//   f.has(1) && f.num(1).is_int && f.get(1) == 3.0;  f.has(0) == false, f.num(0) == Num{}

#include <array>
#include <cstdint>

#include "io/py_format.h"

namespace cs::io {

template <int N>
struct NumFields {
  static_assert(N > 0 && N <= 8, "one bit per field in a byte");

  std::array<double, N> v{};
  uint8_t is_int = 0;   // bit i: field i was written as an int
  uint8_t present = 0;  // bit i: field i was in the file

  bool has(int f) const { return present & (1u << f); }
  // The value (0.0 when absent).
  double get(int f) const { return v[f]; }
  // The value with its int/float kind, as Python would print it (0.0 when absent).
  Num num(int f) const { return {v[f], static_cast<bool>(is_int & (1u << f))}; }
  void set(int f, Num n) {
    v[f] = n.v;
    const auto bit = static_cast<uint8_t>(1u << f);
    is_int = static_cast<uint8_t>(n.is_int ? (is_int | bit) : (is_int & ~bit));
    present |= bit;
  }
};

}  // namespace cs::io
