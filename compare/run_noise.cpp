#include "compare/run_noise.h"

#include <algorithm>
#include <cmath>

#include "stats/outliers.h"

namespace cs::compare {

namespace {

std::vector<double> diffs(const MemberValues& v) {
  std::vector<double> x(v.base.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = v.comparison[i] - v.base[i];
  return x;
}

// Sigma of x around center m, member `skip` left out (the one under test; npos: none): the
// larger of 1.4826 * MAD and 1.2533 * mean absolute deviation. The MAD alone collapses to ~0 when
// most members did not move at all (then the drift of a few members would look like many sigmas);
// the mean absolute deviation keeps a share of it.
double robust_sigma(const std::vector<double>& x, double m, size_t skip = static_cast<size_t>(-1)) {
  std::vector<double> rest;
  rest.reserve(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    if (i != skip) rest.push_back(x[i]);
  if (rest.empty()) return 0;
  double sum = 0;
  for (double d : rest) sum += std::fabs(d - m);
  return std::max(1.4826 * stats::mad(rest, m), 1.2533 * sum / static_cast<double>(rest.size()));
}

double floor_for(double base, const NoiseOptions& opt) {
  return std::max(opt.min_abs_us, opt.min_rel * std::fabs(base));
}

// Center and noise given: the tests of the file comment for `member`.
void judge(const MemberValues& v, const std::vector<double>& x, size_t member, double center,
           double noise, const NoiseOptions& opt, bool allow_shift, Assessment& a) {
  a.extreme = member;
  a.diff = x[member];
  a.center = center;
  a.noise = noise;
  const double excess = a.diff - a.center;
  // An outlier needs at least 3 members: with fewer the spread is made of the change itself.
  a.outlier = x.size() >= 3 && std::fabs(excess) > opt.k * a.noise &&
              std::fabs(excess) > floor_for(v.base[member], opt);
  if (allow_shift) {
    std::vector<double> base = v.base;
    const double typical = stats::median(std::move(base));
    a.shift =
        std::fabs(a.center) > opt.k * a.noise && std::fabs(a.center) > floor_for(typical, opt);
  }
  a.significant = a.outlier || a.shift;
  if (a.outlier)
    a.impact = excess;
  else if (a.shift)
    a.impact = a.center;
  else
    a.impact = a.diff;
}

void fill(const MemberValues& v, const std::vector<double>& x, size_t member,
          const NoiseOptions& opt, bool allow_shift, Assessment& a) {
  const double center = stats::median(x);
  judge(v, x, member, center, robust_sigma(x, center, member), opt, allow_shift, a);
}

}  // namespace

Assessment assess_members(const MemberValues& v, const NoiseOptions& opt) {
  Assessment a;
  if (v.base.empty() || v.base.size() != v.comparison.size()) return a;
  const auto x = diffs(v);
  size_t ext = 0;
  for (size_t i = 1; i < x.size(); ++i)
    if (std::fabs(x[i]) > std::fabs(x[ext])) ext = i;
  fill(v, x, ext, opt, true, a);
  return a;
}

Assessment assess_against(const MemberValues& v, const std::vector<double>& reference,
                          const NoiseOptions& opt) {
  Assessment a;
  if (v.base.empty() || v.base.size() != v.comparison.size() || reference.empty()) return a;
  const auto x = diffs(v);
  size_t ext = 0;
  for (size_t i = 1; i < x.size(); ++i)
    if (std::fabs(x[i]) > std::fabs(x[ext])) ext = i;
  a.extreme = ext;
  a.diff = x[ext];
  a.center = stats::median(reference);
  a.noise = robust_sigma(reference, a.center);
  const double excess = a.diff - a.center;
  a.outlier = reference.size() >= 3 && std::fabs(excess) > opt.k * a.noise &&
              std::fabs(excess) > floor_for(v.base[ext], opt);
  std::vector<double> base = v.base;
  const double typical = stats::median(std::move(base));
  a.shift = std::fabs(a.center) > opt.k * a.noise && std::fabs(a.center) > floor_for(typical, opt);
  a.significant = a.outlier || a.shift;
  a.impact = a.outlier ? excess : a.shift ? a.center : a.diff;
  return a;
}

Assessment assess_member(const MemberValues& v, size_t member, const NoiseOptions& opt) {
  Assessment a;
  if (member >= v.base.size() || v.base.size() != v.comparison.size()) return a;
  fill(v, diffs(v), member, opt, false, a);
  return a;
}

std::vector<Assessment> assess_each(const MemberValues& v, const NoiseOptions& opt) {
  std::vector<Assessment> out;
  if (v.base.size() != v.comparison.size()) return out;
  const auto x = diffs(v);
  out.resize(x.size());
  constexpr size_t kLeaveOneOutMax = 64;  // beyond, one member barely moves the spread
  const double center = stats::median(x);
  const double all = x.size() > kLeaveOneOutMax ? robust_sigma(x, center) : 0;
  for (size_t i = 0; i < x.size(); ++i)
    judge(v, x, i, center, x.size() > kLeaveOneOutMax ? all : robust_sigma(x, center, i), opt,
          false, out[i]);
  return out;
}

}  // namespace cs::compare
