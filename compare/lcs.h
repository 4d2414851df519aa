#pragma once
// Exact longest common subsequence of two symbol sequences, in memory linear in their lengths:
// Hirschberg's divide and conquer, with each DP row computed bit-parallel (Hyyrö's bit-vector LCS,
// 64 cells per machine word). Used to align the operator sequences of two profiles.
//
//   std::vector<uint32_t> a{1, 2, 3, 4}, b{1, 3, 4, 5};
//   auto pairs = lcs_align(a, b);  // {(0,0), (2,1), (3,2)}

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace cs::compare {

// Matched index pairs (i in a, j in b) of one longest common subsequence, both ascending.
// Time O(|a|·|b|/64) word operations, memory O(|a| + |b|). Among several LCS it prefers matches
// that come early in b.
std::vector<std::pair<uint32_t, uint32_t>> lcs_align(std::span<const uint32_t> a,
                                                     std::span<const uint32_t> b);

// Only the length of the LCS (one bit-parallel pass, memory O(|b|)).
// Example: lcs_length({1,2,3,4}, {1,3,4,5}) == 3.
size_t lcs_length(std::span<const uint32_t> a, std::span<const uint32_t> b);

}  // namespace cs::compare
