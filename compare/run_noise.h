#pragma once
// Is a change between two runs real or noise? One regression candidate (an operator key, a
// communication group, the compute of the ranks, the links of a transport) has one value per
// member (rank or link) on each side, in microseconds per step. The member diffs x = comp - base
// give the noise of the candidate: sigma = 1.4826 * MAD(x) around their median m (the robust
// standard deviation of the per-member diffs, the member under test left out; at least 1.2533 *
// their mean absolute deviation).
// A change is significant when it exceeds both k * sigma and a floor max(min_abs_us, min_rel *
// base):
//   - an outlier member: |x_i - m| beyond it (one slow rank, one slow link), or
//   - a shift of every member: |m| beyond it (a kernel slower everywhere).
// Same seed twice gives sigma = 0 and x = 0 (below the floor); two seeds give x spread like sigma,
// so no member passes k = 6 sigmas (P < 2e-9 per member for normal noise).
//
//   MemberValues v{{100, 100, 100}, {101, 99, 180}};
//   assess_members(v, {}) -> extreme 2, diff 80, center 1, noise ~1.5, outlier, significant

#include <cstddef>
#include <vector>

namespace cs::compare {

struct NoiseOptions {
  double k = 6.0;          // sigmas a change must exceed
  double min_abs_us = 20;  // per step; smaller changes are never significant
  double min_rel = 0.05;   // nor changes below this fraction of the base value (between two
                           // seeds a whole group's transit drifts by up to ~2.5%)
};

// Aligned per-member values (µs per step); a member absent on one side holds 0 there.
struct MemberValues {
  std::vector<double> base, comparison;
};

struct Assessment {
  size_t extreme = 0;    // member with the largest |diff|
  double diff = 0;       // its diff (comparison - base)
  double center = 0;     // median member diff (the shift of every member)
  double noise = 0;      // robust sigma of the member diffs
  double impact = 0;     // signed µs per step: extreme's excess over the center when it is an
                         // outlier, else the center (shift) -- whichever is significant, else diff
  bool outlier = false;  // the extreme member stands out from the others
  bool shift = false;    // every member moved
  bool significant = false;
};

// Assesses one candidate (see the file comment). Empty input -> a default Assessment.
Assessment assess_members(const MemberValues& v, const NoiseOptions& opt);

// Same, but the center and noise come from `reference` member diffs (e.g. every rank of every
// group of the same op type, pooled because a group of 2-8 ranks is too small to estimate its
// own noise): the extreme member is an outlier when it stands out from the reference, a shift
// when the reference itself moved.
Assessment assess_against(const MemberValues& v, const std::vector<double>& reference,
                          const NoiseOptions& opt);

// Same for one member of many (e.g. rank r's Computing among all ranks): outlier test only.
Assessment assess_member(const MemberValues& v, size_t member, const NoiseOptions& opt);

// assess_member for every member, in O(n log n) beyond 64 members (the noise is then estimated
// once, with no member left out).
std::vector<Assessment> assess_each(const MemberValues& v, const NoiseOptions& opt);

}  // namespace cs::compare
