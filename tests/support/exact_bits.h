#pragma once
// Doubles compared bit for bit, for results that must not change at all (parked or streamed
// against held in memory, batched against whole): a NaN equals itself, 0.0 differs from -0.0.

#include <bit>
#include <cstdint>

namespace cs::test {

// The bits of `x`: EXPECT_EQ(bits(a), bits(b)).
inline uint64_t bits(double x) {
  return std::bit_cast<uint64_t>(x);
}

}  // namespace cs::test
